package io.zklock.conformance.properties;

import io.zklock.conformance.harness.Recipe;

/** The properties of every recipe, run against {@code ZkSemaphore} with cached leases. */
class CachedSemaphoreConformanceTest extends LockProperties {
    @Override
    protected Recipe recipe() {
        return Recipe.cachedSemaphore(Recipe.SEMAPHORE_PERMITS);
    }
}
