package io.zklock.core.spi;

import org.apache.zookeeper.common.PathUtils;

/** Validation of the paths given to lock constructors. */
public final class LockPaths {
    private LockPaths() {
    }

    /**
     * Checks that {@code path} can be a lock directory: absolute, no trailing slash, no empty,
     * {@code .} or {@code ..} segments, no characters ZooKeeper refuses, not the root and not
     * under the reserved {@code /zookeeper} tree.
     *
     * @return the path, unchanged
     * @throws IllegalArgumentException naming the path and what is wrong with it
     */
    public static String validate(String path) {
        if (path == null) {
            throw new IllegalArgumentException("lock path is null");
        }
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid lock path '" + printable(path) + "': " + printable(e.getMessage()), e);
        }
        if (path.equals("/")) {
            throw new IllegalArgumentException("invalid lock path '/': the root cannot be a lock directory");
        }
        if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
            throw new IllegalArgumentException("invalid lock path '" + path + "': /zookeeper is reserved by ZooKeeper");
        }
        return path;
    }

    private static String printable(String path) {
        StringBuilder sb = new StringBuilder();
        path.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp)) {
                sb.append(String.format("\\u%04x", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.toString();
    }
}
