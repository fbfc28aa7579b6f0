package io.zklock.core.internal.cache;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.TreeWatch;
import io.zklock.core.spi.queue.Deadline;

/**
 * The strategies of an engine whose nodes are cached: each tries a local grant first (LOCAL),
 * then waits inside the process its own way (WAIT), then queues a node whose grant the cache
 * adopts (ADOPT). See the package's Overview.
 */
abstract sealed class CachedLeases implements LeaseStrategy {
    final LockContext context;
    private final LeaseCaching caching;
    final Duration idle;
    final LeaseCaches registry;
    final LeaseCaches.Key key;
    private final boolean shared;

    CachedLeases(LockContext context, LeaseCaching caching, boolean shared) {
        this.context = context;
        this.caching = caching;
        this.idle = caching.idle();
        this.registry = LeaseCaches.of(context.monitor());
        this.key = LeaseCaches.Key.of(context);
        this.shared = shared;
    }

    @Override
    public final LeaseCaching caching() {
        return caching;
    }

    @Override
    public final CompletableFuture<Lease> acquireAsync(Deadline deadline, ZkQueue queue) {
        Lease local = local();
        return local != null ? CompletableFuture.completedFuture(local) : queue.async(deadline, this::adopt, this::abandon);
    }

    @Override
    public final void releaseCachedNodes() {
        LeaseCache cache = registry.get(key);
        if (cache != null) {
            cache.clear();
        }
    }

    /** A local grant of a cached node, with no request; null if there is none to take. */
    final Lease local() {
        LeaseCache cache = registry.get(key);
        return cache == null ? null : cache.tryLocal(idle);
    }

    /** A grant through ZooKeeper, adopted by the cache. */
    final Optional<Lease> viaZooKeeper(Deadline deadline, ZkQueue queue) throws InterruptedException {
        return queue.await(deadline).map(this::adopt);
    }

    private Lease adopt(Grant grant) {
        return LeaseCache.adopt(registry, key, shared, grant, context, idle);
    }

    private void abandon(Grant grant) {
        LeaseCache cache = registry.get(key);
        if (cache == null || !cache.abandon(grant.lease())) {
            grant.lease().release();
        }
    }

    /** A mutex's nodes: one local lease at a time; a thread that finds the node busy queues a node, in order. */
    static final class OneAtATime extends CachedLeases {
        OneAtATime(LockContext context, LeaseCaching caching) {
            super(context, caching, false);
        }

        @Override
        public Optional<Lease> acquire(Deadline deadline, ZkQueue queue) throws InterruptedException {
            Lease local = local();
            return local != null ? Optional.of(local) : viaZooKeeper(deadline, queue);
        }
    }

    /** A semaphore's permits: a thread whose permits are all busy may wait for one locally (a local wait). */
    static final class Permits extends CachedLeases {
        Permits(LockContext context, LeaseCaching caching) {
            super(context, caching, false);
        }

        @Override
        public Optional<Lease> acquire(Deadline deadline, ZkQueue queue) throws InterruptedException {
            Lease local = local();
            if (local == null && !deadline.isSingleAttempt()) {
                boolean notFull = notFull();   // and the directory is counted from now on (see ASKED)
                LeaseCache cache = registry.get(key);
                local = cache == null ? null : notFull ? cache.tryLocal(idle) : cache.awaitLocal(context, idle, deadline);
                if (local == null && deadline.hasExpired()) {
                    return Optional.empty();
                }
            }
            return local != null ? Optional.of(local) : viaZooKeeper(deadline, queue);
        }

        /**
         * Whether the client's tree watch tells the lock directory holds other than
         * {@code maxLeases} nodes (a permit free, or a waiter queued): the local wait's listing
         * would only send the thread to ZooKeeper, so it goes there with no listing. Unknown
         * (no tree watch, cut off, nothing listed under it yet): false, and the wait lists.
         */
        private boolean notFull() {
            TreeWatch tree = TreeWatch.existing(context.monitor());
            int nodes = tree == null ? -1 : tree.hearing().lockNodes(key.serverPath());
            return nodes >= 0 && nodes != context.maxLeases();
        }
    }

    /** A read lock's nodes: any number of local leases on one node; readers that miss together queue one node (the lead). */
    static final class SharedReads extends CachedLeases {
        SharedReads(LockContext context, LeaseCaching caching) {
            super(context, caching, true);
        }

        @Override
        public Optional<Lease> acquire(Deadline deadline, ZkQueue queue) throws InterruptedException {
            Lease local = local();
            if (local != null || deadline.isSingleAttempt()) {
                return local != null ? Optional.of(local) : viaZooKeeper(deadline, queue);
            }
            while (true) {
                ReaderLead.Miss miss = registry.adding(key, true, cache -> cache.leadOrJoin(deadline));
                if (miss instanceof ReaderLead.Miss.Lead lead) {
                    try {
                        return viaZooKeeper(deadline, queue);
                    } finally {
                        lead.cache().leadEnded();
                    }
                }
                if (miss instanceof ReaderLead.Miss.Join join) {
                    if (!ReaderLead.await(join.inFlight(), deadline)) {
                        return Optional.empty();
                    }
                    local = local();
                    if (local != null || deadline.hasExpired()) {
                        return Optional.ofNullable(local);   // the lead ended at our deadline: lead nothing
                    }
                } else {
                    return viaZooKeeper(deadline, queue);    // Alone
                }
            }
        }
    }
}
