package io.zklock.core.internal.lease;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
 *
 * <p>The views of one hold hear the base lease through its {@link Base}: one listener on the
 * base, however often the hold is re-entered, passes each state to the views that listen; a
 * view that ended RELEASED on its own leaves it, so a long hold keeps no closed views.
 */
public final class HoldLease extends LeaseView {
    private final Base shared;

    private HoldLease(Base shared) {
        super(shared.lease.state());
        this.shared = shared;
    }

    @Override
    public String nodePath() {
        return shared.lease.nodePath();
    }

    @Override
    public long fencingToken() {
        return shared.lease.fencingToken();
    }

    /**
     * The shared node's guard: it passes while any view of the hold keeps the node (the thread
     * that closed this view still holds the lock through the others).
     */
    @Override
    public CuratorOp guard() {
        return shared.lease.guard();
    }

    @Override
    protected Duration sourceValidFor() {
        return shared.lease.validFor();
    }

    @Override
    protected LeaseState sourceState() {
        return shared.lease.state();
    }

    @Override
    protected void listenToSources() {
        shared.listen(this);
    }

    /** The node's revocation watch, shared by every view; a view closed meanwhile is not told. */
    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        shared.lease.onRevocationRequested(forward(handler));
    }

    /*
     * Only a view that ended RELEASED on its own stops listening: the last view must hear the
     * base's RELEASED, and a view closed as the base is lost may still have LOST to tell.
     */
    @Override
    protected void closeOnce() {
        if (!shared.closeOne()) {
            detach();
            List<HoldLease> listening = shared.views;
            if (state() == LeaseState.RELEASED && listening != null) {
                listening.remove(this);
            }
        }
    }

    /**
     * The base lease of one hold, shared by the hold's views: the base's news reach them through
     * one listener on it, added when the first view gets a listener. The hold extends it, and
     * says what a view's close does ({@link #closeOne}): a hold is kept as long as it is held.
     */
    public abstract static class Base {
        private final Lease lease;
        private volatile List<HoldLease> views;    // those that listen, in order; made by the first (most holds have none)

        /** @param lease the lease of the shared node */
        protected Base(Lease lease) {
            this.lease = lease;
        }

        /** {@return the lease of the shared node} */
        public final Lease lease() {
            return lease;
        }

        /** {@return a new view of the node} */
        public final HoldLease newView() {
            return new HoldLease(this);
        }

        /** Takes a view's share off the hold; true if it was the last, whose close released the base lease. */
        protected abstract boolean closeOne();

        private void listen(HoldLease view) {
            boolean first = false;
            synchronized (this) {
                if (views == null) {
                    views = new CopyOnWriteArrayList<>();
                    first = true;
                }
            }
            views.add(view);
            if (first) {
                lease.addListener((l, state) -> views.forEach(v -> v.tell(state)));
            }
        }
    }
}
