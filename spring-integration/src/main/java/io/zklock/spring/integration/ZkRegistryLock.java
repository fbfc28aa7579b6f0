package io.zklock.spring.integration;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LeaseState;
import io.zklock.core.LockException;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.ReentrantLockSupport.ReentryPolicy;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.support.locks.DistributedLock;

/*
 * Overview.
 *
 * One ZkMutex per key; re-entry is the mutex's (one node per thread, a count, a Lease per
 * acquisition), with this class's ReentryPolicy for a hold whose lease is not HELD: wait,
 * within the caller's time, while it is SUSPENDED; re-enter once HELD again; otherwise refuse
 * (a LOST lease is never re-entered, where the mutex would quietly queue a fresh node), and an
 * unbounded lock() refuses with an exception. The refusal leaves the mutex's hold as it is.
 *
 * This class keeps, per thread (keyed by thread id, no Thread retained), a Hold: the stack of
 * Leases its acquisitions got (unlock() closes the top one), and what the mutex does not know:
 *   - the TTL: an expiry scheduled on the registry's timer, which ends the Hold and closes its
 *     leases (on another thread: a close may wait for ZooKeeper, and the timer serves every
 *     lock). The timer and a renewal agree through a generation number read and written under
 *     the Hold's monitor, which is never held while waiting for ZooKeeper; so do the expiry and
 *     an acquisition that pushes a lease (one that finds the Hold ended starts a new one);
 *   - the end of a lost Hold: a re-entrant tryLock refused on a LOST lease drops the Hold,
 *     closing its leases, so the thread's next attempt queues afresh.
 *
 * Users and retirement. `users` counts the threads of this process that hold the lock or are
 * acquiring it: an acquisition counts itself in first and out when it ends without a Hold; a
 * Hold keeps its count until it ends. expireUnusedOlderThan retires an instance only from 0 to
 * -1 (a CAS, inside the registry map's computeIfPresent, so the retirement and the removal are
 * one step), so an instance in use is never dropped, and obtain() never hands out a retired
 * one (found while its removal is under way, it waits for the removal and makes a new
 * instance). An acquisition that finds the instance retired goes to the key's live instance
 * (registry.obtain), and so do unlock(), isHeldByCurrentThread() and fencingToken(): a thread
 * that obtained the instance before it was retired still uses one lock per key.
 */
/**
 * A Spring Integration {@link DistributedLock} for one key of a {@link ZkLockRegistry}, on a
 * zklock {@link ZkMutex}: re-entrant per thread, fair across clients, waits on a ZooKeeper
 * watch.
 *
 * <p><b>Time to live.</b> {@link #lock(Duration)} and {@link #tryLock(Duration, Duration)}
 * take the lock for at most {@code ttl}: when it runs out the node is deleted, even if the
 * thread never unlocks, and the thread's later {@link #unlock()} throws
 * {@link IllegalMonitorStateException}. The TTL is measured on this JVM's monotonic clock; a
 * re-entrant acquisition keeps the TTL of the first one; {@link ZkLockRegistry#renewLock}
 * starts it again. The plain {@link java.util.concurrent.locks.Lock} methods take no TTL: the
 * lock is held until unlocked or until the ZooKeeper session is lost.
 *
 * <p><b>Session loss.</b> Once the lease is lost with its session, another client may hold the
 * lock. A re-entrant {@code tryLock} by the thread then returns {@code false} and forgets the
 * lost hold (so {@code LockRegistryLeaderInitiator} revokes its leadership and can lead again
 * later); a re-entrant {@code lock} throws {@link IllegalStateException}; {@code unlock}
 * throws {@link IllegalStateException} after releasing the thread's hold. While the
 * connection is down (the lease {@code SUSPENDED}), a re-entrant acquisition waits, within its
 * time, for the session to come back or to be lost.
 *
 * <p>Guard the resource itself with {@link #fencingToken()}: a holder paused past its session
 * timeout believes it holds the lock until it hears otherwise.
 */
public final class ZkRegistryLock implements DistributedLock {
    private static final Logger LOG = LoggerFactory.getLogger(ZkRegistryLock.class);

    private final String key;
    private final ZkMutex mutex;
    private final ZkLockRegistry registry;
    private final Map<Long, Hold> holds = new ConcurrentHashMap<>();
    private final List<LockLostListener> lostListeners = new CopyOnWriteArrayList<>();
    /** Threads holding or acquiring this lock; -1 once the registry retired it (see the Overview). */
    private final AtomicInteger users = new AtomicInteger();
    private volatile long lastUsedNanos = System.nanoTime();

    ZkRegistryLock(String key, String path, CuratorFramework client, ZkLockRegistry registry) {
        this.key = key;
        this.mutex = new ZkMutex(client, path, LeaseCaching.off(), this::reentry);
        this.registry = registry;
    }

    /** {@return the key this lock was obtained for} */
    public String key() {
        return key;
    }

    /** {@return the lock's ZooKeeper path: the registry's root and the key's node name} */
    public String path() {
        return mutex.path();
    }

    /** {@return whether the current thread holds this lock with a lease that is still valid} */
    public boolean isHeldByCurrentThread() {
        if (retired()) {
            ZkRegistryLock live = registry.live(key);
            return live != null && live != this && live.isHeldByCurrentThread();
        }
        Hold hold = holds.get(owner());
        return hold != null && !hold.ended() && mutex.isHeldByCurrentThread();
    }

    /**
     * The fencing token of the current thread's hold: the czxid of its ZooKeeper node, larger
     * for every later holder of the lock, so a resource that refuses a token lower than the
     * last one it accepted refuses a holder whose lease was lost.
     *
     * @return the token
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     */
    public long fencingToken() {
        if (retired()) {
            ZkRegistryLock live = registry.live(key);
            if (live == null || live == this) {
                throw notHeld();
            }
            return live.fencingToken();
        }
        Hold hold = holds.get(owner());
        Lease top = hold == null || hold.ended() ? null : hold.top();
        if (top == null) {
            throw notHeld();
        }
        return top.fencingToken();
    }

    /**
     * Acquires the lock, waiting as long as it takes. An interrupt while waiting withdraws the
     * request and queues it again (at the back of the queue); the interrupt status is set again
     * on return.
     *
     * @throws IllegalStateException if the thread holds this lock with a lease that was lost
     * @throws LockException if ZooKeeper refuses the request or the client is closed
     */
    @Override
    public void lock() {
        lockUninterruptibly(null);
    }

    /**
     * Acquires the lock for at most {@code ttl}, waiting as long as it takes (see
     * {@link #lock()}); after {@code ttl} the lock is released even if the thread never unlocks.
     *
     * @param ttl how long the lock is held at most, positive
     * @throws IllegalArgumentException if {@code ttl} is null, zero or negative
     */
    @Override
    public void lock(Duration ttl) {
        lockUninterruptibly(ZkLockRegistry.checkTtl(ttl));
    }

    /**
     * Acquires the lock, waiting on a ZooKeeper watch (no polling) as long as it takes. On an
     * interrupt the request's node is deleted and {@link InterruptedException} is thrown.
     *
     * @throws InterruptedException if the thread is interrupted on entry or while waiting
     * @throws IllegalStateException if the thread holds this lock with a lease that was lost
     * @throws LockException if ZooKeeper refuses the request or the client is closed
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(null, null);
    }

    /**
     * One attempt: the lock is taken if it is free now, or re-entered if the thread holds it
     * with a valid lease. An attempt that does not re-enter costs the mutex's one attempt: the
     * creation of a node and a listing of the lock's directory, and the node's deletion when
     * the lock is not free; it never waits for another holder.
     *
     * @return whether the lock was taken; {@code false} also when the thread's own lease was
     *         lost (the thread's hold is then dropped) or is suspended
     * @throws LockException if ZooKeeper refuses the request or the client is closed
     */
    @Override
    public boolean tryLock() {
        boolean interrupted = Thread.interrupted();     // as in java.util.concurrent: one attempt, interrupted or not
        try {
            return acquire(Duration.ZERO, null);
        } catch (InterruptedException e) {
            interrupted = true;
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Acquires the lock if it is granted within the given time, riding out connection loss
     * within that time. A time of zero or less is one attempt.
     *
     * @return whether the lock was taken; {@code false} when the time ran out, or when the
     *         thread's own lease was lost (its hold is then dropped) or stayed suspended
     * @throws InterruptedException if the thread is interrupted on entry or while waiting
     * @throws LockException if ZooKeeper refuses the request or the client is closed
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("time unit is null");
        }
        return acquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
    }

    /**
     * As {@link #tryLock(long, TimeUnit)}, taking the lock for at most {@code ttl}.
     *
     * @param waitTime how long to wait; zero or less is one attempt
     * @param ttl how long the lock is held at most, positive
     * @return whether the lock was taken
     * @throws InterruptedException if the thread is interrupted on entry or while waiting
     * @throws IllegalArgumentException if {@code waitTime} is null, or {@code ttl} null, zero
     *         or negative
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (waitTime == null) {
            throw new IllegalArgumentException("wait time is null");
        }
        Duration checked = ZkLockRegistry.checkTtl(ttl);
        return acquire(waitTime.isNegative() ? Duration.ZERO : waitTime, checked);
    }

    /**
     * Releases one acquisition by the current thread; the last one deletes the node.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     * @throws ConcurrentModificationException if the thread's lock was lost before this unlock:
     *         its time to live ran out, or its lease was lost (session expiry, or its node
     *         deleted by another client); the cause says which. Another client may have held
     *         the lock meanwhile. The acquisition is released all the same; each of the thread's
     *         acquisitions still open throws so at its unlock (unless the thread locked again
     *         after a TTL ran out, which starts a new hold)
     */
    @Override
    public void unlock() {
        if (retired()) {
            ZkRegistryLock live = registry.live(key);
            if (live == null || live == this) {
                throw notHeld();
            }
            live.unlock();
            return;
        }
        Hold hold = holds.get(owner());
        Lease top = hold == null ? null : hold.pop();
        if (top == null) {
            throw notHeld();
        }
        boolean lost = top.state() == LeaseState.LOST;
        top.close();
        lastUsedNanos = System.nanoTime();
        LockException expired = hold.expired();
        if (expired != null) {
            throw new ConcurrentModificationException("lock '" + key + "' was released before this unlock: "
                    + expired.getMessage(), expired);
        }
        if (lost) {
            LockException cause = new LockException("the lease of " + top.nodePath() + " (fencing token "
                    + top.fencingToken() + ") was lost: its ZooKeeper session expired or its node was deleted");
            throw new ConcurrentModificationException("lock '" + key + "' was lost while this thread held it:"
                    + " another client may have held it since", cause);
        }
    }

    /**
     * Adds a listener that hears this lock's lease being lost while a thread holds it (see
     * {@link LockLostListener}); the registry's listeners hear it too.
     *
     * @param listener the listener
     * @throws IllegalArgumentException if it is null
     */
    public void addLockLostListener(LockLostListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        lostListeners.add(listener);
    }

    /** Not supported: a condition would need a distributed wait set. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a ZooKeeper lock has no conditions");
    }

    /** Starts the TTL of the current thread's hold again: {@code ttl}, or the hold's own if null. */
    void renew(Duration ttl) {
        Hold hold = holds.get(owner());
        Lease top = hold == null || hold.ended() ? null : hold.top();
        if (top == null) {
            throw new IllegalStateException("cannot renew lock '" + key + "': the current thread does not hold it");
        }
        if (top.state() == LeaseState.LOST) {
            throw new IllegalStateException("cannot renew lock '" + key
                    + "': its lease was lost with its ZooKeeper session");
        }
        hold.renew(ttl);
    }

    /**
     * Retires this instance if no thread of this process holds or is acquiring it and nobody
     * used it since {@code nanos}; called by the registry inside the map's computeIfPresent.
     *
     * @return whether it is retired now (the registry then forgets it)
     */
    boolean retireIfUnused(long nanos) {
        return lastUsedNanos - nanos <= 0 && retireIfIdle();
    }

    /** Retires this instance if no thread of this process holds or is acquiring it; under the registry map's monitor. */
    boolean retireIfIdle() {
        return users.compareAndSet(0, -1);
    }

    /** {@return whether the registry retired this instance} */
    boolean retired() {
        return users.get() < 0;
    }

    /** Counts the current thread in as a user; false if the instance was retired. */
    private boolean enter() {
        while (true) {
            int now = users.get();
            if (now < 0) {
                return false;
            }
            if (users.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    void touch() {
        lastUsedNanos = System.nanoTime();
    }

    private void lockUninterruptibly(Duration ttl) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    acquire(null, ttl);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Re-enters or acquires through the mutex; {@code wait} null means as long as it takes
     * (and a lost hold is an error rather than a false).
     */
    private boolean acquire(Duration wait, Duration ttl) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (!enter()) {
            return registry.obtain(key).acquire(wait, ttl);     // retired: the key's live instance
        }
        boolean counted = false;                                // whether a Hold took over this count
        try {
            touch();
            long owner = owner();
            Hold hold = liveHold(owner);
            Lease lease = wait == null ? mutex.acquire() : mutex.tryAcquire(wait).orElse(null);
            if (lease == null) {
                if (hold != null) {
                    dropIfLost(owner, hold);
                }
                return false;
            }
            if (hold != null && hold.push(lease)) {
                return true;
            }
            counted = true;
            startHold(owner, lease, ttl);                       // a first acquisition, or one that raced the TTL
            return true;
        } finally {
            if (!counted) {
                users.decrementAndGet();
            }
            touch();
        }
    }

    /** The thread's hold; null if it has none, or its TTL ran out (then it is forgotten). */
    private Hold liveHold(long owner) {
        Hold hold = holds.get(owner);
        if (hold != null && hold.ended()) {
            holds.remove(owner, hold);
            return null;
        }
        return hold;
    }

    /** A new hold of {@code lease}, which takes over the thread's count, with its TTL started. */
    private void startHold(long owner, Lease lease, Duration ttl) {
        Hold fresh = new Hold(owner, lease);
        holds.put(owner, fresh);
        if (ttl != null) {
            try {
                fresh.renew(ttl);
            } catch (RuntimeException e) {
                holds.remove(owner, fresh);
                fresh.end();
                throw e;
            }
        }
    }

    /** A re-entrant tryLock was refused: a hold whose lease was lost is dropped, so the next attempt queues afresh. */
    private void dropIfLost(long owner, Hold hold) {
        Lease top = hold.top();
        if (top != null && top.state() == LeaseState.LOST) {
            LOG.info("lock '{}': this thread's lease was lost; the re-entrant tryLock fails and the hold is dropped", key);
            holds.remove(owner, hold);
            hold.end();
        }
    }

    /**
     * The mutex asks this when the current thread holds the lock through a lease that is not
     * HELD: wait while it is SUSPENDED, within the caller's time; re-enter only once it is HELD.
     */
    private ReentryPolicy.Choice reentry(Lease held, Deadline deadline) throws InterruptedException {
        Hold hold = holds.get(owner());
        LeaseState state = hold == null ? held.state() : hold.settled(held, deadline);
        if (state == LeaseState.HELD) {
            return ReentryPolicy.Choice.REENTER;
        }
        if (deadline.isUnbounded()) {
            throw lostError();
        }
        if (state == LeaseState.SUSPENDED) {
            LOG.info("lock '{}': this thread's lease is still SUSPENDED; the re-entrant tryLock fails", key);
        }
        return ReentryPolicy.Choice.REFUSE;
    }

    private IllegalMonitorStateException notHeld() {
        return new IllegalMonitorStateException("the current thread does not hold lock '" + key
                + "' (never locked, already unlocked, or its time to live ran out)");
    }

    private IllegalStateException lostError() {
        return new IllegalStateException("lock '" + key + "' was lost with its ZooKeeper session while this"
                + " thread held it: another client may have held it since");
    }

    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; ids are never reused by HotSpot
    private static long owner() {
        return Thread.currentThread().getId();
    }

    @Override
    public String toString() {
        return "ZkRegistryLock[" + key + " at " + path() + "]";
    }

    /**
     * One thread's hold on the lock: the leases of its acquisitions (the owner thread pushes
     * and pops, the TTL timer takes them all) and its TTL.
     */
    private final class Hold {
        final long owner;
        private volatile CompletableFuture<Void> changed = new CompletableFuture<>();
        // guarded by this
        private final Deque<Lease> leases = new ArrayDeque<>();
        private boolean ended;
        private LockException expired;         // why its TTL ended it; its leases stay for the unlocks they owe
        private Duration ttl;
        private ScheduledFuture<?> expiry;
        private long generation;

        Hold(long owner, Lease first) {
            this.owner = owner;
            leases.push(first);
            first.addListener((l, state) -> {
                CompletableFuture<Void> told = changed;
                changed = new CompletableFuture<>();
                told.complete(null);
                if (state == LeaseState.LOST) {
                    lost(l);
                }
            });
            if (registry.watchesNodes()) {
                first.onRevocationRequested(l -> LOG.info("lock '{}': revocation of {} requested; a registry lock"
                        + " is held until unlocked", key, l.nodePath()));
            }
        }

        private void lost(Lease lease) {
            LOG.warn("lock '{}': its lease {} was lost while a thread held it", key, lease.nodePath());
            for (LockLostListener listener : lostListeners) {
                try {
                    listener.lockLost(ZkRegistryLock.this, lease.nodePath(), lease.fencingToken());
                } catch (RuntimeException e) {
                    LOG.warn("lock-lost listener {} threw; ignored", listener, e);
                }
            }
            registry.lockLost(ZkRegistryLock.this, lease.nodePath(), lease.fencingToken());
        }

        synchronized boolean ended() {
            return ended;
        }

        synchronized LockException expired() {
            return expired;
        }

        synchronized Lease top() {
            return leases.peek();
        }

        /** Adds a re-entry's lease; false if the hold ended meanwhile (the lease then starts a new hold). */
        synchronized boolean push(Lease lease) {
            if (ended) {
                return false;
            }
            leases.push(lease);
            return true;
        }

        /**
         * Takes the latest lease off; the last one ends the hold (or, after its TTL ran out,
         * lets go of it). Null if there is none.
         */
        Lease pop() {
            Lease top;
            boolean counted;
            synchronized (this) {
                if (leases.isEmpty() || ended && expired == null) {
                    return null;
                }
                top = leases.pop();
                if (!leases.isEmpty()) {
                    return top;
                }
                counted = !ended;
                ended = true;
                stopTimer();
            }
            holds.remove(owner, this);
            if (counted) {
                users.decrementAndGet();
            }
            return top;
        }

        /** The lease's state once it is not SUSPENDED, or still SUSPENDED when the deadline passed. */
        LeaseState settled(Lease lease, Deadline deadline) throws InterruptedException {
            while (true) {
                CompletableFuture<Void> next = changed;
                LeaseState state = lease.state();
                if (state != LeaseState.SUSPENDED) {
                    return state;
                }
                try {
                    if (deadline.isUnbounded()) {
                        next.get();
                    } else {
                        long left = deadline.remainingNanos();
                        if (left <= 0) {
                            return state;
                        }
                        next.get(left, TimeUnit.NANOSECONDS);
                    }
                } catch (TimeoutException e) {
                    return lease.state();
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e);   // never completed exceptionally
                }
            }
        }

        /** (Re)starts the TTL: {@code next}, or the hold's own if null (nothing then if it has none). */
        synchronized void renew(Duration next) {
            if (ended) {
                throw new IllegalStateException("lock '" + key + "' is no longer held: nothing to renew");
            }
            Duration ttl = next != null ? next : this.ttl;
            if (ttl == null) {
                return;
            }
            stopTimer();
            long mine = ++generation;
            this.ttl = ttl;
            expiry = registry.timer().schedule(() -> expire(mine), ttl.toNanos(), TimeUnit.NANOSECONDS);
        }

        private void stopTimer() {
            if (expiry != null) {
                expiry.cancel(false);
            }
        }

        private void expire(long scheduled) {
            Duration ran;
            List<Lease> closing;
            synchronized (this) {
                if (scheduled != generation || ended) {
                    return;
                }
                ended = true;
                ran = ttl;
                expired = new LockException("its time to live of " + ran + " ran out");
                closing = new ArrayList<>(leases);
            }
            users.decrementAndGet();
            LOG.info("lock '{}': its time to live of {} ran out before it was unlocked; released", key, ran);
            ZkLockRegistry.RELEASES.execute(() -> closing.forEach(Lease::close));   // never on the timer thread
        }

        /** Ends the hold if nothing else did: stops its timer and closes its leases. */
        void end() {
            List<Lease> closing;
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
                stopTimer();
                closing = new ArrayList<>(leases);
                leases.clear();
            }
            users.decrementAndGet();
            closing.forEach(Lease::close);
        }
    }
}
