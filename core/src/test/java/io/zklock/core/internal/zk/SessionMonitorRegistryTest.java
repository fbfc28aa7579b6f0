package io.zklock.core.internal.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The registry of session monitors keeps a client's monitor while the client is open and
 * drops it when the client closes, not at some later use of the registry; a closed client
 * gets a closed monitor that the registry does not keep.
 */
class SessionMonitorRegistryTest {

    @Test
    void aClosedClientsMonitorLeavesTheRegistryAtItsClose() throws Exception {
        try (TestingServer server = new TestingServer()) {
            CuratorFramework client = ZkTesting.client(server.getConnectString(), 10_000);
            SessionMonitor monitor = SessionMonitor.of(client);
            assertSame(monitor, SessionMonitor.of(client), "one monitor per client");
            assertSame(monitor, SessionMonitor.of(client.usingNamespace("app")), "a namespace facade shares it");
            assertSame(monitor, SessionMonitor.existing(client));
            long session = client.getZookeeperClient().getZooKeeper().getSessionId();
            assertEquals(session, monitor.sessionId());

            client.close();

            assertNull(SessionMonitor.existing(client), "dropped at the close");
            assertEquals(0, monitor.sessionId(), "the dropped monitor is closed");
            SessionMonitor late = SessionMonitor.of(client);
            assertNotSame(monitor, late);
            assertEquals(0, late.sessionId(), "a closed client's monitor is closed");
            assertNull(SessionMonitor.existing(client), "and not kept");
        }
    }
}
