package io.zklock.conformance.properties;

import io.zklock.conformance.harness.Recipe;

/** The properties of an exclusive, reentrant recipe, run against {@code ZkMutex} with cached leases. */
class CachedMutexConformanceTest extends ExclusiveLockProperties {
    @Override
    protected Recipe recipe() {
        return Recipe.CACHED_MUTEX;
    }
}
