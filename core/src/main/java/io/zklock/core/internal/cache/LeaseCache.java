package io.zklock.core.internal.cache;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.cache.CachedNode.Use;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cached nodes of one client on one lock directory and node kind (see the package's
 * Overview: ADOPT, LOCAL, WAIT, CLOSE, ASKED, FINAL are its steps), their local waits and, for
 * read nodes, the lead. Everything here is guarded by the cache's monitor and is bookkeeping;
 * releases and ZooKeeper calls are made after it is let go. A local wait's future is completed
 * under it: nothing runs on that future, whose thread takes the node after the monitor is let go.
 */
public final class LeaseCache {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseCache.class);
    static final int MAX_LIFE_IN_IDLE_PERIODS = 10;   // idle periods after its grant a node is granted again locally, at most

    private final LeaseCaches registry;
    private final LeaseCaches.Key key;
    private final boolean shared;              // read nodes: any number of local leases on one node at once
    private final List<CachedNode> nodes = new ArrayList<>();                         // guarded by this
    private final Deque<CompletableFuture<CachedNode>> waits = new ArrayDeque<>();    // guarded by this: local waits, oldest first
    private ReaderLead.Lead lead;              // guarded by this: read nodes' acquisition through ZooKeeper in flight

    LeaseCache(LeaseCaches registry, LeaseCaches.Key key, boolean shared) {
        this.registry = registry;
        this.key = key;
        this.shared = shared;
    }

    /** LOCAL: a local grant of a cached node, with no request; null if none can take one now. */
    Lease tryLocal(Duration idle) {
        CachedNode found;
        synchronized (this) {
            found = takeAdmitting();
        }
        if (found == null) {
            return null;
        }
        LOG.trace("{} granted again from the cache", found.base.nodePath());
        return found.newView(idle);
    }

    /** The first node that admits a local lease, now with one more in use; null if none. Under the monitor. */
    private CachedNode takeAdmitting() {
        for (CachedNode n : nodes) {
            if (n.admits(shared)) {
                n.use = new Use.InUse(n.leases() + 1);   // a pending idle timer finds it in use, or idle again since
                return n;
            }
        }
        return null;
    }

    /** ADOPT: keeps a fresh grant in the cache of {@code key}; the grant's own lease if its node is not a caching one. */
    static Lease adopt(LeaseCaches registry, LeaseCaches.Key key, boolean shared, Grant grant, LockContext context,
            Duration idle) {
        ZkLease base = grant.lease();
        LockNode node = LockNode.parse(NodePaths.name(base.nodePath())).orElse(null);
        if (node == null || !node.caches()) {
            return base;
        }
        boolean asked = grant.granting() != null
                && WhoAsks.askedAtGrant(grant.granting(), node, context.maxLeases(), context.driver());
        long keepUntil = System.nanoTime() + MAX_LIFE_IN_IDLE_PERIODS * idle.toNanos();
        CachedNode adopted = registry.adding(key, shared, cache -> cache.add(base, node, context, keepUntil, asked));
        registry.hearCreations(context);
        registry.heardIn(key.serverPath()).forEach(c -> adopted.cache.created(c, null));   // heard on its way into the cache
        adopted.keep();
        return adopted.newView(idle);
    }

    private synchronized CachedNode add(ZkLease base, LockNode node, LockContext context, long keepUntil, boolean asked) {
        CachedNode n = new CachedNode(this, base, node, context, keepUntil, asked);   // asked: its ask is in the node, or on its way
        nodes.add(n);
        return n;
    }

    /** Releases the node of a grant handed to a cancelled future; false if it is not here. */
    boolean abandon(ZkLease base) {
        synchronized (this) {
            CachedNode found = nodes.stream().filter(n -> n.base == base).findFirst().orElse(null);
            if (found == null) {
                return false;
            }
            remove(found);
        }
        registry.dropIfEmpty(key, this);
        base.release();
        return true;
    }

    /** Releases every idle node now, each one in use at its last close (releaseCachedNodes()); returns as close() does. */
    void clear() {
        List<CachedNode> idle = new ArrayList<>();
        synchronized (this) {
            for (CachedNode n : List.copyOf(nodes)) {
                if (n.leases() > 0) {
                    n.use = new Use.Asked(n.leases());
                } else {
                    remove(n);
                    idle.add(n);
                }
            }
            releaseWaitsIfNothingToWaitFor();
        }
        registry.dropIfEmpty(key, this);
        idle.forEach(n -> n.base.close());
    }

    /** CLOSE: one local lease closed; true if it was the last and released the node (see CachedLease). */
    boolean closeOne(CachedNode n, Duration idle) {
        synchronized (this) {
            int left = n.leases() - 1;
            if (left > 0) {
                n.use = n.use instanceof Use.Asked ? new Use.Asked(left) : new Use.InUse(left);
                return false;
            }
            if (n.kept()) {
                CompletableFuture<CachedNode> next = waits.poll();
                if (next != null) {
                    n.use = new Use.InUse(1);  // straight to the oldest local wait, never idle
                    next.complete(n);
                    return false;
                }
                n.use = new Use.Idle(System.nanoTime(), idle.toNanos());
                if (n.timer == null) {         // one timer per idle stretch, not one per local close
                    n.timer = Threads.TIMER.schedule(() -> idleEnded(n), idle.toNanos(), TimeUnit.NANOSECONDS);
                }
                return false;
            }
            remove(n);
            releaseWaitsIfNothingToWaitFor();
        }
        registry.dropIfEmpty(key, this);
        n.base.close();
        return true;
    }

    /** ASKED: a waiter's ask, or an operator's request, reached the node. */
    void askedBack(CachedNode n) {
        synchronized (this) {
            releaseWaits();                    // a waiter queued: every local wait queues behind it
            if (n.use instanceof Use.Gone) {
                return;
            }
            if (n.leases() > 0) {
                n.use = new Use.Asked(n.leases());   // released when its leases close
                return;
            }
            remove(n);
        }
        registry.dropIfEmpty(key, this);
        LOG.debug("cached node {} asked back; releasing it", n.base.nodePath());
        n.base.release();
    }

    /** ASKED, heard from a creation that conflicts with a kept node (see the Overview); {@code directory}: its nodes, or null. */
    void created(LockNode created, List<LockNode> directory) {
        if (!shared && key.maxLeases() > 1 && directory == null) {
            return;                            // permits in a directory not known now: see the Overview (ASKED)
        }
        List<CachedNode> asked;
        synchronized (this) {
            asked = nodes.stream().filter(n -> !(n.use instanceof Use.Asked) && n.askedBy(created, shared, directory)).toList();
        }
        asked.forEach(this::askedBack);        // where heard (the event thread): bookkeeping and a delete sent, no user code
    }

    /** The idle timer: releases a node idle for its whole period; otherwise waits for the rest of it. */
    private void idleEnded(CachedNode n) {
        synchronized (this) {
            n.timer = null;
            if (!(n.use instanceof Use.Idle idle)) {
                return;                        // in use: its next last close starts a timer again
            }
            long left = idle.period() - (System.nanoTime() - idle.since());
            if (left > 0) {
                n.timer = Threads.TIMER.schedule(() -> idleEnded(n), left, TimeUnit.NANOSECONDS);
                return;
            }
            remove(n);
        }
        registry.dropIfEmpty(key, this);
        LOG.debug("cached node {} idle for its period; releasing it", n.base.nodePath());
        n.base.release();
    }

    /** FINAL: the base is LOST or RELEASED; the leases in use hear it through their base. */
    void drop(CachedNode n) {
        synchronized (this) {
            if (!(n.use instanceof Use.Gone)) {
                remove(n);
                releaseWaitsIfNothingToWaitFor();
            }
        }
        registry.dropIfEmpty(key, this);
    }

    private void remove(CachedNode n) {     // out of the cache, for good; under the monitor
        n.use = new Use.Gone();
        n.cancelTimer();
        nodes.remove(n);
    }

    // ---- WAIT: permits ------------------------------------------------------------------------

    /**
     * WAIT, permits: a local wait for a node in use, at most the escalation bound, while the
     * directory check ({@link LocalWait}) finds every permit taken and nobody queued. Null: queue
     * a node as usual (nothing to wait for, a permit may be free, a waiter queued, a node asked
     * back or lost, the bound or the deadline passed). Interrupted: nothing is kept for it.
     */
    Lease awaitLocal(LockContext context, Duration idle, Deadline deadline) throws InterruptedException {
        if (deadline.isSingleAttempt() || deadline.hasExpired()) {
            return null;
        }
        CompletableFuture<CachedNode> handed = new CompletableFuture<>();
        CachedNode now;
        synchronized (this) {
            now = takeAdmitting();
            if (now == null && !anyToWaitFor()) {
                return null;
            }
            if (now == null) {
                waits.add(handed);
            }
        }
        CachedNode n = now != null ? now : awaitHandOver(handed, context, idle, deadline);
        if (n == null) {
            return null;
        }
        LOG.trace("{} handed over locally", n.base.nodePath());
        return n.newView(idle);
    }

    /** Waits for a node handed over at a close, with the directory check running; null if none came. */
    private CachedNode awaitHandOver(CompletableFuture<CachedNode> handed, LockContext context, Duration idle, Deadline deadline)
            throws InterruptedException {
        try {
            return LocalWait.await(new LocalWait(context, () -> giveUp(handed)), handed, registry.escalationNanos(), deadline,
                    () -> giveUp(handed), late -> closeOne(late, idle));
        } finally {
            registry.dropIfEmpty(key, this);
        }
    }

    /** The wait goes to ZooKeeper, unless it was handed a node already. */
    private void giveUp(CompletableFuture<CachedNode> handed) {
        synchronized (this) {
            if (waits.remove(handed)) {
                handed.complete(null);
            }
        }
    }

    /** Whether a local wait has a node to wait for: one in use that may be kept. Under the monitor. */
    private boolean anyToWaitFor() {
        for (CachedNode n : nodes) {
            if (n.use instanceof Use.InUse && n.kept()) {
                return true;
            }
        }
        return false;
    }

    /** Local waits go to ZooKeeper once no node is left to wait for. Under the monitor. */
    private void releaseWaitsIfNothingToWaitFor() {
        if (!anyToWaitFor()) {
            releaseWaits();
        }
    }

    /** Every local wait goes to ZooKeeper. Under the monitor. */
    private void releaseWaits() {
        waits.forEach(w -> w.complete(null));
        waits.clear();
    }

    // ---- WAIT: read nodes -----------------------------------------------------------------------

    /** See {@link ReaderLead#leadOrJoin}; under the registry's lock of this cache's key. */
    synchronized ReaderLead.Miss leadOrJoin(Deadline deadline) {
        ReaderLead.Miss miss = ReaderLead.leadOrJoin(lead, deadline, this);
        if (miss instanceof ReaderLead.Miss.Lead l) {
            lead = l.lead();
        }
        return miss;
    }

    /** The leading acquisition ended (granted and adopted, timed out or failed): the others try again. */
    void leadEnded() {
        ReaderLead.Lead ended;
        synchronized (this) {
            ended = lead;
            lead = null;
        }
        if (ended != null) {
            ended.inFlight().complete(null);
        }
        registry.dropIfEmpty(key, this);
    }

    /** {@return whether the cache holds nothing: no node, no local wait, no lead} */
    synchronized boolean isEmpty() {
        return nodes.isEmpty() && waits.isEmpty() && lead == null;
    }

    /** Threads waiting in the process on this cache now (local waits, the lead's dependents): what a probe reads. */
    synchronized int localWaits() {
        return waits.size() + (lead == null ? 0 : lead.inFlight().getNumberOfDependents());
    }
}
