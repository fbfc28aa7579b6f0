package io.zklock.core.internal.lease;

import io.zklock.core.LeaseState;

/**
 * The one state value of a {@link ZkLease}, from which its public {@link LeaseState} is
 * derived ({@link #shown}). Beside the public states it says whether a release is under way
 * (the state shown stays HELD or SUSPENDED until the node is gone) and whether a LOST lease's
 * node may still be on the server (deleted on the next connection).
 */
enum LeasePhase {
    HELD(LeaseState.HELD),
    SUSPENDED(LeaseState.SUSPENDED),
    /** Closed; the delete is issued or retried, and the connection is up. */
    RELEASING_HELD(LeaseState.HELD),
    /** Closed; the delete waits for the connection. */
    RELEASING_SUSPENDED(LeaseState.SUSPENDED),
    /** The session is gone, and the node may outlive it on the server: deleted on reconnection. */
    LOST_UNDELETED(LeaseState.LOST),
    LOST(LeaseState.LOST),
    RELEASED(LeaseState.RELEASED);

    /** The state users see. */
    final LeaseState shown;

    LeasePhase(LeaseState shown) {
        this.shown = shown;
    }

    boolean isFinal() {
        return ZkLease.isFinal(shown);
    }

    boolean isReleasing() {
        return this == RELEASING_HELD || this == RELEASING_SUSPENDED;
    }

    /** The connection is lost. */
    LeasePhase suspended() {
        return switch (this) {
            case HELD -> SUSPENDED;
            case RELEASING_HELD -> RELEASING_SUSPENDED;
            default -> this;
        };
    }

    /** The same session reconnected. */
    LeasePhase reconnected() {
        return switch (this) {
            case SUSPENDED -> HELD;
            case RELEASING_SUSPENDED -> RELEASING_HELD;
            default -> this;
        };
    }

    /** A close claimed the release. */
    LeasePhase releasing() {
        return switch (this) {
            case HELD -> RELEASING_HELD;
            case SUSPENDED -> RELEASING_SUSPENDED;
            default -> this;
        };
    }

    /** The node is gone: RELEASED, unless the lease is final already. */
    LeasePhase deleted() {
        return isFinal() ? this : RELEASED;
    }

    /** The session is gone; {@code undeleted}: its node may still be on the server. */
    LeasePhase lost(boolean undeleted) {
        if (isFinal()) {
            return this == LOST_UNDELETED && !undeleted ? LOST : this;
        }
        return undeleted ? LOST_UNDELETED : LOST;
    }

    /** The node of a lost lease was deleted. */
    LeasePhase orphanDeleted() {
        return this == LOST_UNDELETED ? LOST : this;
    }
}
