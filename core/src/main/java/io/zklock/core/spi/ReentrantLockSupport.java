package io.zklock.core.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.internal.lease.HoldLease;
import io.zklock.core.internal.lease.MultiLockHolds;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.spi.queue.Deadline;

/*
 * Overview.
 *
 * Per-thread re-entry on top of an engine. The first blocking acquisition by a thread takes a
 * node from the engine and records a Hold {base lease, count} under the thread's owner id (its
 * thread id; no Thread object is retained. HotSpot never reuses thread ids, and a stale entry
 * could only be found by a new thread if its base lease were still open, which the owner
 * thread would have had to leak). A further blocking
 * acquisition by the same thread, while the base lease is neither LOST nor RELEASED, only
 * increments the count and returns a new view of the same node. Each view closes once; the
 * close that brings the count to zero releases the base lease, and that view then reports the
 * base lease's state, which stays HELD or SUSPENDED until the node is really gone (a close that
 * cannot reach ZooKeeper is retried by the base lease). A view closed while the count stays
 * positive is RELEASED at once: the thread still holds the node through the others. Views may
 * be closed on any thread, because a view points at its Hold, not at the thread. The views hear
 * the base lease through one listener of their Hold (HoldLease.Base), which a view closed
 * RELEASED leaves: a hold re-entered any number of times adds one listener to its base.
 *
 * The count only ever rises from a positive value (CAS loop), so a re-entry that races the
 * last close of another view takes a fresh node instead of reviving a released one.
 *
 * A hold whose base lease is SUSPENDED or LOST is put to the ReentryPolicy chosen at
 * construction: re-enter it, refuse (the acquisition fails and the hold stays as it is), or
 * forget it and queue a new node. The recipes' policy re-enters a SUSPENDED hold and queues
 * anew behind a LOST one; a lock with a stricter contract (Spring Integration's registry) picks
 * its own.
 *
 * A node the thread holds through a multi-lock is not a Hold (the multi-lock deletes it with
 * its other nodes in one transaction), so it cannot be re-entered; a blocking acquisition by
 * that thread would queue behind it forever and is refused instead (MultiLockHolds).
 */
/**
 * A reentrant {@link DistributedLock} over a {@link LockEngine}: the shared implementation of
 * the reentrant recipes. Blocking acquisitions re-enter; {@link #acquireAsync} never does.
 * A blocking acquisition by a thread that holds this lock's directory through a multi-lock is
 * refused with an {@link IllegalStateException} (it would wait for the thread's own node).
 * The lease whose close releases the node stays HELD or SUSPENDED until the node is gone;
 * one closed while the thread still holds the node through other leases is RELEASED at once.
 */
public final class ReentrantLockSupport implements DistributedLock, LockComponent {
    /**
     * What a blocking acquisition does when the current thread holds the lock through a lease
     * that is {@code SUSPENDED} or {@code LOST} (a {@code HELD} hold is always re-entered, a
     * {@code RELEASED} one never).
     */
    @FunctionalInterface
    public interface ReentryPolicy {
        /** What the acquisition does with the thread's hold. */
        enum Choice {
            /** Re-enter: a new lease on the hold's node. */
            REENTER,
            /** Fail the acquisition (empty, or {@link IllegalStateException} when unbounded); the hold stays as it is. */
            REFUSE,
            /** Forget the hold (its leases stay open) and queue a new node, as if the thread held nothing. */
            QUEUE_NEW
        }

        /** The recipes' policy: a SUSPENDED hold is re-entered at once, a LOST one forgotten for a new node. */
        ReentryPolicy RECIPES = (held, deadline) ->
                held.state() == LeaseState.LOST ? Choice.QUEUE_NEW : Choice.REENTER;

        /**
         * Decides, on the acquiring thread; it may wait within {@code deadline} (for the lease to
         * settle, say), and throw to refuse in its own words.
         *
         * @param held the hold's lease, to read or wait on; never to close
         * @param deadline the acquisition's deadline
         * @return what the acquisition does
         * @throws InterruptedException if interrupted while waiting
         */
        Choice decide(Lease held, Deadline deadline) throws InterruptedException;
    }

    private static final AtomicIntegerFieldUpdater<Hold> COUNT = AtomicIntegerFieldUpdater.newUpdater(Hold.class, "count");

    private final LockEngine engine;
    private final ReentryPolicy policy;
    private final ThreadHolds<Hold> holds = new ThreadHolds<>(hold -> hold.owner);
    private final Lock view = new JucLockView(this);

    public ReentrantLockSupport(LockEngine engine) {
        this(engine, ReentryPolicy.RECIPES);
    }

    /**
     * @param engine the engine that queues the nodes
     * @param policy what a re-entry does with a hold whose lease is SUSPENDED or LOST
     * @throws IllegalArgumentException if either is null
     */
    public ReentrantLockSupport(LockEngine engine, ReentryPolicy policy) {
        if (engine == null) {
            throw new IllegalArgumentException("engine is null");
        }
        if (policy == null) {
            throw new IllegalArgumentException("re-entry policy is null");
        }
        this.engine = engine;
        this.policy = policy;
    }

    @Override
    public LockEngine engine() {
        return engine;
    }

    @Override
    public String path() {
        return engine.path();
    }

    @Override
    public Lease acquire() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Reentry again = reenterOrRefuse(Deadline.unbounded());
        if (again.refused()) {
            throw new IllegalStateException("the current thread holds " + engine.path()
                    + " through a lease that is " + again.state() + ", and its re-entry was refused");
        }
        return again.lease() != null ? again.lease() : hold(engine.acquire());
    }

    @Override
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        return acquire(Deadline.after(timeout));
    }

    /** As {@link #tryAcquire(Duration)}, before {@code deadline}: re-enters, or acquires. */
    public Optional<Lease> acquire(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Reentry again = reenterOrRefuse(deadline);
        if (again.refused()) {
            if (deadline.isUnbounded()) {
                throw new IllegalStateException("the current thread holds " + engine.path()
                        + " through a lease that is " + again.state() + ", and its re-entry was refused");
            }
            return Optional.empty();
        }
        return again.lease() != null ? Optional.of(again.lease()) : engine.acquire(deadline).map(this::hold);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return engine.acquireAsync(timeout);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        Hold hold = holds.get(Owners.current());
        return hold != null && hold.count > 0 && hold.lease().state() == LeaseState.HELD;
    }

    /** The current thread's hold count: 0 when it does not hold the lock. */
    public int holdCount() {
        Hold hold = holds.get(Owners.current());
        return hold == null || ZkLease.isFinal(hold.lease().state()) ? 0 : Math.max(0, hold.count);
    }

    @Override
    public Lock asLock() {
        return view;
    }

    /**
     * Re-entry only: if the current thread holds the lock through a blocking acquisition whose
     * lease is neither LOST nor RELEASED, a new lease on the same node, as {@link #acquire()}
     * would return; otherwise empty. Never talks to ZooKeeper and never creates a node.
     *
     * @throws IllegalStateException if the thread holds this lock's directory through a
     *         multi-lock instead: any blocking acquisition by it would wait for itself
     */
    @Override
    public Optional<Lease> reenterIfHeld() {
        try {
            return Optional.ofNullable(reenterOrRefuse(Deadline.after(Duration.ZERO)).lease());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();         // a policy asked for no waiting does not wait
            return Optional.empty();
        }
    }

    /**
     * A re-entry's result: a lease, a refusal (the hold's state), or neither (acquire anew).
     */
    private record Reentry(Lease lease, LeaseState state) {
        static final Reentry NONE = new Reentry(null, null);

        boolean refused() {
            return lease == null && state != null;
        }
    }

    /** Re-enters, refuses, or (NONE) finds nothing to re-enter; refuses a lock held through a multi-lock. */
    private Reentry reenterOrRefuse(Deadline deadline) throws InterruptedException {
        Reentry again = reenter(deadline);
        if (again == Reentry.NONE) {
            MultiLockHolds.refuseIfHeldThroughMultiLock(Owners.current(), engine.context());
        }
        return again;
    }

    /**
     * Makes {@code base}, a lease the caller acquired for the current thread through another
     * engine on the same directory (a read lock's downgrade does), the current thread's hold:
     * later blocking acquisitions by the thread re-enter it, and it is closed when the last of
     * its leases is.
     *
     * @return the first lease of the hold
     * @throws IllegalArgumentException if {@code base} is null or its node is not in this lock's directory
     * @throws IllegalStateException if the current thread already holds this lock
     */
    public Lease adopt(Lease base) {
        if (base == null) {
            throw new IllegalArgumentException("lease is null");
        }
        if (!base.nodePath().startsWith(engine.path() + "/")) {
            throw new IllegalArgumentException("lease node " + base.nodePath() + " is not in " + engine.path());
        }
        if (holdCount() > 0) {
            throw new IllegalStateException("the current thread already holds " + engine.path()
                    + "; it cannot adopt " + base.nodePath());
        }
        return hold(base);
    }

    private Reentry reenter(Deadline deadline) throws InterruptedException {
        Long owner = Owners.current();
        Hold hold = holds.get(owner);
        if (hold == null) {
            return Reentry.NONE;
        }
        LeaseState state = hold.lease().state();
        if (state != LeaseState.HELD && state != LeaseState.RELEASED) {
            switch (policy.decide(hold.lease(), deadline)) {
                case REENTER -> { }
                case REFUSE -> {
                    return new Reentry(null, hold.lease().state());
                }
                case QUEUE_NEW -> {
                    holds.remove(hold);
                    return Reentry.NONE;
                }
            }
        }
        if (hold.lease().state() == LeaseState.RELEASED) {
            holds.remove(hold);
            return Reentry.NONE;
        }
        int n;
        do {
            n = hold.count;
            if (n <= 0) {
                return Reentry.NONE;
            }
        } while (!COUNT.compareAndSet(hold, n, n + 1));
        return new Reentry(hold.newView(), null);
    }

    private Lease hold(Lease base) {
        Hold hold = new Hold(Owners.current(), base);
        holds.put(hold);
        return hold.newView();
    }


    /** One thread's hold, and the base its views share (one listener on the base for every view); kept small. */
    private final class Hold extends HoldLease.Base {
        final Long owner;
        volatile int count = 1;                // through COUNT

        Hold(Long owner, Lease base) {
            super(base);
            this.owner = owner;
        }

        /** @return whether this was the last open view, whose close released the base lease */
        @Override
        protected boolean closeOne() {
            if (COUNT.decrementAndGet(this) != 0) {
                return false;
            }
            holds.remove(this);
            lease().close();
            return true;
        }
    }
}
