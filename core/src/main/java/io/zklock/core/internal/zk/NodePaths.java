package io.zklock.core.internal.zk;

/**
 * Paths on the hot path, without Curator's {@code ZKPaths} helpers, which validate every path
 * again (a char array per call) although the engine's paths are its lock directory, checked
 * once when the lock was made ({@link io.zklock.core.LockPaths}), and names the server gave.
 */
public final class NodePaths {
    private NodePaths() {
    }

    /** {@return the last segment of {@code path}: what {@code ZKPaths.getNodeFromPath} gives for a valid path} */
    public static String name(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    /** {@return the path of {@code name} in directory {@code dir}: what {@code ZKPaths.makePath} gives for a valid directory and a name} */
    public static String child(String dir, String name) {
        return dir.equals("/") ? "/" + name : dir + "/" + name;
    }

    /** {@return the directory of {@code path}: what {@code ZKPaths.getPathAndNode(path).getPath()} gives for a valid path} */
    public static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    /** {@return the root a node at {@code nodePath} is watched from (TreeWatch): its directory's parent, or its directory under "/"} */
    static String rootOf(String nodePath) {
        int dirEnd = nodePath.lastIndexOf('/');
        int parentEnd = dirEnd > 0 ? nodePath.lastIndexOf('/', dirEnd - 1) : -1;
        return parentEnd > 0 ? nodePath.substring(0, parentEnd) : nodePath.substring(0, Math.max(dirEnd, 1));
    }
}
