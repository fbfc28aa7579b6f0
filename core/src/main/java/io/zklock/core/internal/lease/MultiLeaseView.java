package io.zklock.core.internal.lease;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.MultiLease;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * One lease of a {@link MultiGrant}: the first, or one more for each re-entry by the thread.
 * Closing the grant's last open lease releases every component; that lease stays HELD or
 * SUSPENDED until every node is gone, then is RELEASED, or LOST if the session ended. A lease
 * closed while others of the grant remain open is RELEASED at once, on the closing thread.
 */
final class MultiLeaseView extends LeaseView implements MultiLease {
    private final MultiGrant grant;
    private volatile boolean last;             // closed as the grant's last: the grant's releasing state

    MultiLeaseView(MultiGrant grant) {
        super(grant.heldState());
        this.grant = grant;
    }

    @Override
    public List<Lease> components() {
        return grant.components();
    }

    @Override
    protected Duration sourceValidFor() {
        return grant.components().stream().map(Lease::validFor).min(Duration::compareTo).orElse(Duration.ZERO);
    }

    @Override
    public String nodePath() {
        return grant.components().get(0).nodePath();
    }

    @Override
    public long fencingToken() {
        return grant.components().stream().mapToLong(Lease::fencingToken).max().orElseThrow();
    }

    /**
     * A multi-lease stands on several nodes, and one check covers one node.
     *
     * @throws UnsupportedOperationException always: use {@link #guards()}
     */
    @Override
    public CuratorOp guard() {
        throw new UnsupportedOperationException("a multi-lease stands on " + grant.components().size()
                + " nodes: put every one of guards() in the transaction, not guard()");
    }

    /** One guard per component, in the multi-lock's order of its locks. */
    @Override
    public List<CuratorOp> guards() {
        return grant.components().stream().flatMap(c -> c.guards().stream()).toList();
    }

    @Override
    protected LeaseState sourceState() {
        return last ? grant.releasingState() : grant.heldState();
    }

    /** Only a LOST component: one RELEASED meanwhile is the last lease's clean release. */
    @Override
    protected boolean sourcesLost() {
        return grant.components().stream().anyMatch(c -> c.state() == LeaseState.LOST);
    }

    @Override
    protected void listenToSources() {
        // the grant tells every open lease of its components' news (recompute)
    }

    /** The grant's components changed: tell the state they make now. */
    void recompute() {
        tell(sourceState());
    }

    boolean isOpen() {
        return !isClosed();
    }

    /**
     * Watches every component's node: the first request to any of them calls {@code handler}
     * once, with this lease; see {@link Lease#onRevocationRequested}.
     */
    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        Consumer<Lease> forward = forward(handler);
        AtomicBoolean told = new AtomicBoolean();
        for (Lease component : grant.components()) {
            component.onRevocationRequested(c -> {
                if (told.compareAndSet(false, true)) {
                    forward.accept(c);
                }
            });
        }
    }

    @Override
    protected void closeOnce() {
        if (grant.closeOne(this)) {
            last = true;                       // stays among the grant's leases: told of the release
            grant.release();
            recompute();
        } else {
            detach();
        }
    }

    @Override
    public String toString() {
        return "MultiLease" + grant.components();
    }
}
