package io.zklock.conformance.properties;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;

/** The properties of a shared, reentrant recipe, run against the read lock of {@code ZkReadWriteLock} with cached leases (its rival: the write lock, which never caches). */
class CachedReadLockConformanceTest extends ConformanceSupport implements LockPromises, ReentrantPromises {
    @Override
    public Recipe recipe() {
        return Recipe.CACHED_READ_LOCK;
    }
}
