package io.zklock.conformance.properties;

import io.zklock.conformance.harness.Recipe;

/** The properties of a shared, reentrant recipe, run against the read lock of {@code ZkReadWriteLock} (its rival: the write lock). */
class ReadLockConformanceTest extends ReentrantLockProperties {
    @Override
    protected Recipe recipe() {
        return Recipe.READ_LOCK;
    }
}
