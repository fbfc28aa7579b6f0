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
}
