package io.zklock.leader;

/** A listener's subscription to an election's leader changes ({@link ZkLeaderElection#onLeaderChange}). */
@FunctionalInterface
public interface LeaderSubscription extends AutoCloseable {

    /** Stops telling the listener; the client's watch on the election ends with its last subscription. Idempotent. */
    @Override
    void close();
}
