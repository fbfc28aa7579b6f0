package io.zklock.conformance.properties;

import io.zklock.conformance.harness.Recipe;

/** The properties of an exclusive, reentrant recipe, run against the write lock of {@code ZkReadWriteLock}. */
class WriteLockConformanceTest extends ExclusiveLockProperties {
    @Override
    protected Recipe recipe() {
        return Recipe.WRITE_LOCK;
    }
}
