package io.zklock.core.internal.request;

import java.util.List;

import io.zklock.core.spi.queue.LockNode;

/** How a wait for one node's grant ended, when it did not fail: for the node's owner to act on. */
sealed interface WaitEnd {

    /**
     * The driver granted the node on these children (in queue order).
     *
     * @param delayEndsNanos when a lock-delay ends ({@code System.nanoTime()}), if a holder ahead
     *        ended without a clean release; 0 if none applies
     */
    record Granted(List<LockNode> sorted, long delayEndsNanos) implements WaitEnd {
        Granted(List<LockNode> sorted) {
            this(sorted, 0);
        }
    }

    /**
     * The node is gone, or belongs to a session that ended: it will never be granted. A single
     * lock queues again with a new node; a multi-lock must make all its nodes again together.
     */
    record NodeLost(String why) implements WaitEnd {
    }
}
