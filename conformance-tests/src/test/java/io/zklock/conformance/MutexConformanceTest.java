package io.zklock.conformance;

import io.zklock.core.DistributedLock;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;

/** The conformance properties, run against {@link ZkMutex}. */
class MutexConformanceTest extends LockConformance {
    @Override
    Recipe recipe() {
        return new Recipe() {
            @Override
            public String name() {
                return "mutex";
            }

            @Override
            public DistributedLock create(CuratorFramework client, String path) {
                return new ZkMutex(client, path);
            }

            @Override
            public int capacity() {
                return 1;
            }

            @Override
            public boolean reentrant() {
                return true;
            }
        };
    }
}
