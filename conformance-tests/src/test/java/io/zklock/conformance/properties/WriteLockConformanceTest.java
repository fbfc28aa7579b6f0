package io.zklock.conformance.properties;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;

/** The properties of an exclusive, reentrant recipe, run against the write lock of {@code ZkReadWriteLock}. */
class WriteLockConformanceTest extends ConformanceSupport implements LockPromises, ReentrantPromises, ExclusivePromises {
    @Override
    public Recipe recipe() {
        return Recipe.WRITE_LOCK;
    }
}
