package io.zklock.core;

/** Told of the state changes of a {@link Lease}. */
@FunctionalInterface
public interface LeaseListener {
    /**
     * Called once per state change, in order, on the thread that made it or on one already
     * telling that lease's changes (see {@link Lease#addListener(LeaseListener)}); must not
     * block. An exception it throws is logged and ignored.
     *
     * @param lease the lease whose state changed
     * @param newState its new state
     */
    void stateChanged(Lease lease, LeaseState newState);
}
