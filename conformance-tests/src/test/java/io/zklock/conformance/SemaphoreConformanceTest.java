package io.zklock.conformance;

import io.zklock.core.DistributedLock;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;

/** The conformance properties, run against {@link ZkSemaphore} with three permits. */
class SemaphoreConformanceTest extends LockConformance {
    static final int PERMITS = 3;

    @Override
    Recipe recipe() {
        return new Recipe() {
            @Override
            public String name() {
                return "semaphore";
            }

            @Override
            public DistributedLock create(CuratorFramework client, String path) {
                return new ZkSemaphore(client, path, PERMITS);
            }

            @Override
            public int capacity() {
                return PERMITS;
            }

            @Override
            public boolean reentrant() {
                return false;
            }
        };
    }
}
