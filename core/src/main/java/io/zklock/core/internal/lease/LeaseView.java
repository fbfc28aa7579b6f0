package io.zklock.core.internal.lease;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;

/*
 * Overview.
 *
 * A lease view is a Lease over leases it does not own alone: a re-entered hold's view of its
 * base lease (HoldLease), a semaphore permit taken by a blocking call (PermitLease), a
 * multi-lock's lease over its components (MultiLease). Every view:
 *   - delegates the node, the token and, until it ends on its own, the state to its sources;
 *   - closes once: the first close() runs closeOnce(), later ones do nothing;
 *   - ends on its own only as RELEASED (detach(): closed while others still hold the sources),
 *     and then for good, whatever the sources do afterwards; a final state it told (LOST, or
 *     RELEASED) is its state from then on;
 *   - tells each state once, in order, to its listeners, outside any lock (LeaseListeners keeps
 *     the order, logs a listener's failure and still tells the others).
 * Its own state is one value beside the state it told: End (OPEN, CLOSED, DETACHED).
 *
 * Serialisation, the rule for every lease and watch of this package: each lease (ZkLease, a
 * view) and each watch (RevocationWatch) has ONE monitor, which guards its one state value and
 * nothing else; a change of that value is made, and queued for the listeners, under that
 * monitor, and listeners and handlers are called after it is released, one thread at a time and
 * in the order of the changes (LeaseListeners.drain). A lease's monitor is never held while
 * calling out, except that a view reads its sources' state() under its own monitor (a
 * multi-lease's components may be hold views): views sit above their sources, so these monitors
 * nest in one direction only. A RevocationWatch issues its ZooKeeper calls under its monitor,
 * which is safe because a port call never answers inside the call.
 */
/** The common base of the lease views; see the comment above. */
public abstract class LeaseView implements Lease {
    /** How far the view is from its end: its own end, beside the state it last told. */
    private enum End { OPEN, CLOSED, DETACHED }

    private static final AtomicReferenceFieldUpdater<LeaseView, LeaseListeners> MONITOR =
            AtomicReferenceFieldUpdater.newUpdater(LeaseView.class, LeaseListeners.class, "monitor");

    private volatile LeaseListeners monitor;   // the listeners, and the view's monitor; made by its first use (monitor())
    private boolean listening;                 // guarded by monitor: listenToSources() was called
    private LeaseState told;                   // guarded by monitor: the state listeners know
    private End end = End.OPEN;                // guarded by monitor; DETACHED: ended on its own, RELEASED

    /** @param initial the state the view starts in: its sources' state at the grant */
    protected LeaseView(LeaseState initial) {
        this.told = initial;
    }

    /** {@return the view's listeners and monitor, made by the first use: a held view is kept as long as it is held} */
    private LeaseListeners monitor() {
        LeaseListeners m = monitor;
        if (m == null) {
            MONITOR.compareAndSet(this, null, new LeaseListeners());
            m = monitor;
        }
        return m;
    }

    /** {@return the state derived from the sources, while the view has not ended on its own} */
    protected abstract LeaseState sourceState();

    /** The first close: release the sources, or only this view's share of them. */
    protected abstract void closeOnce();

    /** Called once, when the first listener is added: start forwarding the sources' news. */
    protected abstract void listenToSources();

    @Override
    public final LeaseState state() {
        synchronized (monitor()) {
            if (end == End.DETACHED || ZkLease.isFinal(told)) {
                return told;                   // a final state told is final: the sources may move on
            }
        }
        return sourceState();
    }

    @Override
    public final boolean isValid() {
        return state() == LeaseState.HELD;
    }

    /** Zero once the view is final, else what its sources are certain of ({@link #sourceValidFor()}). */
    @Override
    public final Duration validFor() {
        return ZkLease.isFinal(state()) ? Duration.ZERO : sourceValidFor();
    }

    /** {@return how long the sources are certainly held; the least of them if several; zero unless overridden} */
    protected Duration sourceValidFor() {
        return Duration.ZERO;
    }

    @Override
    public final void addListener(LeaseListener listener) {
        monitor().add(listener);
        boolean first;
        synchronized (monitor()) {
            first = !listening;
            listening = true;
        }
        if (first) {
            listenToSources();
        }
    }

    @Override
    public final void close() {
        synchronized (monitor()) {
            if (end != End.OPEN) {
                return;
            }
            end = End.CLOSED;
        }
        closeOnce();
    }

    /** {@return whether close() was called} */
    protected final boolean isClosed() {
        synchronized (monitor()) {
            return end != End.OPEN;
        }
    }

    /** A revocation handler for the sources that hands this view on, unless it was closed. */
    protected final Consumer<Lease> forward(Consumer<? super Lease> handler) {
        if (handler == null) {
            throw new IllegalArgumentException("handler is null");
        }
        return source -> {
            if (!isClosed()) {
                handler.accept(this);
            }
        };
    }

    /** Tells {@code next}, unless the view ended, or already told it or a final state. */
    protected final void tell(LeaseState next) {
        synchronized (monitor()) {
            if (end == End.DETACHED || ZkLease.isFinal(told) || next == told) {
                return;
            }
            told = next;
            monitor().queue(next);
        }
        monitor().drain(this);
    }

    /**
     * Ends the view on its own, RELEASED, unless its sources are lost already (then it stays
     * theirs, and says LOST as it told or will tell). Decided under the view's monitor, so the
     * state and what is told agree whichever of a loss and this close comes first.
     */
    protected final void detach() {
        synchronized (monitor()) {
            if (ZkLease.isFinal(told) || sourcesLost()) {
                return;
            }
            end = End.DETACHED;
            told = LeaseState.RELEASED;
            monitor().queue(LeaseState.RELEASED);
        }
        monitor().drain(this);
    }

    /** {@return whether a source is LOST; then a close does not detach the view} */
    protected boolean sourcesLost() {
        return sourceState() == LeaseState.LOST;
    }

    @Override
    public String toString() {
        return "Lease[" + nodePath() + ", token " + fencingToken() + ", " + state() + "]";
    }
}
