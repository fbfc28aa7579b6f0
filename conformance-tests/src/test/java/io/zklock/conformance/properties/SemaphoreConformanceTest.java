package io.zklock.conformance.properties;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;

/** The properties every recipe keeps, run against {@code ZkSemaphore} with {@link Recipe#SEMAPHORE_PERMITS} permits. */
class SemaphoreConformanceTest extends ConformanceSupport implements LockPromises {
    @Override
    public Recipe recipe() {
        return Recipe.SEMAPHORE;
    }
}
