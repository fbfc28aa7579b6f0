package io.zklock.mutex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockException;
import io.zklock.core.Participant;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.listen.StandardListenerManager;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ZkMutex} on a real server: the API contract, bad input and connection handling. */
class ZkMutexTest extends EmbeddedServerTest {

    private int nodes(String path) {
        return ZkTesting.children(client, path).size();
    }

    /** An acquisition creates one node; closing the lease deletes it and marks it RELEASED. */
    @Test
    void acquireCreatesOneNodeAndCloseDeletesIt() throws Exception {
        ZkMutex mutex = new ZkMutex(client, "/locks/a");
        Lease lease = mutex.acquire();
        assertEquals(LeaseState.HELD, lease.state());
        assertTrue(lease.isValid());
        assertTrue(lease.nodePath().startsWith("/locks/a/_c_"), lease.nodePath());
        assertEquals(client.checkExists().forPath(lease.nodePath()).getCzxid(), lease.fencingToken());
        assertTrue(mutex.isHeldByCurrentThread());
        assertEquals(1, nodes("/locks/a"));
        lease.close();
        assertEquals(LeaseState.RELEASED, lease.state());
        assertFalse(mutex.isHeldByCurrentThread());
        assertEquals(0, nodes("/locks/a"));
        assertEquals("/locks/a", mutex.path());
    }

    /** The constructor names a null client and every kind of invalid path. */
    @ParameterizedTest
    @ValueSource(strings = {"", "locks/a", "/locks/a/", "/locks//a", "/locks/./a", "/locks/../a", "/", "/zookeeper",
        "/zookeeper/x", "/locks/\u0000a"})
    void invalidPathsAreRefusedWithTheirName(String path) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ZkMutex(client, path));
        assertTrue(e.getMessage().contains("lock path"), e.getMessage());
    }

    /** A null client or a null path is refused at construction. */
    @Test
    void nullArgumentsAreRefused() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ZkMutex(null, "/a"))
                .getMessage().contains("client"));
        assertThrows(IllegalArgumentException.class, () -> new ZkMutex(client, null));
    }

    /** Null and negative timeouts are refused, by the blocking and the asynchronous call, and leave no node. */
    @Test
    void badTimeoutsAreRefusedAndLeaveNoNode() {
        ZkMutex mutex = new ZkMutex(client, "/locks/t");
        assertThrows(IllegalArgumentException.class, () -> mutex.tryAcquire(null));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> mutex.tryAcquire(Duration.ofMillis(-1)));
        assertTrue(negative.getMessage().contains("PT-0.001S"), negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> mutex.acquireAsync(null));
        assertThrows(IllegalArgumentException.class, () -> mutex.acquireAsync(Duration.ofSeconds(-5)));
        assertEquals(0, nodes("/locks/t"));
    }

    /** A client that was never started is a clear IllegalStateException, not a hang or a timeout. */
    @Test
    void unstartedClientIsRefused() {
        try (CuratorFramework latent = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(10))) {
            ZkMutex mutex = new ZkMutex(latent, "/locks/u");
            IllegalStateException e = assertThrows(IllegalStateException.class, mutex::acquire);
            assertTrue(e.getMessage().contains("LATENT"), e.getMessage());
        }
    }

    /** Foreign and malformed children in the lock directory are ignored and left alone. */
    @Test
    void foreignChildrenAreIgnored() throws Exception {
        client.create().creatingParentsIfNeeded().forPath("/locks/f/readme", "not a lock".getBytes());
        client.create().forPath("/locks/f/lock-0000000000");
        client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath("/locks/f/_c_not-a-uuid-lock-");
        ZkMutex mutex = new ZkMutex(client, "/locks/f");
        try (Lease lease = mutex.tryAcquire(LONG).orElseThrow()) {
            assertTrue(lease.isValid());
            assertEquals(1, mutex.participants().size());
        }
        assertEquals(3, nodes("/locks/f"));
    }

    /** Re-entry returns a lease on the same node, and close is idempotent and may run on another thread. */
    @Test
    void reentryAndCloseFromAnotherThread() throws Exception {
        ZkMutex mutex = new ZkMutex(client, "/locks/r");
        Lease outer = mutex.acquire();
        Lease inner = mutex.tryAcquire(Duration.ZERO).orElseThrow();
        assertEquals(outer.nodePath(), inner.nodePath());
        assertEquals(outer.fencingToken(), inner.fencingToken());
        assertEquals(2, mutex.holdCount());
        Thread closer = new Thread(inner::close);
        closer.start();
        closer.join();
        inner.close();
        assertEquals(LeaseState.RELEASED, inner.state());
        assertEquals(LeaseState.HELD, outer.state());
        assertEquals(1, nodes("/locks/r"));
        outer.close();
        outer.close();
        assertEquals(0, nodes("/locks/r"));
        assertEquals(0, mutex.holdCount());
    }

    /** acquireAsync never re-enters: a holding thread's zero-timeout async request times out. */
    @Test
    void acquireAsyncNeverReenters() throws Exception {
        ZkMutex mutex = new ZkMutex(client, "/locks/async");
        try (Lease held = mutex.acquire()) {
            CompletableFuture<Lease> again = mutex.acquireAsync(Duration.ZERO);
            ExecutionException e = assertThrows(ExecutionException.class, () -> again.get(30, TimeUnit.SECONDS));
            assertInstanceOf(TimeoutException.class, e.getCause());
            assertTrue(held.isValid());
        }
        Await.equal("nodes", 0, LONG, () -> nodes("/locks/async"));
    }

    /** Another client's mutex on the same path waits for the holder and gets a larger token. */
    @Test
    void secondClientWaitsAndGetsALargerToken() throws Exception {
        ZkMutex mine = new ZkMutex(client, "/locks/two");
        ZkMutex theirs = new ZkMutex(other, "/locks/two");
        Lease first = mine.acquire();
        assertEquals(Optional.empty(), theirs.tryAcquire(Duration.ofMillis(50)));
        CompletableFuture<Lease> waiting = theirs.acquireAsync(LONG);
        Await.equal("waiter queued", 2, LONG, () -> nodes("/locks/two"));
        assertFalse(waiting.isDone());
        first.close();
        try (Lease second = waiting.get(30, TimeUnit.SECONDS)) {
            assertTrue(second.fencingToken() > first.fencingToken());
        }
    }

    /** The JUC view locks, re-enters, unlocks in order, and refuses misuse clearly. */
    @Test
    void lockViewBehavesLikeAReentrantLock() throws Exception {
        ZkMutex mutex = new ZkMutex(client, "/locks/juc");
        Lock lock = mutex.asLock();
        assertSame(lock, mutex.asLock());
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
        lock.lock();
        assertTrue(lock.tryLock());
        assertTrue(lock.tryLock(1, TimeUnit.SECONDS));
        assertEquals(3, mutex.holdCount());
        lock.unlock();
        lock.unlock();
        assertTrue(mutex.isHeldByCurrentThread());
        lock.unlock();
        assertFalse(mutex.isHeldByCurrentThread());
        assertEquals(0, nodes("/locks/juc"));
        ZkMutex theirs = new ZkMutex(other, "/locks/juc");
        try (Lease held = theirs.acquire()) {
            assertTrue(held.isValid());
            assertFalse(lock.tryLock());
            assertFalse(lock.tryLock(20, TimeUnit.MILLISECONDS));
        }
    }

    /** Status: participants list holder then waiter, with the owner data each node carries. */
    @Test
    void participantsShowHolderAndWaiterWithOwners() throws Exception {
        ZkMutex mine = new ZkMutex(client, "/locks/status");
        ZkMutex theirs = new ZkMutex(other, "/locks/status");
        try (Lease held = mine.acquire()) {
            CompletableFuture<Lease> waiting = theirs.acquireAsync(LONG);
            Await.equal("waiter queued", 2, LONG, () -> nodes("/locks/status"));
            List<Participant> participants = mine.participants();
            assertEquals(2, participants.size());
            assertTrue(participants.get(0).holding());
            assertFalse(participants.get(1).holding());
            assertEquals(held.nodePath(), participants.get(0).nodePath());
            assertEquals(Thread.currentThread().getName(), participants.get(0).owner().thread());
            assertEquals(ProcessHandle.current().pid(), participants.get(0).owner().pid());
            assertEquals("mutex", participants.get(1).mode());
            waiting.cancel(true);
        }
        Await.equal("nodes", 0, LONG, () -> nodes("/locks/status"));
        assertEquals(List.of(), mine.participants());
    }

    /** Connection loss suspends a held lease and reconnection within the session restores it; listeners hear both. */
    @Test
    void connectionLossSuspendsAndReconnectionRestores() throws Exception {
        ZkMutex mutex = new ZkMutex(client, "/locks/conn");
        Lease lease = mutex.acquire();
        List<LeaseState> told = new CopyOnWriteArrayList<>();
        lease.addListener((l, s) -> told.add(s));
        server.stop();
        Await.until("lease SUSPENDED", LONG, () -> lease.state() == LeaseState.SUSPENDED);
        assertFalse(lease.isValid());
        server.restart();
        Await.until("lease HELD again", LONG, () -> lease.state() == LeaseState.HELD);
        // listeners are told after the state changes, on another thread: wait for the telling, not only the state
        Await.equal("states told", List.of(LeaseState.SUSPENDED, LeaseState.HELD), LONG, () -> List.copyOf(told));
        lease.close();
        Await.until("listener told RELEASED", LONG, () -> told.contains(LeaseState.RELEASED));
        assertEquals(0, nodes("/locks/conn"));
    }

    /** A waiter whose client is closed fails with LockException, not a timeout, and a held lease turns LOST. */
    @Test
    void closingTheClientFailsWaitersAndLosesLeases() throws Exception {
        CuratorFramework doomed = ZkTesting.client(server.getConnectString(), 20_000);
        ZkMutex holder = new ZkMutex(doomed, "/locks/closed");
        ZkMutex waiter = new ZkMutex(doomed, "/locks/closed");
        Lease held = holder.acquire();
        CompletableFuture<Lease> waiting = waiter.acquireAsync(LONG);
        Await.equal("waiter queued", 2, LONG, () -> nodes("/locks/closed"));
        doomed.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(30, TimeUnit.SECONDS));
        assertInstanceOf(LockException.class, e.getCause());
        Await.until("held lease LOST", LONG, () -> held.state() == LeaseState.LOST);
        held.close();
        assertEquals(LeaseState.LOST, held.state());
        Await.equal("nodes", 0, LONG, () -> nodes("/locks/closed"));
    }

    /** Many locks on one client share one connection-state listener, also through a namespace facade. */
    @Test
    void oneConnectionStateListenerPerClient() throws Exception {
        CuratorFramework fresh = ZkTesting.client(server.getConnectString(), 20_000);
        try {
            StandardListenerManager<?> listeners = (StandardListenerManager<?>) fresh.getConnectionStateListenable();
            int before = listeners.size();
            for (int i = 0; i < 20; i++) {
                new ZkMutex(fresh, "/locks/many-" + i).acquire().close();
                new ZkMutex(fresh.usingNamespace("ns"), "/locks/many-" + i).acquire().close();
            }
            assertEquals(before + 1, listeners.size());
        } finally {
            fresh.close();
        }
    }

    /** Listener arguments are checked. */
    @Test
    void nullListenerIsRefused() throws Exception {
        try (Lease lease = new ZkMutex(client, "/locks/l").acquire()) {
            assertThrows(IllegalArgumentException.class, () -> lease.addListener(null));
            assertNotEquals(0, lease.fencingToken());
        }
    }
}
