package io.zklock.conformance.properties;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;

/** The properties of a shared, reentrant recipe, run against the read lock of {@code ZkReadWriteLock} (its rival: the write lock). */
class ReadLockConformanceTest extends ConformanceSupport implements LockPromises, ReentrantPromises {
    @Override
    public Recipe recipe() {
        return Recipe.READ_LOCK;
    }
}
