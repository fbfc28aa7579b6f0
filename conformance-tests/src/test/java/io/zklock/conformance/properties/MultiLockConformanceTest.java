package io.zklock.conformance.properties;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;

/**
 * The properties of an exclusive, reentrant recipe, run against a {@code ZkMultiLock} over a
 * mutex, a read lock, a write lock and a semaphore permit.
 */
class MultiLockConformanceTest extends ConformanceSupport implements LockPromises, ReentrantPromises, ExclusivePromises {
    @Override
    public Recipe recipe() {
        return Recipe.MULTI_LOCK;
    }
}
