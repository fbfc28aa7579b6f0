package io.zklock.core.internal.request;

import java.util.List;

import io.zklock.core.internal.Cleanup;
import io.zklock.core.spi.queue.LockNode;

/** How a wait for one node's grant ended, when it did not fail: for the node's owner to act on. */
sealed interface WaitEnd {

    /**
     * The driver granted the node on these children (in queue order).
     *
     * @param delayEndsNanos when a lock-delay ends ({@code System.nanoTime()}), if a node of the
     *        directory went without a release's mark; 0 if none applies
     * @param unmarked the unmarked deletions the delay waits out, for the holder to write off
     */
    record Granted(List<LockNode> sorted, long delayEndsNanos, Cleanup.Unmarked unmarked) implements WaitEnd {
        Granted(List<LockNode> sorted) {
            this(sorted, 0, Cleanup.Unmarked.NONE);
        }
    }

    /**
     * The node is gone, or belongs to a session that ended: it will never be granted. A single
     * lock queues again with a new node; a multi-lock must make all its nodes again together.
     */
    record NodeLost(String why) implements WaitEnd {
    }
}
