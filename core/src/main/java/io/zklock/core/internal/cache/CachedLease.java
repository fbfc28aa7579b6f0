package io.zklock.core.internal.cache;

import java.time.Duration;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.internal.lease.LeaseView;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * A local lease on a cached node: the cache's own view of the node's base lease. It reports the
 * base's state until it is closed; its close takes its share off the node ({@link
 * LeaseCache#closeOne}), and the view that releases the node follows the base until the node
 * is gone, while a view closed with the node kept is RELEASED at once (the node stays for
 * other local leases, or idle).
 */
final class CachedLease extends LeaseView {
    private final CachedNode node;
    private final Duration idle;

    CachedLease(CachedNode node, Duration idle) {
        super(node.base.state());
        this.node = node;
        this.idle = idle;
    }

    @Override
    public String nodePath() {
        return node.base.nodePath();
    }

    @Override
    public long fencingToken() {
        return node.base.fencingToken();
    }

    /** The node's guard while this lease is open; once it is RELEASED, a check that fails (other leases may use the node). */
    @Override
    public CuratorOp guard() {
        return state() == LeaseState.RELEASED ? node.failingGuard() : node.base.guard();
    }

    @Override
    protected LeaseState sourceState() {
        return node.base.state();
    }

    @Override
    protected void listenToSources() {
        node.listen(this);
    }

    /** The node's revocation watch, shared by every local lease on it; a lease closed meanwhile is not told. */
    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        node.base.onRevocationRequested(forward(handler));
    }

    /** Only a lease that ended RELEASED on its own stops listening: the last one must hear the base's RELEASED. */
    @Override
    protected void closeOnce() {
        if (!node.cache.closeOne(node, idle)) {
            detach();
            if (state() == LeaseState.RELEASED) {
                node.unlisten(this);
            }
        }
    }

    /** The base's news, passed on by the node. */
    void hear(LeaseState state) {
        tell(state);
    }
}
