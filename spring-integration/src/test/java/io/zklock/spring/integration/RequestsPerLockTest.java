package io.zklock.spring.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * ZooKeeper requests per {@code lockInterruptibly()}, counted by the server for the waiting
 * client's session alone: ours against Spring Integration's {@code ZookeeperLockRegistry} on
 * the same server. Sessions time out after 60 s, so no ping falls in a window. Run with
 * {@code -Dorg.slf4j.simpleLogger.log.io.zklock.spring=info} to see the figures.
 */
class RequestsPerLockTest {
    private static final Logger LOG = LoggerFactory.getLogger(RequestsPerLockTest.class);
    private static final long HOLD_MS = 2_500;

    /**
     * Uncontended, ours costs 2 requests (create, list); a waiter behind a holder for 2.5 s
     * costs 3 (create, list, watch: the holder's deletion grants it), however long the holder holds. The stock registry
     * is measured beside it and must cost more for the waiter, since it polls.
     */
    @Test
    void lockInterruptiblyWaitsOnAWatchAndCostsAFixedNumberOfRequests() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework waiter = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework holder = ZkTesting.client(server.getConnectString(), 60_000);
             ZkLockRegistry ours = new ZkLockRegistry(waiter, "/ours");
             ZkLockRegistry oursHolder = new ZkLockRegistry(holder, "/ours")) {
            ZkProbe probe = new ZkProbe(server.getPort());
            ZookeeperLockRegistry stock = new ZookeeperLockRegistry(waiter, "/stock");
            ZookeeperLockRegistry stockHolder = new ZookeeperLockRegistry(holder, "/stock");

            long oursFree = uncontended(probe, waiter, ours, oursHolder);
            long stockFree = uncontended(probe, waiter, stock, stockHolder);
            long oursWaiting = contended(probe, waiter, ours, oursHolder);
            long stockWaiting = contended(probe, waiter, stock, stockHolder);
            LOG.info("requests per lockInterruptibly(): uncontended ours {} stock {}; behind a {} ms holder ours {} stock {}",
                    oursFree, stockFree, HOLD_MS, oursWaiting, stockWaiting);
            assertEquals(2, oursFree, "ours, uncontended");
            assertEquals(3, oursWaiting, "ours, behind a holder");
            assertTrue(stockWaiting > oursWaiting, "the stock registry polls: " + stockWaiting);
        }
    }

    /** Requests of the waiter's session during one uncontended lockInterruptibly (after the other client's turn). */
    private static long uncontended(ZkProbe probe, CuratorFramework waiter, LockRegistry<?> mine, LockRegistry<?> other)
            throws Exception {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            Lock theirs = other.obtain("k");
            theirs.lockInterruptibly();
            theirs.unlock();
            Lock lock = mine.obtain("k");
            least = Math.min(least, sessionRequests(probe, waiter, lock::lockInterruptibly));
            lock.unlock();
        }
        return least;
    }

    /** Requests of the waiter's session during a lockInterruptibly behind a holder that holds for HOLD_MS. */
    private static long contended(ZkProbe probe, CuratorFramework waiter, LockRegistry<?> mine, LockRegistry<?> other)
            throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Lock theirs = other.obtain("c");
            Future<?> holding = thread.submit(() -> {
                theirs.lockInterruptibly();
                Thread.sleep(HOLD_MS);
                theirs.unlock();
                return null;
            });
            while (ZkTesting.lockNodesBelow(waiter, "/ours").isEmpty()
                    && ZkTesting.children(waiter, "/stock/c").isEmpty()) {
                Thread.sleep(5);
            }
            Lock lock = mine.obtain("c");
            long requests = sessionRequests(probe, waiter, lock::lockInterruptibly);
            lock.unlock();
            holding.get(30, TimeUnit.SECONDS);
            return requests;
        } finally {
            thread.shutdownNow();
        }
    }

    private static long sessionRequests(ZkProbe probe, CuratorFramework client, ZkProbe.ThrowingRunnable action)
            throws Exception {
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        var before = probe.packetsBySession().getOrDefault(session, 0L);
        action.run();
        var after = probe.packetsBySession().getOrDefault(session, 0L);
        return after - before;
    }
}
