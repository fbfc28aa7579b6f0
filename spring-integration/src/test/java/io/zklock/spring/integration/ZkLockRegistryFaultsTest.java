package io.zklock.spring.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.testing.Await;
import io.zklock.testing.QuietPorts;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The registry under server faults, each test on its own server: the server down and back,
 * session expiry of a holder and of a leader, connection loss of a waiter.
 */
class ZkLockRegistryFaultsTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final String ROOT = "/si/faults";

    private final List<CuratorFramework> clients = new ArrayList<>();
    private final List<ZkLockRegistry> registries = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private TestingServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new TestingServer(QuietPorts.next(), true);
    }

    @AfterEach
    void stopServer() throws Exception {
        threads.shutdownNow();
        registries.forEach(ZkLockRegistry::close);
        if (!clients.isEmpty()) {
            CuratorFramework probe = clients.get(0);
            Await.equal("lock nodes", List.of(), LONG, () -> ZkTesting.lockNodesBelow(probe, ROOT));
        }
        clients.forEach(CuratorFramework::close);
        server.close();
    }

    private CuratorFramework client(int sessionTimeoutMs) {
        CuratorFramework c = ZkTesting.client(server.getConnectString(), sessionTimeoutMs);
        clients.add(c);
        return c;
    }

    private ZkLockRegistry registry(CuratorFramework client) {
        ZkLockRegistry r = new ZkLockRegistry(client, ROOT);
        registries.add(r);
        return r;
    }

    private <T> T onOtherThread(Callable<T> task) throws Exception {
        return threads.submit(task).get(60, TimeUnit.SECONDS);
    }

    private boolean tried(Callable<Boolean> attempt) throws Exception {
        return onOtherThread(attempt);
    }

    /**
     * Server down and back within the session: tryLock(t) by another client returns false in
     * about t (it neither throws nor hangs); the holder's re-entrant tryLock(t) waits out the
     * outage and succeeds; once the holder unlocks, the other client is granted.
     */
    @Test
    void serverDownAndBackWithinTheSession() throws Exception {
        CuratorFramework holderClient = client(20_000);
        ZkRegistryLock held = registry(holderClient).obtain("k");
        DistributedLock theirs = registry(client(20_000)).obtain("k");
        held.lock();
        server.stop();
        Await.until("the holder's lease is suspended", LONG, () -> !held.isHeldByCurrentThread());
        long start = System.nanoTime();
        assertFalse(tried(() -> theirs.tryLock(300, TimeUnit.MILLISECONDS)), "granted while the holder holds");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs < 10_000, "tryLock(300 ms) took " + tookMs + " ms while the server was down");

        threads.submit(() -> {
            Thread.sleep(500);
            server.restart();
            return null;
        });
        assertTrue(held.tryLock(20, TimeUnit.SECONDS), "re-entry rides out the outage");
        held.unlock();
        assertTrue(held.isHeldByCurrentThread());
        held.unlock();
        assertTrue(tried(() -> {
            boolean got = theirs.tryLock(20, TimeUnit.SECONDS);
            theirs.unlock();
            return got;
        }));
    }

    /** A waiter in lockInterruptibly rides out the server going down and back, and is granted once, with one node. */
    @Test
    void aWaiterRidesOutTheServerGoingDownAndBack() throws Exception {
        CuratorFramework holderClient = client(20_000);
        ZkRegistryLock held = registry(holderClient).obtain("w");
        ZkRegistryLock theirs = registry(client(20_000)).obtain("w");
        held.lock();
        AtomicInteger grants = new AtomicInteger();
        Future<?> waiter = threads.submit(() -> {
            theirs.lockInterruptibly();
            grants.incrementAndGet();
            theirs.unlock();
            return null;
        });
        Await.equal("queued nodes", 2, LONG, () -> ZkTesting.lockNodesBelow(holderClient, ROOT).size());
        server.stop();
        Thread.sleep(300);
        server.restart();
        Await.until("reconnected", LONG, () -> holderClient.getZookeeperClient().isConnected());
        Await.equal("queued nodes after the outage", 2, LONG, () -> ZkTesting.lockNodesBelow(holderClient, ROOT).size());
        assertEquals(0, grants.get());
        held.unlock();
        waiter.get(30, TimeUnit.SECONDS);
        assertEquals(1, grants.get());
    }

    /**
     * Session expiry of a holder: another client is granted; the holder's re-entrant tryLock,
     * waiting while its lease is SUSPENDED, returns false once the lease is LOST and drops the
     * lost hold (unlock then throws IllegalMonitorStateException), and its next tryLock is a
     * fresh acquisition.
     */
    @Test
    void sessionExpiryMakesTheReentrantTryLockFalseAndDropsTheHold() throws Exception {
        CuratorFramework holderClient = client(20_000);
        ZkRegistryLock held = registry(holderClient).obtain("e");
        DistributedLock theirs = registry(client(20_000)).obtain("e");
        held.lock();
        Sessions.expire(holderClient, server.getConnectString());
        assertTrue(tried(() -> theirs.tryLock(20, TimeUnit.SECONDS)), "the expired holder's node is gone");
        Await.until("the holder heard of the loss", LONG, () -> !held.isHeldByCurrentThread());
        assertFalse(held.tryLock(20, TimeUnit.SECONDS), "a lost hold is not re-entered");
        assertThrows(IllegalMonitorStateException.class, held::unlock, "the lost hold was dropped");
        assertFalse(held.tryLock(), "a fresh attempt, refused while the other client holds");
        onOtherThread(() -> {
            theirs.unlock();
            return null;
        });
        assertTrue(held.tryLock(20, TimeUnit.SECONDS));
        held.unlock();
    }

    /**
     * Session expiry of a holder that unlocks without re-entering: lock() refuses to re-enter,
     * and each unlock releases and throws ConcurrentModificationException, whose cause names
     * the lost node.
     */
    @Test
    void unlockAfterSessionExpiryThrowsLost() throws Exception {
        CuratorFramework holderClient = client(20_000);
        ZkRegistryLock held = registry(holderClient).obtain("u");
        held.lock();
        held.lock();
        Sessions.expire(holderClient, server.getConnectString());
        Await.until("the holder heard of the loss", LONG, () -> !held.isHeldByCurrentThread());
        assertThrows(IllegalStateException.class, held::lock, "lock() does not re-enter a lost hold");
        ConcurrentModificationException inner = assertThrows(ConcurrentModificationException.class, held::unlock);
        assertTrue(inner.getMessage().contains("lost"), inner.getMessage());
        assertTrue(inner.getCause().getMessage().contains("/u/"), inner.getCause().getMessage());
        assertThrows(ConcurrentModificationException.class, held::unlock);
        assertThrows(IllegalMonitorStateException.class, held::unlock);
        assertTrue(held.tryLock(20, TimeUnit.SECONDS), "the thread may lock again");
        held.unlock();
    }

    /**
     * LockRegistryLeaderInitiator on the registry: the leader whose session expires is revoked
     * and the other candidate is granted; when that one steps down, the first leads again.
     */
    @Test
    void leaderInitiatorRevokesALeaderWhoseSessionExpiredAndItLeadsAgainLater() throws Exception {
        CuratorFramework firstClient = client(20_000);
        Recorder first = new Recorder("first");
        Recorder second = new Recorder("second");
        LockRegistryLeaderInitiator firstInitiator = initiator(registry(firstClient), first);
        firstInitiator.start();
        Await.equal("first granted", 1, LONG, first.granted::get);
        LockRegistryLeaderInitiator secondInitiator = initiator(registry(client(20_000)), second);
        secondInitiator.start();
        try {
            Thread.sleep(300);      // a few heartbeats: the leader keeps leading
            assertEquals(0, first.revoked.get());
            assertEquals(0, second.granted.get());

            Sessions.expire(firstClient, server.getConnectString());
            Await.equal("first revoked", 1, LONG, first.revoked::get);
            Await.equal("second granted", 1, LONG, second.granted::get);
            assertTrue(secondInitiator.getContext().isLeader());

            secondInitiator.stop();
            Await.equal("first granted again", 2, LONG, first.granted::get);
            assertTrue(firstInitiator.getContext().isLeader());
            assertEquals(1, second.granted.get());
        } finally {
            firstInitiator.stop();
            secondInitiator.stop();
        }
    }

    private static LockRegistryLeaderInitiator initiator(ZkLockRegistry registry, Recorder candidate) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(20);
        return initiator;
    }

    /** A candidate that counts its grants and revocations. */
    private static final class Recorder extends DefaultCandidate {
        final AtomicInteger granted = new AtomicInteger();
        final AtomicInteger revoked = new AtomicInteger();

        Recorder(String id) {
            super(id, "leader");
        }

        @Override
        public void onGranted(Context ctx) {
            granted.incrementAndGet();
        }

        @Override
        public void onRevoked(Context ctx) {
            revoked.incrementAndGet();
        }
    }

    /**
     * Suspended then lost: a re-entrant tryLock(30 s) waiting on a suspended lease returns false
     * when the session is lost (a 2 s session), well before its 30 s, and drops the hold.
     */
    @Test
    void aReentryWaitingOnASuspendedLeaseFailsWhenTheSessionIsLost() throws Exception {
        CuratorFramework holderClient = client(2_000);
        AtomicInteger lostEvents = new AtomicInteger();
        holderClient.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST) {
                lostEvents.incrementAndGet();
            }
        });
        ZkRegistryLock held = registry(holderClient).obtain("s");
        held.lock();
        server.stop();
        Await.until("the holder's lease is suspended", LONG, () -> !held.isHeldByCurrentThread());
        assertEquals(0, lostEvents.get(), "lost before the re-entry began to wait");
        long start = System.nanoTime();
        assertFalse(held.tryLock(30, TimeUnit.SECONDS), "re-entered a lease whose session was lost");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // false before the 30 s were up: the lease was lost, not merely still suspended
        assertTrue(tookMs < 25_000, "the re-entry gave up only at its deadline, after " + tookMs + " ms");
        Await.until("Curator reports the session lost", LONG, () -> lostEvents.get() > 0);
        assertThrows(IllegalMonitorStateException.class, held::unlock);
        server.restart();
        Await.until("reconnected", LONG, () -> holderClient.getZookeeperClient().isConnected());
        assertTrue(held.tryLock(20, TimeUnit.SECONDS));
        held.unlock();
    }
}
