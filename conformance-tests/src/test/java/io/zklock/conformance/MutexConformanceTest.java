package io.zklock.conformance;

import io.zklock.mutex.ZkMutex;

/** The conformance properties, run against {@link ZkMutex}. */
class MutexConformanceTest extends LockConformance {
    @Override
    Recipe recipe() {
        return Recipe.of("mutex", 1, true, (client, path) -> new ZkMutex(client, path));
    }

    @Override
    String recipeInStatus() {
        return "mutex";
    }

    @Override
    String kindInStatus() {
        return "mutex";
    }
}
