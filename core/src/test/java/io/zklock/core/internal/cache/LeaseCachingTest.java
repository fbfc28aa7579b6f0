package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.ReentrantLockSupport;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * Cached leases on a real server: a kept node is granted again with no request and the same
 * token, a conflicting waiter of another client asks it back, an idle node goes after its
 * period, a lost session loses the leases in use, and close() releases what is kept.
 */
class LeaseCachingTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    private static final LeaseCaching HOUR = LeaseCaching.keepIdleFor(Duration.ofHours(1));

    private static ReentrantLockSupport mutex(CuratorFramework client, String path, LeaseCaching caching) {
        return new ReentrantLockSupport(new LockEngine(client, path, MUTEX, caching));
    }

    /** A re-grant from the cache sends no request, on the same thread or another, and keeps the node's token. */
    @Test
    void aCachedReGrantSendsNoRequestAndKeepsTheToken() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = mutex(client, "/c/a", HOUR);
            Lease first = lock.acquire();
            String node = first.nodePath();
            long token = first.fencingToken();
            first.close();
            assertEquals(LeaseState.RELEASED, first.state(), "the local lease ends at its close");
            assertEquals(1, ZkTesting.children(client, "/c/a").size(), "the node is kept");

            ZkProbe probe = new ZkProbe(server.getPort());
            long requests = probe.requestsDuring(() -> {
                for (int i = 0; i < 50; i++) {
                    try (Lease again = lock.acquire()) {
                        assertEquals(node, again.nodePath());
                        assertEquals(token, again.fencingToken());
                        assertEquals(LeaseState.HELD, again.state());
                    }
                }
                CompletableFuture<Lease> other = CompletableFuture.supplyAsync(() -> {
                    try {
                        return lock.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Lease onAnotherThread = other.get(10, TimeUnit.SECONDS);
                assertEquals(node, onAnotherThread.nodePath());
                onAnotherThread.close();
            });
            assertTrue(requests <= 1, "51 local re-grants sent " + requests + " packets (a ping at most)");
        }
    }

    /**
     * A waiter of another client queued behind an idle cached node has it let go (heard, or asked back) and is granted
     * long before the idle period ends; its token is larger; the first client then queues a new
     * node behind it instead of re-granting the node it was asked for.
     */
    @Test
    void aWaiterOfAnotherClientAsksAnIdleCachedNodeBack() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lockA = mutex(a, "/c/b", HOUR);
            ReentrantLockSupport lockB = mutex(b, "/c/b", HOUR);
            Lease first = lockA.acquire();
            long tokenA = first.fencingToken();
            String nodeA = first.nodePath();
            first.close();

            Lease granted = lockB.tryAcquire(Duration.ofSeconds(20)).orElseThrow();
            assertTrue(granted.fencingToken() > tokenA);
            assertEquals(List.of(granted.nodePath().substring("/c/b/".length())), ZkTesting.children(a, "/c/b"));

            CompletableFuture<Lease> again = CompletableFuture.supplyAsync(() -> {
                try {
                    return lockA.tryAcquire(Duration.ofSeconds(20)).orElseThrow();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("a's new node queued", Duration.ofSeconds(10), () -> ZkTesting.children(a, "/c/b").size() == 2);
            granted.close();                   // b was asked back by a's new node: b's node goes
            Lease second = again.get(20, TimeUnit.SECONDS);
            assertNotEquals(nodeA, second.nodePath());
            assertTrue(second.fencingToken() > granted.fencingToken());
            second.close();
        }
    }

    /** A node asked back while in use serves no new local lease, and goes when the one in use closes. */
    @Test
    void aNodeAskedBackWhileInUseGoesWhenItsLeaseCloses() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lockA = mutex(a, "/c/c", HOUR);
            ReentrantLockSupport lockB = mutex(b, "/c/c", LeaseCaching.off());
            Lease held = lockA.acquire();
            CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return lockB.tryAcquire(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("b asked a's node back", Duration.ofSeconds(10),
                    () -> ZkTesting.children(a, "/c/c").size() == 2 && new String(data(a, held.nodePath())).contains("asked-back-by="));
            held.close();
            Lease bLease = waiter.get(20, TimeUnit.SECONDS).orElseThrow();
            assertTrue(bLease.fencingToken() > held.fencingToken());
            bLease.close();
            assertEquals(List.of(), ZkTesting.children(a, "/c/c"), "b does not cache; a's node was deleted");
        }
    }

    /**
     * A closed local lease's guard fails although its node stays cached; the guard of the lease
     * granted again on the same node passes.
     */
    @Test
    void aClosedLocalLeaseGuardsNothingWhileItsNodeStaysCached() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            client.create().forPath("/g", new byte[0]);
            ReentrantLockSupport lock = mutex(client, "/c/g", HOUR);
            Lease first = lock.acquire();
            first.close();
            assertThrows(org.apache.zookeeper.KeeperException.NoNodeException.class,
                    () -> client.transaction().forOperations(first.guard(), client.transactionOp().setData().forPath("/g", new byte[] {1})));
            try (Lease again = lock.acquire()) {
                assertEquals(first.nodePath(), again.nodePath());
                client.transaction().forOperations(again.guard(), client.transactionOp().setData().forPath("/g", new byte[] {2}));
                assertEquals(2, client.getData().forPath("/g")[0]);
            }
        }
    }

    /** An idle node is deleted once its idle period passes. */
    @Test
    void anIdleNodeGoesAfterItsPeriod() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = mutex(client, "/c/d", LeaseCaching.keepIdleFor(Duration.ofSeconds(2)));   // outlasts a slow check
            lock.acquire().close();
            assertEquals(1, ZkTesting.children(client, "/c/d").size());
            Await.until("the idle node deleted", Duration.ofSeconds(10), () -> ZkTesting.children(client, "/c/d").isEmpty());
        }
    }

    /** Session expiry turns the leases in use LOST and empties the cache: the next acquisition makes a new node. */
    @Test
    void aLostSessionLosesTheLeasesInUseAndTheCache() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = mutex(client, "/c/e", HOUR);
            Lease held = lock.acquire();
            String node = held.nodePath();
            org.apache.curator.test.KillSession.kill(client.getZookeeperClient().getZooKeeper());
            Await.until("the lease lost", Duration.ofSeconds(20), () -> held.state() == LeaseState.LOST);
            held.close();
            try (Lease next = lock.tryAcquire(Duration.ofSeconds(20)).orElseThrow()) {
                assertNotEquals(node, next.nodePath());
                assertEquals(LeaseState.HELD, next.state());
            }
        }
    }

    /** releaseCachedNodes() deletes an idle node at once and one in use when its lease closes. */
    @Test
    void releaseCachedDeletesIdleNodesNowAndBusyOnesAtTheirClose() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = mutex(client, "/c/f", HOUR);
            lock.acquire().close();
            lock.engine().releaseCachedNodes();
            Await.until("the idle node deleted", Duration.ofSeconds(10), () -> ZkTesting.children(client, "/c/f").isEmpty());

            Lease busy = lock.acquire();
            lock.engine().releaseCachedNodes();
            assertEquals(1, ZkTesting.children(client, "/c/f").size(), "a node in use stays");
            busy.close();
            assertEquals(List.of(), ZkTesting.children(client, "/c/f"), "and goes with its lease");
        }
    }

    /** Bad settings are refused with the value named. */
    @Test
    void badIdlePeriodsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> LeaseCaching.keepIdleFor(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> LeaseCaching.keepIdleFor(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> LeaseCaching.keepIdleFor(Duration.ofHours(2)));
        assertThrows(IllegalArgumentException.class, () -> LeaseCaching.keepIdleFor(null));
    }

    private static byte[] data(CuratorFramework client, String path) {
        try {
            return client.getData().forPath(path);
        } catch (Exception e) {
            return new byte[0];
        }
    }
}
