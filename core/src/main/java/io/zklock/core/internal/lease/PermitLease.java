package io.zklock.core.internal.lease;

import java.time.Duration;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * A semaphore permit taken by a blocking call: the engine's lease, remembered for its thread
 * until it is closed. Its state is always the engine lease's (a permit is never shared, so it
 * never ends on its own).
 */
public final class PermitLease extends LeaseView {
    private final Lease lease;
    private final Runnable forget;

    /**
     * @param lease the engine's lease of the permit
     * @param forget drops the permit from its thread's bookkeeping; run by the first close
     */
    public PermitLease(Lease lease, Runnable forget) {
        super(lease.state());
        this.lease = lease;
        this.forget = forget;
    }

    @Override
    public String nodePath() {
        return lease.nodePath();
    }

    @Override
    public long fencingToken() {
        return lease.fencingToken();
    }

    @Override
    public CuratorOp guard() {
        return lease.guard();
    }

    @Override
    protected Duration sourceValidFor() {
        return lease.validFor();
    }

    @Override
    protected LeaseState sourceState() {
        return lease.state();
    }

    @Override
    protected void listenToSources() {
        lease.addListener((l, newState) -> tell(newState));
    }

    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        lease.onRevocationRequested(forward(handler));
    }

    @Override
    protected void closeOnce() {
        forget.run();
        lease.close();
    }
}
