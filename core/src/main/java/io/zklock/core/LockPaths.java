package io.zklock.core;

import java.nio.charset.StandardCharsets;

import org.apache.zookeeper.common.PathUtils;

/**
 * Validation of the paths given to lock constructors, and the node names of user-given names:
 * what every recipe checks a path with, and what the integrations (ShedLock, Spring
 * Integration) and the command line build their paths with.
 */
public final class LockPaths {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockPaths() {
    }

    /**
     * Checks that {@code path} can be a lock directory: absolute, no trailing slash, no empty,
     * {@code .} or {@code ..} segments, no characters ZooKeeper refuses, not the root and not
     * under the reserved {@code /zookeeper} tree.
     *
     * @param path a lock directory
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

    /**
     * The one node name a name given by a user (a lock key, a job name) maps to, below a root
     * that names the integration's directory: letters, digits, {@code -}, {@code _} and
     * {@code .} stand for themselves; every other character, {@code %} included, becomes
     * {@code %XX} for each byte of its UTF-8 form; a name made only of dots ({@code .},
     * {@code ..}, which ZooKeeper refuses) has its dots encoded too. The map is injective
     * (decoding gives the name back), so two names never share a node, and its result never
     * holds {@code /}, so no name reaches outside its root.
     *
     * @param what names the name in an error, e.g. {@code "lock key"}
     * @param name a non-empty name, well-formed UTF-16
     * @return its node name
     * @throws IllegalArgumentException if the name is null or empty, or holds a lone surrogate
     *         (which has no UTF-8 form)
     */
    public static String nodeNameOf(String what, String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(what + " is " + (name == null ? "null" : "empty"));
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 == name.length() || !Character.isLowSurrogate(name.charAt(i + 1))) {
                    throw new IllegalArgumentException(what + " holds a lone surrogate (an unpaired surrogate) \\u" + Integer.toHexString(c)
                            + " at index " + i + ": it has no UTF-8 form");
                }
                i++;
            }
        }
        boolean onlyDots = name.chars().allMatch(c -> c == '.');
        StringBuilder out = new StringBuilder(name.length() + 8);
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || (c == '.' && !onlyDots);
            if (plain) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
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
