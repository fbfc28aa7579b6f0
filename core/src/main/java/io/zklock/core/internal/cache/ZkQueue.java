package io.zklock.core.internal.cache;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import io.zklock.core.Lease;
import io.zklock.core.spi.queue.Deadline;

/**
 * How an engine obtains a grant through ZooKeeper (a request that queues a node): what a
 * {@link LeaseStrategy} falls back on when nothing is granted locally.
 */
public interface ZkQueue {
    /**
     * Queues a node and blocks for its grant.
     *
     * @param deadline when to give up
     * @return the grant; empty if the deadline passed first
     * @throws InterruptedException if interrupted while waiting (the request is withdrawn)
     */
    Optional<Grant> await(Deadline deadline) throws InterruptedException;

    /**
     * Queues a node; the caller's future of its grant, as {@code handOut} makes it a lease.
     *
     * @param deadline when to give up
     * @param handOut makes the lease handed out of a grant
     * @param abandon takes back a grant handed out to a future that was cancelled meanwhile
     * @return the caller's future
     */
    CompletableFuture<Lease> async(Deadline deadline, Function<Grant, Lease> handOut, Consumer<Grant> abandon);
}
