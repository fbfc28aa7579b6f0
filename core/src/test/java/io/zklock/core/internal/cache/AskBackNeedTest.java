package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiter of a lock of several holders (a semaphore's shape) asks back only the cached nodes
 * it needs gone, the first in queue order, and every other cached node ahead once it has
 * waited the escalation bound ({@code LeaseCaches.ESCALATION}): a permit kept idle by a cache waits at most that long
 * for a waiter that needs it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)   // an unbounded acquire() that hangs fails the test
class AskBackNeedTest {
    private static final LeaseCaching HOUR = LeaseCaching.keepIdleFor(Duration.ofHours(1));
    /** Grants the first maxLeases nodes; the others watch the directory. */
    private static final LockDriver FIRST_N = (sorted, ours, maxLeases) ->
            LockDriver.indexOf(sorted, ours) < maxLeases ? Decision.granted() : Decision.watchDirectory();

    private static LockEngine permits(CuratorFramework client, String path, int max) {
        return new LockEngine(client, path, new RecipeDescriptor("sem", FIRST_N, max), HOUR);
    }

    /**
     * A semaphore's head waiter behind two idle cached permits of another client asks one
     * back, not both: it is granted and the other client keeps the other permit cached.
     */
    @Test
    void aSemaphoreWaiterAsksBackOnlyThePermitsItNeeds() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engineA = permits(a, "/w/h", 2);
            CacheProbe.escalateAfter(b, Duration.ofMinutes(1));   // no escalation within the test, however slow the machine
            LockEngine engineB = new LockEngine(b, "/w/h", new RecipeDescriptor("sem", FIRST_N, 2), LeaseCaching.off());
            Lease one = engineA.acquire();
            Lease two = engineA.acquire();
            one.close();
            two.close();
            assertEquals(2, ZkTesting.children(a, "/w/h").size(), "both permits kept");
            Lease granted = engineB.tryAcquire(Duration.ofSeconds(20)).orElseThrow();
            List<String> aNodes = ZkTesting.children(a, "/w/h").stream()
                    .filter(name -> !granted.nodePath().endsWith("/" + name)).toList();
            assertEquals(1, aNodes.size(), "one permit a still keeps: " + aNodes);
            byte[] data = a.getData().forPath("/w/h/" + aNodes.get(0));
            assertFalse(new String(data, StandardCharsets.UTF_8).contains("asked-back-by="),
                    "the permit b did not need was asked back too");
            granted.close();
        }
    }

    /**
     * The permit a semaphore waiter asked is in use; another client's cached permit is idle:
     * after the escalation the waiter asks that one too, and is granted while the first is
     * still in use.
     */
    @Test
    void aSemaphoreWaiterAsksTheOtherCachedPermitsWhenTheOneItAskedStaysBusy() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework c = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engineA = permits(a, "/w/i", 2);
            LockEngine engineC = permits(c, "/w/i", 2);
            LockEngine engineB = new LockEngine(b, "/w/i", new RecipeDescriptor("sem", FIRST_N, 2), LeaseCaching.off());
            Lease busy = engineA.acquire();    // first in queue order: the one a waiter needing one asks
            engineC.acquire().close();         // second: cached and idle
            Lease granted = engineB.tryAcquire(Duration.ofSeconds(20)).orElseThrow();
            assertEquals(LeaseState.HELD, busy.state(), "granted while the first permit is still in use");
            granted.close();
            busy.close();
        }
    }
}
