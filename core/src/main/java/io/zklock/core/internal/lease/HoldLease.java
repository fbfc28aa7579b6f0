package io.zklock.core.internal.lease;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * One acquisition's view of a node a thread holds re-entrantly (see {@code ReentrantLockSupport}).
 * The view whose close releases the hold reports the base lease's state until the node is gone
 * (never an optimistic RELEASED); a view closed while others of the hold remain open is
 * RELEASED at once on the closing thread (the thread still holds the node through them),
 * unless the base is LOST by then.
 */
public final class HoldLease extends LeaseView {
    private final Lease base;
    private final BooleanSupplier closeOne;

    /**
     * @param base the lease of the shared node
     * @param closeOne takes this view's share off the hold; true if it was the last, whose
     *        close released the base lease
     */
    public HoldLease(Lease base, BooleanSupplier closeOne) {
        super(base.state());
        this.base = base;
        this.closeOne = closeOne;
    }

    @Override
    public String nodePath() {
        return base.nodePath();
    }

    @Override
    public long fencingToken() {
        return base.fencingToken();
    }

    /** The shared node's guard: it passes while any view of the hold keeps the node. */
    @Override
    public CuratorOp guard() {
        return base.guard();
    }

    @Override
    protected LeaseState sourceState() {
        return base.state();
    }

    @Override
    protected void listenToSources() {
        base.addListener((b, newState) -> tell(newState));
    }

    /** The node's revocation watch, shared by every view; a view closed meanwhile is not told. */
    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        base.onRevocationRequested(forward(handler));
    }

    @Override
    protected void closeOnce() {
        if (!closeOne.getAsBoolean()) {
            detach();
        }
    }
}
