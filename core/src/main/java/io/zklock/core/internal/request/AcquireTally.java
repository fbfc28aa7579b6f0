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
import io.zklock.core.internal.Failures;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.observe.LockObserver;
import io.zklock.core.observe.LockObservers;
import io.zklock.core.observe.ObservedRequest;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;

/**
 * What one request tells its observers (those installed for its client when it began, in an
 * {@link ObservedRequest}): its start, the node it waits behind, the ZooKeeper calls its stages
 * issue, the queue they find, and its outcome, reported once, before the caller can see the
 * result; then the grant and changes of its nodes. A multi-lock's waits count into the
 * multi-lock's tally through a {@link #component()} view, which reports no end of its own.
 * {@link #NONE}, the tally of a request that began with no observer installed for its client,
 * does nothing at all.
 */
public final class AcquireTally {
    /** The tally of an unobserved request. */
    static final AcquireTally NONE = new AcquireTally(null, null, null);

    private final ObservedRequest observed;
    private final String path;
    private final String mode;
    private final long startNanos;
    private final AtomicInteger requests;
    private final AtomicInteger ahead;
    private final AtomicBoolean reported;
    private final boolean reports;

    private AcquireTally(String path, String mode, ObservedRequest observed) {
        this.observed = observed;
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
        this.observed = whole.observed;
        this.path = whole.path;
        this.mode = whole.mode;
        this.startNanos = whole.startNanos;
        this.requests = whole.requests;
        this.ahead = whole.ahead;
        this.reported = whole.reported;
        this.reports = false;
    }

    /** The tally of a request on {@code context} starting now, on the caller's thread: {@link #NONE} if nobody observes. */
    public static AcquireTally begin(LockContext context) {
        return LockObservers.active() ? begin(context.client(), context.path(), LockObservers.modeOf(context.kind())) : NONE;
    }

    /** The tally of a multi-lock request over {@code contexts} starting now, on the caller's thread. */
    public static AcquireTally beginMulti(List<LockContext> contexts) {
        return LockObservers.active()
                ? begin(contexts.get(0).client(), String.join(",", contexts.stream().map(LockContext::path).toList()), LockObserver.MULTI)
                : NONE;
    }

    private static AcquireTally begin(CuratorFramework client, String path, String mode) {
        ObservedRequest observed = LockObservers.requestStarted(client, new LockObserver.AcquireStart(path, mode));
        return observed == null ? NONE : new AcquireTally(path, mode, observed);
    }

    /** {@return whether observers follow the request (they hear whom it waits behind from a watch's read)} */
    boolean observed() {
        return this != NONE;
    }

    /** {@return the trace id its observers gave the request, for its nodes' owner data; null if none} */
    String traceId() {
        return this == NONE ? null : observed.traceId();
    }

    /** The request set a watch on {@code nodePath}, whose reply carried {@code data}: its observers hear whom it waits behind. */
    void waitsBehind(String nodePath, byte[] data) {
        if (this != NONE) {
            observed.waitsBehind(new LockObserver.WaitedNode(nodePath, NodeData.owner(data), NodeData.traceId(data)));
        }
    }

    /** A granted node of the request waits out {@code context}'s lock-delay for {@code nanos}: its observers hear of it. */
    void lockDelayStarted(LockContext context, long nanos) {
        if (this != NONE) {
            observed.lockDelayStarted(new LockObserver.LockDelayEvent(context.path(), LockObservers.modeOf(context.kind()), nanos));
        }
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
            Failures.checkStarted(client, what);
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
            observed.ended(new LockObserver.AcquireEvent(path, mode, outcome, System.nanoTime() - startNanos,
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
     * Tells the request's observers that {@code lease} (on {@code context}'s lock) was granted,
     * and adds a listener that tells them its state changes with the time since its grant;
     * added before anybody else sees the lease. Nothing if nobody observes the request.
     */
    void observeLease(ZkLease lease, LockContext context) {
        if (this == NONE) {
            return;
        }
        String path = context.path();
        String mode = LockObservers.modeOf(context.kind());
        long grantedNanos = System.nanoTime();
        observed.leaseGranted(new LockObserver.LeaseEvent(path, mode, LeaseState.HELD, 0));
        lease.addListener(new LeaseListener() {
            @Override
            public void stateChanged(Lease l, LeaseState state) {
                observed.leaseChanged(new LockObserver.LeaseEvent(path, mode, state, System.nanoTime() - grantedNanos));
            }

            @Override
            public String toString() {
                return "LockObservers' listener of " + lease.nodePath();
            }
        });
    }
}
