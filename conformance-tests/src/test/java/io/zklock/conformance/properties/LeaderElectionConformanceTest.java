package io.zklock.conformance.properties;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;

/**
 * The properties of an exclusive recipe, run against {@code ZkLeaderElection} driven as a lock
 * (each acquisition a candidacy, each lease a leadership): one leader at a time, fenced by its
 * epoch, granted in queue order. Not reentrant. Its own promises are in {@link LeaderElectionPropertiesTest}.
 */
class LeaderElectionConformanceTest extends ConformanceSupport implements LockPromises, ExclusivePromises {
    @Override
    public Recipe recipe() {
        return Recipe.LEADER;
    }
}
