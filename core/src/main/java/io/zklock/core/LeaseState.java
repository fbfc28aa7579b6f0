package io.zklock.core;

/** The states of a {@link Lease}; see there for the transitions. */
public enum LeaseState {
    /** Granted, and the session that holds it is connected. */
    HELD,
    /** Granted, but the session is disconnected: the lease may or may not still be held. */
    SUSPENDED,
    /** The session expired, or the node was deleted by another client: the lease is gone and another client may hold the lock. Final. */
    LOST,
    /** Closed by its holder and its node deleted. Final. */
    RELEASED
}
