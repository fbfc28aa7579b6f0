package io.zklock.core.internal.lease;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.Lease;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * The cached nodes of one client on one lock directory and node kind (one cache, shared by
 * every lock object and thread of the client there; SessionMonitor.shared). Each entry is a
 * node granted through ZooKeeper (its ZkLease, the base) that the process may keep after its
 * last local lease closes:
 *   ADOPT     a fresh grant of a caching node (LockNode.caches) becomes an entry with one lease
 *             in use; its revocation watch is started at once (one getData with a watch), so a
 *             waiter's request reaches it whatever its state. If the listing that granted it
 *             shows a conflicting waiter behind it (ZkLease.waiterBehindAtGrant), the entry
 *             starts ASKED: that waiter's ask may be in the node already, and the watch's first
 *             read is a round trip away, while readers that joined the lead try the cache at
 *             once; granting them would put them ahead of a writer that queued before them.
 *   LOCAL     tryLocal(): an entry whose base is HELD and not being released (by anyone: a
 *             cancelled asynchronous grant releases the base itself), not asked back, younger
 *             than MAX_LIFE_IN_IDLE_PERIODS idle periods, and with room (a read node any number
 *             of local leases at once; a mutex node or a semaphore permit one) is granted again
 *             with no request: a new view of the base (HoldLease), same token. The age limit
 *             bounds what a waiter that cannot ask (its ask refused, e.g. by a per-client ACL)
 *             waits for a node its holder keeps re-granting.
 *   WAIT      a thread that finds no entry to take:
 *             - permits (awaitLocal; one-at-a-time nodes of a lock of several holders, the
 *               semaphore's; a mutex's thread queues a node, so the mutex's grants follow
 *               the order its waiters started in): while an entry is in use, not asked and kept,
 *               the thread waits for its close (a local wait, oldest first) instead of queueing
 *               a node, for at most the escalation bound (LockContext.escalateMs: as long as a
 *               waiter of another client waits before it asks every cached permit ahead; then
 *               the thread queues a node, which asks by need, so a permit another client keeps
 *               idle never idles longer while it waits), and as long as every permit of the
 *               lock is taken and nobody is queued: LocalWait lists the directory
 *               with a watch, and any other count of nodes than maxLeases, any change of the
 *               children, or any failure sends the thread to ZooKeeper (a free permit never
 *               sits idle while it waits, and a permit is never handed over locally ahead of
 *               a waiter queued before; a node queued by another client comes with its ask).
 *               An ask of any entry, a loss or the end of the last entry to wait for sends
 *               every local wait to ZooKeeper, where it queues behind the asker (FIFO across
 *               processes); a waiter never waits longer than the leases in use at that moment.
 *             - shared nodes (leadOrJoin): one thread queues a node, the others that miss
 *               meanwhile (and wait no longer than it) wait for its acquisition to end and
 *               try the cache again, so readers
 *               of one process that miss together (an ask sent them to ZooKeeper) queue one
 *               node, granted to all of them when each one's own would have been.
 *   CLOSE     the last local lease of an entry closes: asked back, the cache cleared, or the
 *             node not HELD (cut off: a lease is never RELEASED while its node may live on, and
 *             a node whose session may be ending is not worth keeping): the base is released
 *             (the view follows it until the node is gone); otherwise, with a local wait, the
 *             entry goes to the oldest one (still in use: no idle moment, no request); else the
 *             entry goes idle and a timer releases it after the idle period.
 *   ASKED     a waiter's ask-back (AskBack), or an operator's revocation request, marks the
 *             entry: nothing more is granted on it; idle, it is released at once. The entry
 *             hears it at the data event of the write (RevocationWatch): any write into a
 *             cached node means "let it go", so the delete does not wait for the read of the
 *             node. Only the operator's request reaches the leases' own revocation handlers.
 *   FINAL     the base LOST (session loss, forced deletion) or RELEASED: the entry is dropped;
 *             the views in use hear LOST through their base.
 * Serialisation: the entries, each entry's count, flag and timer, the local waits and the
 * leading acquisition are guarded by the cache's monitor; releases and ZooKeeper calls are
 * made after it is let go. A local wait's future is completed under it (a hand-over at a close,
 * a give-up, a release of the waits, a timeout's removal): nothing runs on that future, whose
 * thread takes the view after the monitor is let go.
 */
/** The lease cache of one client and lock directory; see the comment above. */
public final class LeaseCache {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseCache.class);
    /** How many idle periods after its grant a node is granted again locally at most. */
    static final int MAX_LIFE_IN_IDLE_PERIODS = 10;

    /**
     * How much later than its lead's a reader's deadline may be for it to join the lead (readers
     * with one timeout that miss together start a moment apart): the escalation bound.
     */
    static final long JOIN_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(LockContext.ESCALATE_MS);

    private static final String KEY = "lease-cache\n";

    private final AtomicInteger waitingLocally = new AtomicInteger();   // threads in awaitLocal's wait or awaitLead

    private final boolean sharedLocally;
    private final boolean waitsLocally;        // one-at-a-time nodes of a lock of several holders (permits)
    private final List<Entry> entries = new ArrayList<>();    // guarded by this
    private final Deque<CompletableFuture<Entry>> waiters = new ArrayDeque<>();   // guarded by this: local waits, oldest first
    private CompletableFuture<Void> leading;   // guarded by this: a shared cache's acquisition through ZooKeeper in flight
    private Deadline leadingDeadline;          // guarded by this: that acquisition's deadline

    private LeaseCache(boolean sharedLocally, int maxLeases) {
        this.sharedLocally = sharedLocally;
        this.waitsLocally = !sharedLocally && maxLeases > 1;
    }

    /**
     * The cache of {@code context}'s client, directory and node kind.
     *
     * @param context a caching context
     * @return the one cache every lock object of that client, directory and kind shares
     */
    public static LeaseCache of(LockContext context) {
        String key = KEY + context.port().serverPath(context.path()) + "\n" + context.namePrefix()
                + "\n" + context.maxLeases();
        return context.monitor().shared(key, () -> new LeaseCache(context.sharedLocally(), context.maxLeases()));
    }

    /**
     * A local re-grant of a cached node, with no request.
     *
     * @param idle how long the node is kept once this lease and the others on it close
     * @return a new lease on a cached node, or null if none can take one now
     */
    public Lease tryLocal(Duration idle) {
        Entry found = null;
        synchronized (this) {
            for (Entry e : entries) {
                if (e.admits()) {
                    e.inUse++;                 // a pending idle timer finds it in use, or idle again since
                    found = e;
                    break;
                }
            }
        }
        if (found == null) {
            return null;
        }
        Entry e = found;
        LOG.trace("{} granted again from the cache", e.base.nodePath());
        return e.views.newView(() -> closeOne(e, idle));
    }

    /**
     * Keeps a fresh grant in the cache, if its node is a caching one.
     *
     * @param base the lease ZooKeeper granted
     * @param idle how long the node is kept once its leases close
     * @return the lease to hand out: a view of the cached node, or {@code base} itself when
     *         its node cannot be cached (made by a plain create)
     */
    public Lease adopt(ZkLease base, Duration idle) {
        boolean caches = LockNode.parse(ZKPaths.getNodeFromPath(base.nodePath())).map(LockNode::caches).orElse(false);
        if (!caches) {
            return base;
        }
        Entry e = new Entry(base, System.nanoTime() + MAX_LIFE_IN_IDLE_PERIODS * idle.toNanos());
        e.askedBack = base.waiterBehindAtGrant();  // its ask is in the node already, or on its way: nothing more on it
        synchronized (this) {
            entries.add(e);
        }
        base.addListener((lease, state) -> {
            if (ZkLease.isFinal(state)) {
                drop(e);
            }
        });
        base.lossIsQuietWhile(() -> e.inUse == 0);       // read without the monitor: it only picks a log level
        base.onAskedBack(() -> askedBack(e));            // a waiter's ask
        base.onRevocationRequested(lease -> askedBack(e));  // an operator's request
        return e.views.newView(() -> closeOne(e, idle));
    }

    /**
     * Releases every idle cached node now, and each one in use when its leases close: what a
     * lock object's close() does. Returns once each idle node's delete was answered (as a
     * lease's close() does: at most a moment, never on a ZooKeeper thread or while cut off).
     */
    public void clear() {
        List<Entry> idle = new ArrayList<>();
        synchronized (this) {
            for (Entry e : List.copyOf(entries)) {
                e.askedBack = true;
                if (e.inUse == 0) {
                    e.cancelTimer();
                    entries.remove(e);
                    idle.add(e);
                }
            }
            releaseWaitsIfNothingToWaitFor();
        }
        idle.forEach(e -> e.base.close());
    }

    /**
     * For a cache of nodes shared locally (read nodes): makes the calling thread the one whose
     * acquisition through ZooKeeper the others wait for, or tells it whose to wait for. Readers
     * of one process that miss the cache at once then queue one node, not one each: the node
     * is granted to all of them (readers hold together), at the time each one's own node
     * would have been granted, as it would have queued right behind it. A thread joins only a
     * lead that waits about as long as it does (its deadline at most {@link #JOIN_SLACK_NANOS}
     * before the thread's): a lead that times out first leaves its joiners to queue later,
     * behind writers that queued meanwhile; a thread that would outlast the lead by more
     * queues its own node at once ({@link Miss#ALONE}). Within the slack, a joiner loses its
     * place only if its own node would have been granted in its last milliseconds.
     *
     * @param deadline the calling thread's deadline
     * @return {@link Miss#LEAD} if the caller now leads (it calls {@link #leadEnded()} once its
     *         acquisition ended, after its grant is adopted); a {@link Miss.Join} with the
     *         acquisition in flight, completed when it ends (the caller then tries the cache
     *         again); or {@link Miss#ALONE}
     */
    public synchronized Miss leadOrJoin(Deadline deadline) {
        if (leading == null) {
            leading = new CompletableFuture<>();
            leadingDeadline = deadline;
            return Miss.LEAD;
        }
        if (leadingDeadline.remainingNanos() < deadline.remainingNanos() - JOIN_SLACK_NANOS) {
            return Miss.ALONE;
        }
        return new Miss.Join(leading);
    }

    /** What a reader that missed a shared cache does: see {@link #leadOrJoin(Deadline)}. */
    public sealed interface Miss {
        /** Queue a node and lead: the others that miss meanwhile wait for it. */
        Miss LEAD = new Lead();
        /** Queue a node of its own, not waited for by others. */
        Miss ALONE = new Alone();

        /** See {@link #LEAD}. */
        record Lead() implements Miss { }

        /** See {@link #ALONE}. */
        record Alone() implements Miss { }

        /**
         * Wait for the lead's acquisition, then try the cache again.
         *
         * @param inFlight completed when the lead's acquisition ends
         */
        record Join(CompletableFuture<Void> inFlight) implements Miss { }
    }

    /** The leading acquisition ended (granted and adopted, timed out or failed): the others try again. */
    public void leadEnded() {
        CompletableFuture<Void> ended;
        synchronized (this) {
            ended = leading;
            leading = null;
            leadingDeadline = null;
        }
        if (ended != null) {
            ended.complete(null);
        }
    }

    /**
     * Waits for a lead's acquisition ({@link Miss.Join#inFlight()}) to end until
     * {@code deadline}; its outcome is not looked at.
     *
     * @param inFlight what to wait for
     * @param deadline when to stop waiting
     * @return true if it completed, false if the deadline passed first
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitLead(CompletableFuture<?> inFlight, Deadline deadline) throws InterruptedException {
        waitingLocally.incrementAndGet();
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
        } finally {
            waitingLocally.decrementAndGet();
        }
    }

    /**
     * Not API (for tests that count the requests waiting on a lock): how many threads wait, on
     * {@code client}'s caches of the lock directory {@code path} (any kind), for a node their
     * client holds or is queueing instead of queueing one of their own: a thread waiting for its
     * client's busy permit while every permit is taken, a reader waiting for the read node
     * another reader of its client queued. Each waits as a queued node would. A thread that
     * moves on to queue a node leaves this count before its node is in the directory.
     *
     * @param client a Curator client
     * @param path a lock directory, as the client names it
     * @return the number of such threads now; 0 if the client has no lock
     */
    public static int threadsWaitingLocally(CuratorFramework client, String path) {
        SessionMonitor monitor = SessionMonitor.existing(client);
        if (monitor == null) {
            return 0;
        }
        int n = 0;
        for (Object cache : monitor.sharedStartingWith(KEY + ZKPaths.fixForNamespace(client.getNamespace(), path) + "\n")) {
            n += ((LeaseCache) cache).waitingLocally.get();
        }
        return n;
    }

    /** {@return whether one node serves any number of local leases at once (read nodes)} */
    public boolean sharedLocally() {
        return sharedLocally;
    }

    /** {@return how many nodes the cache holds, in use or idle} */
    public synchronized int size() {
        return entries.size();
    }

    /** One view closed; true if it was the last and released the node (see HoldLease). */
    private boolean closeOne(Entry e, Duration idle) {
        synchronized (this) {
            if (--e.inUse > 0) {
                return false;
            }
            if (!e.askedBack && entries.contains(e) && e.base.isHeldAndKept() && e.young()) {
                CompletableFuture<Entry> next = waiters.poll();
                if (next != null) {
                    e.inUse = 1;               // straight to the oldest local wait, never idle
                    next.complete(e);
                    return false;
                }
                e.idleSince = System.nanoTime();
                e.idle = idle.toNanos();
                if (e.timer == null) {         // one timer per idle stretch, not one per local close
                    e.timer = Threads.TIMER.schedule(() -> idleEnded(e), e.idle, TimeUnit.NANOSECONDS);
                }
                return false;
            }
            entries.remove(e);
            releaseWaitsIfNothingToWaitFor();
        }
        e.base.close();
        return true;
    }

    /**
     * A local wait for an entry in use (see LocalWait): for a cache of one-at-a-time nodes
     * whose every entry is in use, none asked back, and while every permit of the lock is taken
     * and nobody is queued (the directory check), the thread waits for a local lease to close and takes its node
     * over, with no request but the check's, for at most the context's escalation bound. Null
     * means "queue a node as usual": nothing to wait for, a permit may be free, a waiter queued,
     * an entry asked back or lost, the bound passed (a permit another client keeps idle is then
     * asked back by the node queued), or the deadline passed (the caller's own deadline check
     * then times out).
     *
     * @param context the caching context (for the directory check)
     * @param idle how long the node is kept once this lease and the others on it close
     * @param deadline when to stop waiting
     * @return a lease on a cached node, or null
     * @throws InterruptedException if interrupted while waiting (nothing is kept for it)
     */
    public Lease awaitLocal(LockContext context, Duration idle, Deadline deadline) throws InterruptedException {
        if (!waitsLocally || deadline.isSingleAttempt() || deadline.hasExpired()) {
            return null;
        }
        CompletableFuture<Entry> handed = new CompletableFuture<>();
        Entry now = null;
        synchronized (this) {
            for (Entry e : entries) {
                if (e.admits()) {
                    e.inUse++;
                    now = e;
                    break;
                }
            }
            if (now == null) {
                if (!anyToWaitFor()) {
                    return null;
                }
                waiters.add(handed);
            }
        }
        if (now != null) {
            Entry e = now;
            return e.views.newView(() -> closeOne(e, idle));
        }
        LocalWait check = new LocalWait(context, () -> giveUp(handed));
        Entry e;
        waitingLocally.incrementAndGet();
        try {
            check.start();
            // then ZooKeeper, whose node asks by need: a permit another client keeps idle idles no longer
            long bound = TimeUnit.MILLISECONDS.toNanos(context.escalateMs());
            e = handed.get(deadline.isUnbounded() ? bound : Math.min(bound, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException | RuntimeException t) {
            synchronized (this) {
                if (waiters.remove(handed)) {
                    handed.complete(null);
                }
            }
            Entry late = handed.getNow(null);
            if (t instanceof InterruptedException || t instanceof RuntimeException) {
                if (late != null) {
                    closeOne(late, idle);      // handed over as we were interrupted (or the check failed): give it on
                }
                if (t instanceof InterruptedException ie) {
                    throw ie;
                }
                throw (RuntimeException) t;
            }
            e = late;
        } catch (ExecutionException impossible) {
            throw new IllegalStateException(impossible);
        } finally {
            waitingLocally.decrementAndGet();
            check.end();
        }
        if (e == null) {
            return null;
        }
        Entry granted = e;
        LOG.trace("{} handed over locally", granted.base.nodePath());
        return granted.views.newView(() -> closeOne(granted, idle));
    }

    private void giveUp(CompletableFuture<Entry> handed) {
        synchronized (this) {
            if (waiters.remove(handed)) {
                handed.complete(null);
            }
        }
    }

    /** Whether a local wait has an entry to wait for: one in use that may be kept. Under the monitor. */
    private boolean anyToWaitFor() {
        for (Entry e : entries) {
            if (e.inUse > 0 && !e.askedBack && e.base.isHeldAndKept() && e.young()) {
                return true;
            }
        }
        return false;
    }

    /** Local waits go to ZooKeeper once no entry is left to wait for. Under the monitor. */
    private void releaseWaitsIfNothingToWaitFor() {
        if (!anyToWaitFor()) {
            releaseWaits();
        }
    }

    /** Every local wait goes to ZooKeeper. Under the monitor. */
    private void releaseWaits() {
        waiters.forEach(w -> w.complete(null));
        waiters.clear();
    }

    private void askedBack(Entry e) {
        synchronized (this) {
            e.askedBack = true;
            releaseWaits();                    // a waiter queued: every local wait queues behind it
            if (e.inUse > 0 || !entries.remove(e)) {
                return;                        // released when its leases close, or already gone
            }
            e.cancelTimer();
        }
        LOG.debug("cached node {} asked back; releasing it", e.base.nodePath());
        e.base.release();
    }

    /** The idle timer: releases a node idle for its whole period; otherwise waits for the rest of it. */
    private void idleEnded(Entry e) {
        synchronized (this) {
            e.timer = null;
            if (e.inUse > 0 || e.askedBack || !entries.contains(e)) {
                return;                        // in use: its next last close starts a timer again
            }
            long left = e.idle - (System.nanoTime() - e.idleSince);
            if (left > 0) {
                e.timer = Threads.TIMER.schedule(() -> idleEnded(e), left, TimeUnit.NANOSECONDS);
                return;
            }
            entries.remove(e);
        }
        LOG.debug("cached node {} idle for its period; releasing it", e.base.nodePath());
        e.base.release();
    }

    private void drop(Entry e) {
        synchronized (this) {
            entries.remove(e);
            e.cancelTimer();
            releaseWaitsIfNothingToWaitFor();
        }
    }

    /** One cached node. Fields guarded by the cache's monitor. */
    private final class Entry {
        final ZkLease base;
        final HoldLease.Base views;
        final long keepUntil;                  // System.nanoTime() past which no local grant is made
        volatile int inUse = 1;                // volatile for the base lease's log level only
        boolean askedBack;
        ScheduledFuture<?> timer;              // pending idle timer, if any
        long idleSince;                        // System.nanoTime() of the last close that left it idle
        long idle;                             // the idle period of that close, in nanoseconds

        Entry(ZkLease base, long keepUntil) {
            this.base = base;
            this.keepUntil = keepUntil;
            this.views = new HoldLease.Base(base, true);
        }

        boolean admits() {
            return !askedBack && base.isHeldAndKept() && (sharedLocally || inUse == 0) && young();
        }

        boolean young() {
            return System.nanoTime() - keepUntil < 0;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }
}
