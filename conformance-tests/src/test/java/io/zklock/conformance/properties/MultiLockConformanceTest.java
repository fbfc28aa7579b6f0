package io.zklock.conformance.properties;

import io.zklock.conformance.harness.Recipe;

/**
 * The properties of an exclusive, reentrant recipe, run against a {@code ZkMultiLock} over a
 * mutex, a read lock, a write lock and a semaphore permit.
 */
class MultiLockConformanceTest extends ExclusiveLockProperties {
    @Override
    protected Recipe recipe() {
        return Recipe.MULTI_LOCK;
    }
}
