package io.zklock.core.internal.request;

import java.util.List;

import io.zklock.core.spi.queue.LockNode;

/** How a wait for one node's grant ended, when it did not fail: for the node's owner to act on. */
sealed interface WaitEnd {

    /** The driver granted the node on these children (in queue order). */
    record Granted(List<LockNode> sorted) implements WaitEnd {
        /** {@return the node right ahead of {@code ours} in these children; null if none} */
        LockNode predecessorOf(LockNode ours) {
            int index = sorted.indexOf(ours);
            return index > 0 ? sorted.get(index - 1) : null;
        }
    }

    /**
     * The node is gone, or belongs to a session that ended: it will never be granted. A single
     * lock queues again with a new node; a multi-lock must make all its nodes again together.
     */
    record NodeLost(String why) implements WaitEnd {
    }
}
