package io.zklock.semaphore;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * A permit taken in Curator's layout (see {@link CuratorLayoutPermits}): two nodes, the lease
 * node Curator's clients count and the permit node zklock's default-mode clients count. It
 * stands for the lease node ({@link #nodePath()}, {@link #fencingToken()}, {@link #guard()}),
 * is only as good as the worse of the two ({@link #state()}) and releases both.
 */
final class CuratorLayoutLease implements Lease {
    private final Lease permit;
    private final Lease lease;

    CuratorLayoutLease(Lease permit, Lease lease) {
        this.permit = permit;
        this.lease = lease;
    }

    /** {@return the lease node, under {@code <path>/leases}} */
    @Override
    public String nodePath() {
        return lease.nodePath();
    }

    /** {@return the lease node's czxid} */
    @Override
    public long fencingToken() {
        return lease.fencingToken();
    }

    /**
     * {@return LOST if either node is lost; RELEASED once both are gone; SUSPENDED if either is;
     * else HELD}
     */
    @Override
    public LeaseState state() {
        return combined(permit.state(), lease.state());
    }

    static LeaseState combined(LeaseState a, LeaseState b) {
        if (a == LeaseState.LOST || b == LeaseState.LOST) {
            return LeaseState.LOST;
        }
        if (a == LeaseState.RELEASED && b == LeaseState.RELEASED) {
            return LeaseState.RELEASED;
        }
        if (a == LeaseState.SUSPENDED || b == LeaseState.SUSPENDED) {
            return LeaseState.SUSPENDED;
        }
        return LeaseState.HELD;                // one released, the other still held: being closed
    }

    /** {@return the lesser of the two nodes' validity: both are needed} */
    @Override
    public Duration validFor() {
        Duration a = permit.validFor();
        Duration b = lease.validFor();
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public boolean isValid() {
        return state() == LeaseState.HELD;
    }

    /** Tells {@code listener} of each change of {@link #state()}, once per change. */
    @Override
    public void addListener(LeaseListener listener) {
        AtomicReference<LeaseState> told = new AtomicReference<>(state());
        LeaseListener each = (changed, newState) -> {
            LeaseState now = state();
            if (told.getAndSet(now) != now) {
                listener.stateChanged(this, now);
            }
        };
        permit.addListener(each);
        lease.addListener(each);
    }

    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        permit.onRevocationRequested(l -> handler.accept(this));
        lease.onRevocationRequested(l -> handler.accept(this));
    }

    /** {@return a check of the lease node} */
    @Override
    public CuratorOp guard() {
        return lease.guard();
    }

    /** {@return checks of both nodes} */
    @Override
    public List<CuratorOp> guards() {
        return List.of(lease.guard(), permit.guard());
    }

    /** Releases the lease node, then the permit node. */
    @Override
    public void close() {
        try {
            lease.close();
        } finally {
            permit.close();
        }
    }

    @Override
    public String toString() {
        return "CuratorLayoutLease[" + lease.nodePath() + ", " + permit.nodePath() + ", " + state() + "]";
    }
}
