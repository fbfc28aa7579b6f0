package io.zklock.core.internal.request;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.observe.LockObserver;
import io.zklock.core.observe.LockObservers;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;

/**
 * What one request tells the {@link LockObservers} when it ends: its start, the ZooKeeper calls
 * its stages issue, the queue they find, and its outcome, reported once, before the caller can
 * see the result. A multi-lock's waits count into the multi-lock's tally through a
 * {@link #component()} view, which reports nothing of its own. {@link #NONE}, the tally of a
 * request that began with no observer installed, does nothing at all.
 */
public final class AcquireTally {
    /** The tally of an unobserved request. */
    static final AcquireTally NONE = new AcquireTally(null, null);

    private final String path;
    private final String mode;
    private final long startNanos;
    private final AtomicInteger requests;
    private final AtomicInteger ahead;
    private final AtomicBoolean reported;
    private final boolean reports;

    private AcquireTally(String path, String mode) {
        this.path = path;
        this.mode = mode;
        boolean active = path != null;
        this.startNanos = active ? System.nanoTime() : 0;
        this.requests = active ? new AtomicInteger() : null;
        this.ahead = active ? new AtomicInteger() : null;
        this.reported = active ? new AtomicBoolean() : null;
        this.reports = active;
    }

    private AcquireTally(AcquireTally whole) {
        this.path = whole.path;
        this.mode = whole.mode;
        this.startNanos = whole.startNanos;
        this.requests = whole.requests;
        this.ahead = whole.ahead;
        this.reported = whole.reported;
        this.reports = false;
    }

    /** The tally of a request on {@code context} starting now: {@link #NONE} if nobody observes. */
    public static AcquireTally begin(LockContext context) {
        return LockObservers.active() ? new AcquireTally(context.path(), LockObservers.modeOf(context.kind())) : NONE;
    }

    /** The tally of a multi-lock request over {@code contexts} starting now. */
    public static AcquireTally beginMulti(List<LockContext> contexts) {
        return LockObservers.active()
                ? new AcquireTally(String.join(",", contexts.stream().map(LockContext::path).toList()), LockObserver.MULTI)
                : NONE;
    }

    /** The tally a multi-lock's wait for one of its nodes counts into: this one's counts, and no report. */
    AcquireTally component() {
        return this == NONE ? NONE : new AcquireTally(this);
    }

    /** {@code count} ZooKeeper calls issued for the request. */
    void issued(int count) {
        if (this != NONE) {
            requests.addAndGet(count);
        }
    }

    /** One ZooKeeper call issued for the request. */
    void issued() {
        issued(1);
    }

    /** The request decided on {@code ours} among {@code sorted}: the nodes ahead of it count. */
    void decided(List<LockNode> sorted, LockNode ours) {
        if (this != NONE) {
            int index = sorted.indexOf(ours);
            ahead.accumulateAndGet(index, Math::max);
        }
    }

    /** Checks that {@code client} can serve {@code what} before the request begins; a refusal is reported as FAILED. */
    public void checkBeforeStart(CuratorFramework client, Supplier<String> what) {
        try {
            LockContext.checkStarted(client, what);
        } catch (RuntimeException e) {
            ended(e);
            throw e;
        }
    }

    /** The request was granted. */
    void granted() {
        report(LockObserver.Outcome.GRANTED);
    }

    /** The request ended without a grant, for {@code reason}. */
    void ended(Throwable reason) {
        report(outcomeOf(reason));
    }

    private void report(LockObserver.Outcome outcome) {
        if (reports && reported.compareAndSet(false, true)) {
            LockObservers.acquireEnded(new LockObserver.AcquireEvent(path, mode, outcome, System.nanoTime() - startNanos,
                    requests.get(), ahead.get()));
        }
    }

    static LockObserver.Outcome outcomeOf(Throwable reason) {
        while (reason instanceof CompletionException && reason.getCause() != null) {
            reason = reason.getCause();
        }
        if (reason instanceof TimeoutException) {
            return LockObserver.Outcome.TIMED_OUT;
        }
        if (reason instanceof Blocking.Withdrawn) {
            return LockObserver.Outcome.CANCELLED;
        }
        return LockObserver.Outcome.FAILED;
    }

    /**
     * A listener that reports {@code lease}'s state changes with the time since its grant, if
     * an observer is installed now; added before anybody else sees the lease.
     */
    static void observeLease(ZkLease lease, LockContext context) {
        if (!LockObservers.active()) {
            return;
        }
        String path = context.path();
        String mode = LockObservers.modeOf(context.kind());
        long grantedNanos = System.nanoTime();
        lease.addListener(new LeaseListener() {
            @Override
            public void stateChanged(Lease l, LeaseState state) {
                if (LockObservers.active()) {
                    LockObservers.leaseChanged(new LockObserver.LeaseEvent(path, mode, state, System.nanoTime() - grantedNanos));
                }
            }

            @Override
            public String toString() {
                return "LockObservers' listener of " + lease.nodePath();
            }
        });
    }
}
