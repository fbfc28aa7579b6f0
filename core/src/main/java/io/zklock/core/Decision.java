package io.zklock.core;

import java.util.Objects;

/**
 * What a {@link LockDriver} decides for one node: it holds the lock, or it waits for the
 * deletion of {@code nodeToWatch}.
 *
 * @param getsTheLock whether the node is granted
 * @param nodeToWatch the node whose deletion may change the answer; null exactly when granted
 */
public record Decision(boolean getsTheLock, LockNode nodeToWatch) {

    private static final Decision GRANTED = new Decision(true, null);

    public Decision {
        if (getsTheLock != (nodeToWatch == null)) {
            throw new IllegalArgumentException("a decision either grants or names a node to watch");
        }
    }

    /** The node is granted. */
    public static Decision granted() {
        return GRANTED;
    }

    /** The node waits for {@code node} to go. */
    public static Decision watch(LockNode node) {
        return new Decision(false, Objects.requireNonNull(node, "node"));
    }

    /** The path to watch under {@code directory}, or null when granted. */
    public String pathToWatch(String directory) {
        return getsTheLock ? null : directory + "/" + nodeToWatch.name();
    }
}
