package io.zklock.conformance.properties;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;

/** The properties of an exclusive, reentrant recipe, run against {@code ZkMutex} with cached leases. */
class CachedMutexConformanceTest extends ConformanceSupport implements LockPromises, ReentrantPromises, ExclusivePromises {
    @Override
    public Recipe recipe() {
        return Recipe.CACHED_MUTEX;
    }
}
