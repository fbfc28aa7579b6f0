package io.zklock.core.internal.cache;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.internal.LockContext;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.RecipeDescriptor;

/**
 * How an engine hands out leases, picked once by its constructor: {@link Uncached} (every lease
 * is a grant through ZooKeeper), or one of the {@link CachedLeases} (one-at-a-time nodes,
 * permits, shared reads; see the package's Overview). No call tests whether caching is on.
 */
public sealed interface LeaseStrategy permits LeaseStrategy.Uncached, CachedLeases {
    /**
     * The strategy of an engine on {@code context}.
     *
     * @param context the engine's context: of caching nodes when {@code caching} is on
     * @param recipe the engine's recipe: whether its nodes are shared locally, and its maxLeases
     * @param caching whether, and how long, a node is kept after its last local lease
     * @return the strategy
     */
    static LeaseStrategy of(LockContext context, RecipeDescriptor recipe, LeaseCaching caching) {
        if (!caching.isOn()) {
            return new Uncached();
        }
        if (recipe.sharesLocally()) {
            return new CachedLeases.SharedReads(context, caching);
        }
        return recipe.maxLeases() > 1 ? new CachedLeases.Permits(context, caching) : new CachedLeases.OneAtATime(context, caching);
    }

    /**
     * Whether the holders of the recipe's cached nodes let them go on hearing a conflicting
     * node created behind them (ASKED in the package's Overview): a read lock's and a lock of
     * one holder at a time; not a semaphore's (a creation does not tell that every permit is
     * taken).
     */
    static boolean hearsCreations(RecipeDescriptor recipe) {
        return recipe.sharesLocally() || recipe.maxLeases() == 1;
    }

    /**
     * Acquires before {@code deadline}, locally or through {@code queue}.
     *
     * @return the lease; empty when the deadline passes first
     * @throws InterruptedException if interrupted while waiting
     */
    Optional<Lease> acquire(Deadline deadline, ZkQueue queue) throws InterruptedException;

    /** {@return the caller's future of a lease, granted locally at once or through {@code queue}} */
    CompletableFuture<Lease> acquireAsync(Deadline deadline, ZkQueue queue);

    /** {@return whether, and how long, nodes are kept after use} */
    LeaseCaching caching();

    /** Releases the nodes the client keeps cached for this strategy's lock: idle ones now, the others at their last close. */
    void releaseCachedNodes();

    /** No cache: every lease is a grant through ZooKeeper, and its close deletes its node. */
    record Uncached() implements LeaseStrategy {
        @Override
        public Optional<Lease> acquire(Deadline deadline, ZkQueue queue) throws InterruptedException {
            return queue.await(deadline).map(Grant::lease);
        }

        @Override
        public CompletableFuture<Lease> acquireAsync(Deadline deadline, ZkQueue queue) {
            return queue.async(deadline, Grant::lease, grant -> grant.lease().release());
        }

        @Override
        public LeaseCaching caching() {
            return LeaseCaching.off();
        }

        @Override
        public void releaseCachedNodes() {
        }
    }
}
