package io.zklock.conformance.properties;

import io.zklock.conformance.harness.Recipe;

/** The properties every recipe keeps, run against {@code ZkSemaphore} with {@link Recipe#SEMAPHORE_PERMITS} permits. */
class SemaphoreConformanceTest extends LockProperties {
    @Override
    protected Recipe recipe() {
        return Recipe.SEMAPHORE;
    }
}
