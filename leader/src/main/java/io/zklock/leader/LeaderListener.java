package io.zklock.leader;

import java.util.Optional;

/**
 * Told when an election's leader changes, as a client's one watch on the election sees it
 * ({@link ZkLeaderElection#onLeaderChange}).
 */
@FunctionalInterface
public interface LeaderListener {

    /**
     * The leader changed. Called on a ZooKeeper event thread (the first call may come on the
     * subscribing thread), one call at a time: it must not block. Changes are told in order; two
     * quick changes may be told as one (the listener hears the later leader).
     *
     * @param leader the new leader, or empty when nobody leads (no candidate, or the path is gone)
     */
    void leaderChanged(Optional<LeaderInfo> leader);
}
