package io.zklock.conformance;

import io.zklock.semaphore.ZkSemaphore;

/** The conformance properties, run against {@link ZkSemaphore} with three permits. */
class SemaphoreConformanceTest extends LockConformance {
    static final int PERMITS = 3;

    @Override
    Recipe recipe() {
        return Recipe.of("semaphore", PERMITS, false, (client, path) -> new ZkSemaphore(client, path, PERMITS));
    }

    @Override
    String recipeInStatus() {
        return "semaphore";
    }

    @Override
    String kindInStatus() {
        return "permit";
    }
}
