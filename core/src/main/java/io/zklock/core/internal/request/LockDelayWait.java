package io.zklock.core.internal.request;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.zklock.core.internal.Cleanup;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * The lock-delay of one GrantWait (see io.zklock.core.LockDelay). Every listing's Stat counts
 * the directory's unmarked deletions (Cleanup: nodes whose session ended, not yet waited out by
 * a holder); it costs no request. They are seen since the first listing that found the
 * directory as it is now (no child came or went, nothing wrote it since). A grant while any are
 * counted is handed on only once the delay, counted from then (System.nanoTime), has passed: a
 * timer, under the request's lock, ends the wait then, and the holder writes the deletions off
 * (Cleanup.absorb) so that later clients need not wait for them again. Meanwhile the node's data
 * says it waits (one write, for status, as only this failure case pays), the observers hear of
 * it, and the wait may still end otherwise (a give-up, its node lost on a new listing). So a
 * waiter that saw the holder ahead go, and a client that queued only after the node was gone,
 * both wait; a marked release or withdrawal ahead changes nothing. Off, it does nothing.
 */
final class LockDelayWait {
    private static final Logger LOG = LoggerFactory.getLogger(LockDelayWait.class);

    private final LockContext context;
    private final QueuedNode node;
    private final byte[] ownerData;
    private final RequestLock lock;
    private final AcquireTally tally;

    // guarded by lock
    /** The directory's Stat at the last listing (null before the first), its unmarked deletions, and since when seen as they are. */
    private Stat listedStat;
    private Cleanup.Unmarked unmarked = Cleanup.Unmarked.NONE;
    private long unmarkedSinceNanos;
    private ScheduledFuture<?> timer;
    private boolean stopped;

    LockDelayWait(LockContext context, QueuedNode node, byte[] ownerData, RequestLock lock, AcquireTally tally) {
        this.context = context;
        this.node = node;
        this.ownerData = ownerData;
        this.lock = lock;
        this.tally = tally;
    }

    /**
     * Counts the directory's unmarked deletions from a listing's Stat. Without a Stat nothing
     * can be written off, and the delay counts from now.
     */
    void listed(Stat stat) {
        if (!context.lockDelay().isOn()) {
            return;
        }
        Cleanup.Unmarked now = stat == null ? new Cleanup.Unmarked(1, -1) : Cleanup.Unmarked.of(stat);
        boolean same = stat != null && listedStat != null && stat.getCzxid() == listedStat.getCzxid()
                && stat.getCversion() == listedStat.getCversion() && stat.getVersion() == listedStat.getVersion();
        if (!now.any()) {
            unmarkedSinceNanos = 0;
        } else if (unmarkedSinceNanos == 0 || !same) {
            unmarkedSinceNanos = System.nanoTime();
            LOG.debug("{}: {} deletion(s) without a release's mark; a grant waits out the lock-delay", context.path(), now.count());
        }
        unmarked = stat == null ? Cleanup.Unmarked.NONE : now;
        listedStat = stat;
    }

    /**
     * The driver granted the node on {@code sorted}: hands the grant to {@code end} at once, or
     * once the lock-delay has passed. A grant while the delay already runs is ignored.
     */
    void granted(List<LockNode> sorted, Consumer<WaitEnd> end) {
        if (timer != null) {
            return;
        }
        long nanos = unmarkedSinceNanos == 0 ? 0 : unmarkedSinceNanos + context.lockDelay().delay().toNanos() - System.nanoTime();
        Cleanup.Unmarked honoured = unmarked;
        if (nanos <= 0) {
            end.accept(new WaitEnd.Granted(sorted));
            context.cleanup().absorb(honoured);
            return;
        }
        timer = Threads.TIMER.schedule(() -> lock.run(() -> {
            if (!stopped) {                            // else the wait ended meanwhile
                end.accept(new WaitEnd.Granted(sorted));
                context.cleanup().absorb(honoured);    // waited out: later clients need not wait for the same deletions
            }
        }), nanos, TimeUnit.NANOSECONDS);
        LOG.info("{} on {} waits out a lock-delay of {} ms: a node of the lock went without a release", node.node().name(),
                context.path(), TimeUnit.NANOSECONDS.toMillis(nanos));
        context.port().setData(node.path(), NodeData.withLockDelay(ownerData, Instant.now().plusNanos(nanos)), -1);
        tally.lockDelayStarted(context, nanos);
    }

    /** The wait ended (granted, lost, given up): a delay still running is dropped. */
    void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
