package io.zklock.core.internal.cache;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;

import io.zklock.core.LeaseState;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.lease.Keeper;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * One cached node of a {@link LeaseCache}: the lease ZooKeeper granted (its base), and its use
 * as one state value ({@link Use}), guarded by the cache's monitor. It is the base's
 * {@link Keeper} and its one listener, which drops the node from the cache once the base is
 * final and passes the base's news to the node's {@link CachedLease views} that listen.
 */
final class CachedNode implements Keeper {
    /** How the node is used: its one state value. */
    sealed interface Use {
        /** {@code leases} local leases in use (at least one); more may be granted. */
        record InUse(int leases) implements Use { }

        /** No lease in use since {@code since} ({@code System.nanoTime()}), kept for {@code period} nanoseconds. */
        record Idle(long since, long period) implements Use { }

        /** Asked back (or its cache cleared) with {@code leases} in use: nothing more is granted; released at the last close. */
        record Asked(int leases) implements Use { }

        /** Out of the cache: released by it, or its base final. */
        record Gone() implements Use { }
    }

    final LeaseCache cache;
    final ZkLease base;
    final LockNode node;                       // the base's node, parsed
    private final LockContext context;
    private final long keepUntil;              // System.nanoTime() past which no local grant is made
    private final List<CachedLease> views = new CopyOnWriteArrayList<>();   // those that listen, in order
    volatile Use use;                          // guarded by the cache's monitor; volatile for idle()
    ScheduledFuture<?> timer;                  // guarded by the cache's monitor: the idle timer, one per idle stretch

    CachedNode(LeaseCache cache, ZkLease base, LockNode node, LockContext context, long keepUntil, boolean asked) {
        this.cache = cache;
        this.base = base;
        this.node = node;
        this.context = context;
        this.keepUntil = keepUntil;
        this.use = asked ? new Use.Asked(1) : new Use.InUse(1);
    }

    /** Starts listening to the base and keeping it; once, after the node is in its cache. */
    void keep() {
        base.addListener((lease, state) -> {
            if (ZkLease.isFinal(state)) {
                cache.drop(this);
            }
            views.forEach(v -> v.hear(state));
        });
        base.keptBy(this);
    }

    /** {@return a new local lease on the node} */
    CachedLease newView(Duration idle) {
        return new CachedLease(this, idle);
    }

    /** {@return how many local leases are in use} */
    int leases() {
        return use instanceof Use.InUse u ? u.leases() : use instanceof Use.Asked a ? a.leases() : 0;
    }

    /** {@return whether the base holds its node, which was not asked back and is young enough to be granted again} */
    boolean kept() {
        return (use instanceof Use.InUse || use instanceof Use.Idle) && base.state() == LeaseState.HELD
                && System.nanoTime() - keepUntil < 0;
    }

    /** {@return whether a local lease can be granted on it now: kept, and idle or (read nodes) any number at once} */
    boolean admits(boolean shared) {
        return kept() && (use instanceof Use.Idle || shared);
    }

    /** {@return whether {@code created}, a node created in the directory, queues behind this one and conflicts with it} */
    boolean conflictsWith(LockNode created) {
        return LockNode.QUEUE_ORDER.compare(node, created) < 0 && context.driver().conflicts(node, created);
    }

    /**
     * {@return whether {@code created}, a node created in the directory, asks this one back: of a
     * read node or a one-at-a-time node, a conflicting node behind it; of a permit, the one waiter past the permits (at
     * index maxLeases: behind a longer queue the waiters' own asks, made from their listings,
     * name fewer nodes than the creations would) whose ask names it by the rule of ask (WhoAsks,
     * before any escalation) in {@code directory}, the directory's nodes in queue order as the
     * client's tree watch knows them}
     */
    boolean askedBy(LockNode created, boolean shared, List<LockNode> directory) {
        if (shared || context.maxLeases() == 1) {
            return conflictsWith(created);
        }
        return directory != null && directory.indexOf(created) == context.maxLeases()
                && WhoAsks.askedBy(directory, created, context.maxLeases(), context.driver(), false).contains(node);
    }

    void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    void listen(CachedLease view) {
        views.add(view);
    }

    void unlisten(CachedLease view) {
        views.remove(view);
    }

    /** A guard that always fails (NoNode): a check of a child of the node, which cannot exist under an ephemeral node. */
    CuratorOp failingGuard() {
        try {
            return context.client().transactionOp().check().forPath(base.nodePath() + "/released");
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the guard of " + base.nodePath() + ": " + e, e);
        }
    }

    @Override
    public boolean idle() {
        return leases() == 0;
    }

    @Override
    public void askedBack() {
        cache.askedBack(this);
    }
}
