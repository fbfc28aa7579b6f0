package io.zklock.spring.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.zklock.core.LockException;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The registry against Spring Integration's documented contract where our first version
 * strayed: a bounded map, ConcurrentModificationException for a lost lock, a failed nested
 * tryLock that keeps the outer hold, and a hook that hears a lost lease.
 */
class ZkLockRegistryContractTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final String ROOT = "/si/contract";

    private final List<CuratorFramework> clients = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private TestingServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stopServer() throws Exception {
        threads.shutdownNow();
        if (!clients.isEmpty()) {
            CuratorFramework probe = clients.get(0);
            Await.equal("lock nodes", List.of(), LONG, () -> ZkTesting.lockNodesBelow(probe, ROOT));
        }
        clients.forEach(CuratorFramework::close);
        server.close();
    }

    private CuratorFramework client(String connectString) {
        CuratorFramework c = ZkTesting.client(connectString, 30_000);
        clients.add(c);
        return c;
    }

    /**
     * Past its capacity the registry forgets the least recently used instances, never one that
     * a thread holds or waits for.
     */
    @Test
    void theMapIsBoundedAndNeverForgetsALockInUse() throws Exception {
        CuratorFramework client = client(server.getConnectString());
        ZkLockRegistry registry = new ZkLockRegistry(client, ROOT);
        assertEquals(ZkLockRegistry.DEFAULT_CAPACITY, registry.cacheCapacity());
        assertEquals(30_000, ZkLockRegistry.DEFAULT_CAPACITY, "Spring Integration's ZooKeeper registry's default");
        assertThrows(IllegalArgumentException.class, () -> registry.setCacheCapacity(0));
        registry.setCacheCapacity(4);

        ZkRegistryLock held = registry.obtain("held");
        held.lock();
        ZkLockRegistry other = new ZkLockRegistry(client(server.getConnectString()), ROOT);
        DistributedLock theirs = other.obtain("waited");
        ExecutorService theirThread = Executors.newSingleThreadExecutor();
        CompletableFuture.runAsync(theirs::lock, theirThread).get(20, TimeUnit.SECONDS);
        ZkRegistryLock waited = registry.obtain("waited");
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
            waited.lock();
            waited.unlock();
        }, threads);
        Await.equal("queued nodes", 3, LONG, () -> ZkTesting.lockNodesBelow(client, ROOT).size());

        ZkRegistryLock first = registry.obtain("k0");
        for (int i = 1; i < 50; i++) {
            registry.obtain("k" + i);
            assertTrue(registry.size() <= 4, "size " + registry.size() + " over the capacity with 2 locks in use");
        }
        assertSame(held, registry.obtain("held"), "a held lock was forgotten");
        assertSame(waited, registry.obtain("waited"), "a lock with a waiter was forgotten");
        assertNotSame(first, registry.obtain("k0"), "the least recently used was kept");

        ZkRegistryLock recent = registry.obtain("k49");    // used after k0
        ZkRegistryLock older = registry.obtain("k0");
        assertSame(recent, registry.obtain("k49"));
        registry.obtain("x");                                 // forgets the least recently used unused one: k0
        assertSame(recent, registry.obtain("k49"), "the most recently used was forgotten");
        assertNotSame(older, registry.obtain("k0"), "the least recently used was kept");

        held.unlock();
        CompletableFuture.runAsync(theirs::unlock, theirThread).get(20, TimeUnit.SECONDS);
        theirThread.shutdown();
        waiter.get(20, TimeUnit.SECONDS);
        registry.obtain("y");
        registry.obtain("z");
        assertEquals(4, registry.size(), "unused again: back to the capacity");
        other.close();
        registry.close();
    }

    /**
     * While the lease is SUSPENDED longer than the wait, a nested tryLock(wait) fails and the
     * outer hold stays: the thread still holds the lock once the connection is back, and its
     * one unlock releases it (java.util.concurrent's rule: a failed tryLock touches no hold).
     */
    @Test
    void aFailedNestedTryLockKeepsTheOuterHold() throws Exception {
        client(server.getConnectString());     // the probe of the tear-down
        try (FaultProxy proxy = FaultProxy.to(server.getConnectString())) {
            ZkLockRegistry registry = new ZkLockRegistry(client(proxy.connectString()), ROOT);
            ZkRegistryLock lock = registry.obtain("nested");
            lock.lock();
            long token = lock.fencingToken();
            proxy.cut();
            Await.until("suspended", LONG, () -> !lock.isHeldByCurrentThread());
            assertFalse(lock.tryLock(200, TimeUnit.MILLISECONDS), "re-entered a suspended lease");
            assertFalse(lock.tryLock(), "re-entered a suspended lease");
            proxy.heal();
            Await.until("held again", LONG, lock::isHeldByCurrentThread);
            assertEquals(token, lock.fencingToken(), "the outer hold's node");
            lock.unlock();
            assertThrows(IllegalMonitorStateException.class, lock::unlock, "the failed tryLock left a count behind");
            registry.close();
        }
    }

    /**
     * A held lock whose node is deleted by another client (an operator's forced revocation) is
     * lost, with the registry watching its nodes: the registry's and the lock's listeners hear it
     * once, with its node and token, and the holder's unlock throws
     * ConcurrentModificationException caused by a LockException.
     */
    @Test
    void aLockLostToADeletedNodeIsHeardAndItsUnlockThrows() throws Exception {
        CuratorFramework client = client(server.getConnectString());
        ZkLockRegistry registry = new ZkLockRegistry(client, ROOT);
        registry.setWatchForcedRevocation(true);
        List<String> heard = new CopyOnWriteArrayList<>();
        registry.addLockLostListener((lock, node, token) -> heard.add("registry " + lock.key() + " " + node + " " + token));
        ZkRegistryLock lock = registry.obtain("revoked");
        lock.addLockLostListener((l, node, token) -> heard.add("lock " + l.key() + " " + node + " " + token));
        lock.lock();
        long token = lock.fencingToken();
        String node = ZkTesting.lockNodesBelow(client, ROOT).get(0);
        client(server.getConnectString()).delete().forPath(node);
        Await.until("the loss is heard", LONG, () -> heard.size() == 2);
        assertEquals(List.of("lock revoked " + node + " " + token, "registry revoked " + node + " " + token), heard);
        ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class, lock::unlock);
        assertTrue(e.getCause() instanceof LockException, String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains(node), e.getCause().getMessage());
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertTrue(lock.tryLock(), "the thread may lock again");
        lock.unlock();
        assertEquals(2, heard.size(), "a released lock was reported lost");
        registry.close();
    }
}
