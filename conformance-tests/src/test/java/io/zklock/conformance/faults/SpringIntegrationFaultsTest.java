package io.zklock.conformance.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.testing.FaultProxy;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.spring.integration.ZkLockRegistry;
import io.zklock.spring.integration.ZkRegistryLock;
import io.zklock.testing.Await;
import io.zklock.testing.Sessions;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * zklock-spring-integration's {@link ZkLockRegistry} under faults of one client's traffic (a
 * proxy): lost replies to the create of an acquisition and to the delete of an unlock and of
 * a TTL's release, a connection cut and a session expiry while a thread waits in
 * {@code lockInterruptibly()}, a frozen connection under {@code tryLock(time)}, and a key's
 * directory reaped and made again by another client. Each time:
 * never two holders, nothing left behind, the key free again afterwards.
 */
class SpringIntegrationFaultsTest extends ServerFaults {
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private String keyDir() {
        return path + "/k";
    }

    /** Whether a fresh client's registry can take and release the key now. */
    private boolean lockable(ZkLockRegistry registry) throws Exception {
        return threads.submit(() -> {
            ZkRegistryLock lock = registry.obtain("k");
            boolean got = lock.tryLock();
            if (got) {
                lock.unlock();
            }
            return got;
        }).get(60, TimeUnit.SECONDS);
    }

    /** The reply to the create of an acquisition is lost: the registry finds its node again, holds once, one node. */
    @Test
    void aLostReplyToTheCreateStillLocksOnceWithOneNode() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        ZkLockRegistry registry = new ZkLockRegistry(proxied(proxy, SESSION_MS), path);
        ZkLockRegistry other = new ZkLockRegistry(client(SESSION_MS), path);
        proxy.dropReplyTo(OpCode.create2, node -> node != null && node.startsWith(keyDir() + "/"));
        ZkRegistryLock lock = registry.obtain("k");
        lock.lockInterruptibly();
        assertEquals(1, proxy.repliesDropped());
        assertTrue(lock.isHeldByCurrentThread());
        assertEquals(1, nodes().size(), nodes().toString());
        assertFalse(lockable(other), "a second holder");
        lock.unlock();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
        assertTrue(lockable(other));
    }

    /** The reply to the delete of an unlock is lost: the node still goes, and the key is free. */
    @Test
    void aLostReplyToTheUnlocksDeleteStillFreesTheKey() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        ZkLockRegistry registry = new ZkLockRegistry(proxied(proxy, SESSION_MS), path);
        ZkLockRegistry other = new ZkLockRegistry(client(SESSION_MS), path);
        ZkRegistryLock lock = registry.obtain("k");
        lock.lock();
        proxy.dropReplyTo(OpCode.delete, node -> node != null && node.startsWith(keyDir() + "/"));
        lock.unlock();
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        Await.equal("nodes left", List.of(), LONG, this::nodes);
        Await.equal("replies dropped", 1, LONG, proxy::repliesDropped);   // the server deleted before the proxy took the reply
        Await.until("the key is free", LONG, () -> {
            try {
                return lockable(other);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    /** The reply to the delete of a TTL's release is lost: the node still goes; the holder's late unlock says it was lost. */
    @Test
    void aLostReplyToTheTtlReleaseStillFreesTheKey() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        ZkLockRegistry registry = new ZkLockRegistry(proxied(proxy, SESSION_MS), path);
        ZkLockRegistry other = new ZkLockRegistry(client(SESSION_MS), path);
        ZkRegistryLock lock = registry.obtain("k");
        proxy.dropReplyTo(OpCode.delete, node -> node != null && node.startsWith(keyDir() + "/"));
        lock.lock(Duration.ofMillis(500));
        Await.until("the TTL ran out", LONG, () -> !lock.isHeldByCurrentThread());
        Await.equal("nodes left", List.of(), LONG, this::nodes);
        Await.equal("replies dropped", 1, LONG, proxy::repliesDropped);   // the server deleted before the proxy took the reply
        assertThrows(ConcurrentModificationException.class, lock::unlock, "the late unlock of a lock whose TTL ran out");
        assertTrue(lockable(other));
        registry.close();
    }

    /**
     * A registry's TTL timer never waits for ZooKeeper: while the delete of one expired hold
     * gets no reply, another hold's TTL still ends on time (well within the close's own wait
     * of 10 s for its delete).
     */
    @Test
    void aStuckTtlReleaseDelaysNoOtherTtl() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        ZkLockRegistry registry = new ZkLockRegistry(proxied(proxy, SESSION_MS), path);
        CountDownLatch deleting = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        proxy.beforeRequest((opcode, node) -> {
            if (opcode == OpCode.delete && node != null && node.startsWith(path + "/a/")) {
                deleting.countDown();
                answer.await();
            }
        });
        ZkRegistryLock a = registry.obtain("a");
        ZkRegistryLock b = registry.obtain("b");
        a.lock(Duration.ofSeconds(1));
        b.lock(Duration.ofMillis(1_500));
        try {
            assertTrue(deleting.await(20, TimeUnit.SECONDS), "a's TTL never released it");
            Await.until("b's TTL ended while a's delete has no reply", Duration.ofSeconds(5), () -> !b.isHeldByCurrentThread());
            assertEquals(1, answer.getCount(), "a's delete was answered meanwhile");
        } finally {
            answer.countDown();
        }
        assertThrows(ConcurrentModificationException.class, a::unlock);
        assertThrows(ConcurrentModificationException.class, b::unlock);
        Await.equal("nodes left", List.of(), LONG, this::nodes);
        registry.close();
    }

    /** A waiter in lockInterruptibly whose connection is cut for a second is granted once at the release, with one node. */
    @Test
    void aWaiterRidesOutACutConnection() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        ZkRegistryLock waiting = new ZkLockRegistry(proxied(proxy, SESSION_MS), path).obtain("k");
        ZkRegistryLock holding = new ZkLockRegistry(client(SESSION_MS), path).obtain("k");
        holding.lock();
        AtomicInteger grants = new AtomicInteger();
        Future<?> waiter = threads.submit(() -> {
            waiting.lockInterruptibly();
            grants.incrementAndGet();
            waiting.unlock();
            return null;
        });
        awaitNodes(2);
        proxy.cut();
        Thread.sleep(1_000);
        proxy.heal();
        Await.until("the waiter reconnected", LONG, () -> proxy.connectionsAccepted() >= 2);
        assertEquals(0, grants.get(), "granted while the holder holds");
        assertEquals(2, nodes().size(), "one node per client: " + nodes());
        holding.unlock();
        waiter.get(60, TimeUnit.SECONDS);
        assertEquals(1, grants.get());
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /** A waiter whose session expires queues again on the new session and is granted at the release; nothing is orphaned. */
    @Test
    void aWaiterWhoseSessionExpiresIsStillGranted() throws Exception {
        CuratorFramework waiterClient = client(SESSION_MS);
        ZkRegistryLock waiting = new ZkLockRegistry(waiterClient, path).obtain("k");
        ZkRegistryLock holding = new ZkLockRegistry(client(SESSION_MS), path).obtain("k");
        holding.lock();
        CompletableFuture<Long> granted = new CompletableFuture<>();
        threads.submit(() -> {
            waiting.lockInterruptibly();
            granted.complete(waiting.fencingToken());
            waiting.unlock();
            return null;
        });
        awaitNodes(2);
        long before = currentSession(waiterClient);
        Sessions.expire(waiterClient, server.getConnectString());
        Await.until("a new session", LONG, () -> currentSession(waiterClient) != before && currentSession(waiterClient) != 0);
        Await.equal("queued again", 2, LONG, () -> nodes().size());
        assertFalse(granted.isDone());
        holding.unlock();
        assertTrue(granted.get(60, TimeUnit.SECONDS) > 0);
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * tryLock(time) on a frozen connection returns false about when its time is up, and leaves
     * nothing once healed: the create it had in flight may land after the heal, and is then
     * deleted by the request's cleanup, so the key is free again soon after, with no node left.
     */
    @Test
    void tryLockKeepsItsTimeOnAFrozenConnection() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        ZkRegistryLock lock = new ZkLockRegistry(proxied(proxy, SESSION_MS), path).obtain("k");
        ZkLockRegistry other = new ZkLockRegistry(client(SESSION_MS), path);
        proxy.freeze();
        long start = System.nanoTime();
        boolean got = lock.tryLock(1, TimeUnit.SECONDS);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        proxy.heal();
        assertFalse(got, "granted on a frozen connection");
        assertTrue(tookMs < 10_000, "tryLock(1 s) took " + tookMs + " ms");
        // the create the freeze held reaches the server at the heal, after which the withdrawn request deletes it:
        // "no node" can be seen before it lands, so wait for the key to be free, then for no node
        Await.until("the key is free once healed", LONG, () -> {
            try {
                return lockable(other);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * A key's directory, reaped once empty (deleted here as the server's reaper would) and made
     * again by another client whose node restarts the directory's sequence, never lets the
     * first client believe it is alone: its tryLock is refused while the other holds.
     */
    @Test
    void aReapedAndRemadeKeyDirectoryNeverGrantsTwice() throws Exception {
        ZkLockRegistry first = new ZkLockRegistry(client(SESSION_MS), path);
        ZkLockRegistry second = new ZkLockRegistry(client(SESSION_MS), path);
        ZkRegistryLock mine = first.obtain("k");
        for (int i = 0; i < 3; i++) {
            mine.lock();
            mine.unlock();
        }
        Await.equal("nodes left", List.of(), LONG, this::nodes);
        checker.delete().forPath(keyDir());
        ZkRegistryLock theirs = second.obtain("k");
        Future<Boolean> held = threads.submit(() -> theirs.tryLock());
        assertTrue(held.get(60, TimeUnit.SECONDS));
        assertFalse(mine.tryLock(), "granted while another client holds the remade directory's lock");
        assertFalse(mine.tryLock(200, TimeUnit.MILLISECONDS));
        threads.submit(() -> {
            theirs.unlock();
            return null;
        }).get(60, TimeUnit.SECONDS);
        assertTrue(mine.tryLock(10, TimeUnit.SECONDS));
        mine.unlock();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }
}
