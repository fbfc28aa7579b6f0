package io.zklock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** The probe reads the server's own counters: a request shows up for the session that sent it and no other. */
class ZkProbeTest {
    /** A request from one session counts for that session only, and in the server's total. */
    @Test
    void countsRequestsPerSessionAndInTotal() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkProbe probe = new ZkProbe(server.getPort());
            long sa = a.getZookeeperClient().getZooKeeper().getSessionId();
            long sb = b.getZookeeperClient().getZooKeeper().getSessionId();
            long[] total = new long[1];
            Set<Long> active = probe.sessionsActiveDuring(Set.of(sa, sb),
                    () -> total[0] = probe.requestsDuring(() -> a.create().forPath("/probe")));
            assertEquals(Set.of(sa), active);
            assertEquals(1, total[0]);
            assertTrue(probe.nodeCount() >= 2);
        }
    }
}
