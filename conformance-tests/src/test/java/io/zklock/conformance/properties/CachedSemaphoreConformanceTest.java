package io.zklock.conformance.properties;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;

/** The properties of every recipe, run against {@code ZkSemaphore} with cached leases. */
class CachedSemaphoreConformanceTest extends ConformanceSupport implements LockPromises {
    @Override
    public Recipe recipe() {
        return Recipe.cachedSemaphore(Recipe.SEMAPHORE_PERMITS);
    }
}
