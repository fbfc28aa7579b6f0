package io.zklock.core.internal.cache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.zklock.core.spi.queue.Deadline;

/**
 * The lead of a cache of read nodes (the shared-reads WAIT of the package's Overview): one
 * reader that missed the cache queues a node, and the readers that miss meanwhile, and would
 * wait no longer than it, wait for its acquisition to end and try the cache again. Readers of
 * one process that miss together then queue one node, granted to all of them when each one's
 * own would have been (they would have queued right behind it).
 */
final class ReaderLead {
    /**
     * How much later than its lead's a reader's deadline may be for it to join the lead (readers
     * with one timeout that miss together start a moment apart): the escalation bound.
     */
    static final long JOIN_SLACK_NANOS = LeaseCaches.ESCALATION.toNanos();

    private ReaderLead() {
    }

    /**
     * The acquisition through ZooKeeper a cache's readers wait for.
     *
     * @param inFlight completed when it ends
     * @param deadline its deadline
     */
    record Lead(CompletableFuture<Void> inFlight, Deadline deadline) { }

    /** What a reader that missed the cache does. */
    sealed interface Miss {
        /** Queue a node and lead {@code lead}: the others that miss meanwhile wait for it; the caller ends it on {@code cache}. */
        record Lead(ReaderLead.Lead lead, LeaseCache cache) implements Miss { }

        /** Queue a node of its own, not waited for by others. */
        record Alone() implements Miss { }

        /** Wait for the lead's acquisition ({@code inFlight}), then try the cache again. */
        record Join(CompletableFuture<Void> inFlight) implements Miss { }
    }

    /**
     * Makes the calling thread the lead if {@code current} is null, or tells it whose to wait
     * for. A thread joins only a lead that waits about as long as it does (its deadline at most
     * {@link #JOIN_SLACK_NANOS} before the thread's): a lead that times out first leaves its
     * joiners to queue later, behind writers that queued meanwhile; a thread that would outlast
     * the lead by more queues its own node at once. Within the slack, a joiner loses its place
     * only if its own node would have been granted in its last milliseconds.
     */
    static Miss leadOrJoin(Lead current, Deadline deadline, LeaseCache cache) {
        if (current == null) {
            return new Miss.Lead(new Lead(new CompletableFuture<>(), deadline), cache);
        }
        if (current.deadline().remainingNanos() < deadline.remainingNanos() - JOIN_SLACK_NANOS) {
            return new Miss.Alone();
        }
        return new Miss.Join(current.inFlight());
    }

    /**
     * Waits for a lead's acquisition to end until {@code deadline}; its outcome is not looked at.
     *
     * @return true if it ended, false if the deadline passed first
     * @throws InterruptedException if interrupted while waiting
     */
    static boolean await(CompletableFuture<?> inFlight, Deadline deadline) throws InterruptedException {
        try {
            if (deadline.isUnbounded()) {
                inFlight.get();
            } else {
                inFlight.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
            }
            return true;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException e) {
            return inFlight.isDone();
        }
    }
}
