package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.testing.QuietPorts;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/** The server counts what a plain ZooKeeper client sends, by operation, handshakes included. */
class RequestCounterTest {
    /** A handshake, a create, an exists and a read; after a restart, one handshake and one setWatches for the watch kept. */
    @Test
    void countsRequestsByOperationAcrossAReconnection() throws Exception {
        String previous = RequestCounter.install();
        try (TestingServer server = new TestingServer(QuietPorts.next(), true)) {
            var before = RequestCounter.snapshot();
            long packets = RequestCounter.packets();
            var connected = new CountDownLatch[] {new CountDownLatch(1)};
            ZooKeeper zk = new ZooKeeper(server.getConnectString(), 30_000, event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    connected[0].countDown();
                }
            });
            try {
                assertEquals(true, connected[0].await(10, TimeUnit.SECONDS));
                zk.create("/n", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.exists("/n", true);
                zk.getData("/n", false, null);
                assertEquals(Map.of("connect", 1L, "create", 1L, "exists", 1L, "getData", 1L), withoutPings(before));
                assertEquals(4, RequestCounter.packets() - packets - RequestCounter.delta(before, RequestCounter.snapshot())
                        .getOrDefault("ping", 0L));

                var afterSetUp = RequestCounter.snapshot();
                connected[0] = new CountDownLatch(1);
                server.restart();
                assertEquals(true, connected[0].await(20, TimeUnit.SECONDS));
                zk.sync("/n", (rc, path, ctx) -> { }, null);
                zk.exists("/n", false);               // replies in order: the sync and setWatches are counted by now
                assertEquals(Map.of("connect", 1L, "setWatches", 1L, "sync", 1L, "exists", 1L), withoutPings(afterSetUp));
            } finally {
                zk.close();
            }
        } finally {
            RequestCounter.uninstall(previous);
        }
    }

    private static Map<String, Long> withoutPings(Map<String, Long> before) {
        var d = RequestCounter.delta(before, RequestCounter.snapshot());
        d.remove("ping");
        return d;
    }
}
