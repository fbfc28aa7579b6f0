package io.zklock.core;

/** Told of the state changes of a {@link Lease}. */
@FunctionalInterface
public interface LeaseListener {
    /**
     * Called once per state change, on a ZooKeeper event thread; must not block.
     *
     * @param lease the lease whose state changed
     * @param newState its new state
     */
    void stateChanged(Lease lease, LeaseState newState);
}
