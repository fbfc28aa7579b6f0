package io.zklock.readwrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.testing.Await;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The requests a writer's acquisition costs behind idle cached read nodes of other clients,
 * counted per session by the server: the least over a few rounds (a ping can only add).
 */
class CachedReadersWriterRequestsTest {
    private static final int REPEAT = 5;
    private static final int READERS = 3;

    /**
     * Behind 3 idle cached read nodes, each reader's client sends 1 request: the delete of its
     * node, which it starts on the notification of the writer's create (its tree watch), before
     * any ask reaches it, so it reads nothing. The writer sends at most the 11 it sends when the
     * holders hear only its asks (create and listing: 2; an ask of each node, a read and a
     * conditional write: 6; the watch of its predecessor: 1, and again after its ask fired it: 1;
     * the listing that grants it: 1): fewer as its listing and its reads find the nodes going
     * (a read that finds a node gone writes nothing). How many fewer is a race with the holders'
     * deletes, so only the bound is pinned.
     */
    @Test
    void aWriterBehindThreeIdleCachedReadNodesSendsAtMostElevenRequestsAndEachHolderOne() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework writerClient = ZkTesting.client(server.getConnectString(), 60_000)) {
            List<CuratorFramework> readerClients = new ArrayList<>();
            try {
                List<ZkReadWriteLock> readers = new ArrayList<>();
                for (int i = 0; i < READERS; i++) {
                    CuratorFramework c = ZkTesting.client(server.getConnectString(), 60_000);
                    readerClients.add(c);
                    readers.add(new ZkReadWriteLock(c, "/locks/cw", LeaseCaching.keepIdleFor(Duration.ofHours(1))));
                }
                ZkReadWriteLock writer = new ZkReadWriteLock(writerClient, "/locks/cw");
                ZkProbe probe = new ZkProbe(server.getPort());
                long writerSession = writerClient.getZookeeperClient().getZooKeeper().getSessionId();
                List<Long> readerSessions = new ArrayList<>();
                for (CuratorFramework c : readerClients) {
                    readerSessions.add(c.getZookeeperClient().getZooKeeper().getSessionId());
                }
                long leastWriter = Long.MAX_VALUE;
                long leastHolder = Long.MAX_VALUE;
                for (int round = 0; round < REPEAT; round++) {
                    for (ZkReadWriteLock r : readers) {
                        r.readLock().acquire().close();    // an idle cached read node per reader client
                    }
                    Await.until("the read nodes cached", Duration.ofSeconds(10),
                            () -> ZkTesting.children(writerClient, "/locks/cw").size() == READERS);
                    Thread.sleep(100);                     // the holders' watch reads answered
                    Map<Long, Long> before = probe.packetsBySession();
                    Lease w = writer.writeLock().acquire();
                    Map<Long, Long> granted = probe.packetsBySession();
                    Thread.sleep(100);                     // a holder's read of an ask that reached it would land by now
                    Map<Long, Long> after = probe.packetsBySession();
                    w.close();
                    leastWriter = Math.min(leastWriter, granted.get(writerSession) - before.get(writerSession));
                    leastHolder = Math.min(leastHolder, holderRequests(after, before, readerSessions));
                }
                assertTrue(leastWriter >= 2 && leastWriter <= 11, "requests of the writer's acquisition: " + leastWriter);
                assertEquals(1, leastHolder, "requests of each holder");
            } finally {
                readerClients.forEach(CuratorFramework::close);
            }
        }
    }

    /** The fewest requests any of the reader sessions sent between {@code before} and {@code now}. */
    private static long holderRequests(Map<Long, Long> now, Map<Long, Long> before, List<Long> readerSessions) {
        long least = Long.MAX_VALUE;
        for (long s : readerSessions) {
            least = Math.min(least, now.getOrDefault(s, 0L) - before.getOrDefault(s, 0L));
        }
        return least;
    }
}
