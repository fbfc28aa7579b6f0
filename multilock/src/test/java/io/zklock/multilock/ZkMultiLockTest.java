package io.zklock.multilock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockException;
import io.zklock.core.MultiLease;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/** {@link ZkMultiLock} on a real server: contract, bad input, all-or-nothing, re-entry, round trips. */
class ZkMultiLockTest extends EmbeddedServerTest {

    private int lockNodes(String... paths) {
        int n = 0;
        for (String p : paths) {
            n += ZkTesting.lockNodesBelow(client, p).size();
        }
        return n;
    }

    /** Empty, null, duplicated, foreign and cross-client component lists are refused with a clear message. */
    @Test
    void badComponentListsAreRefused() {
        ZkMutex a = new ZkMutex(client, "/m/a");
        assertThrows(IllegalArgumentException.class, () -> new ZkMultiLock(null));
        assertThrows(IllegalArgumentException.class, () -> new ZkMultiLock(List.of()));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ZkMultiLock(List.of(a, a)))
                .getMessage().contains("twice"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new ZkMultiLock(List.of(a, new ZkMutex(client, "/m/a")))).getMessage().contains("twice"));
        DistributedLock foreign = new DistributedLock() {
            @Override public String path() { return "/foreign"; }
            @Override public Lease acquire() { throw new UnsupportedOperationException(); }
            @Override public Optional<Lease> tryAcquire(Duration t) { throw new UnsupportedOperationException(); }
            @Override public CompletableFuture<Lease> acquireAsync(Duration t) { throw new UnsupportedOperationException(); }
            @Override public boolean isHeldByCurrentThread() { return false; }
            @Override public Lock asLock() { throw new UnsupportedOperationException(); }
        };
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ZkMultiLock(List.of(a, foreign)))
                .getMessage().contains("not built on the zklock engine"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new ZkMultiLock(List.of(a, new ZkMutex(other, "/m/b")))).getMessage().contains("different CuratorFramework"));
        List<DistributedLock> withNull = new ArrayList<>();
        withNull.add(a);
        withNull.add(null);
        assertThrows(IllegalArgumentException.class, () -> new ZkMultiLock(withNull));
    }

    /** Mixed kinds: a mutex, a read lock and a semaphore permit are taken together and released together. */
    @Test
    void mixedKindsAreTakenAndReleasedTogether() throws Exception {
        ZkReadWriteLock rw = new ZkReadWriteLock(client, "/m/rw");
        ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(client, "/m/x"), rw.readLock(),
                new ZkSemaphore(client, "/m/sem", 2)));
        MultiLease lease = multi.acquire();
        assertEquals(3, lease.components().size());
        assertTrue(lease.isValid());
        assertTrue(multi.isHeldByCurrentThread());
        assertEquals(3, lockNodes("/m/x", "/m/rw", "/m/sem"));
        try (Lease reader = new ZkReadWriteLock(other, "/m/rw").readLock().tryAcquire(Duration.ZERO).orElseThrow()) {
            assertTrue(reader.isValid(), "readers share with the multi-lock's read component");
        }
        assertEquals(Optional.empty(), new ZkMutex(other, "/m/x").tryAcquire(Duration.ZERO));
        lease.close();
        assertEquals(LeaseState.RELEASED, lease.state());
        assertFalse(multi.isHeldByCurrentThread());
        Await.equal("nodes", 0, LONG, () -> lockNodes("/m/x", "/m/rw", "/m/sem"));
    }

    /** All or nothing: with one component held elsewhere, a timed attempt returns empty and leaves no node in any queue. */
    @Test
    void timeoutWithOnePartHeldElsewhereLeavesNothing() throws Exception {
        ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(client, "/m/p"), new ZkMutex(client, "/m/q"),
                new ZkMutex(client, "/m/r")));
        try (Lease held = new ZkMutex(other, "/m/q").acquire()) {
            assertEquals(Optional.empty(), multi.tryAcquire(Duration.ofMillis(200)));
            assertEquals(Optional.empty(), multi.tryAcquire(Duration.ZERO));
            CompletableFuture<Lease> async = multi.acquireAsync(Duration.ofMinutes(5));   // only the cancel can end it in time
            Await.equal("async request queued", 4, LONG, () -> lockNodes("/m/p", "/m/q", "/m/r"));
            assertTrue(async.cancel(true));
            Await.equal("only the other holder's node", 1, LONG, () -> lockNodes("/m/p", "/m/q", "/m/r"));
            assertTrue(held.isValid());
        }
        try (Lease all = multi.tryAcquire(LONG).orElseThrow()) {
            assertTrue(all.isValid());
        }
        Await.equal("nodes", 0, LONG, () -> lockNodes("/m/p", "/m/q", "/m/r"));
    }

    /** Re-entry: a component the thread holds is counted, not queued, and stays held until both leases close. */
    @Test
    void heldComponentsAreCountedNotQueued() throws Exception {
        ZkMutex a = new ZkMutex(client, "/m/ra");
        ZkMutex b = new ZkMutex(client, "/m/rb");
        Lease single = a.acquire();
        MultiLease both = new ZkMultiLock(List.of(a, b)).acquire();
        assertEquals(single.nodePath(), both.components().get(0).nodePath());
        assertEquals(2, a.holdCount());
        assertEquals(2, lockNodes("/m/ra", "/m/rb"));
        both.close();
        assertTrue(single.isValid());
        assertEquals(1, lockNodes("/m/ra", "/m/rb"));
        single.close();
        assertEquals(0, lockNodes("/m/ra", "/m/rb"));
    }

    /** How long a re-entry or a refusal may take: it must never wait for the thread's own nodes. */
    private static final Duration AT_ONCE = Duration.ofSeconds(5);

    /**
     * Multi re-entry: a holding thread's acquire and tryAcquire of the same multi-lock return at
     * once leases on the same nodes, and only the last close deletes them.
     */
    @Test
    void multiReentryKeepsTheSameNodesAndTheLastCloseDeletesThem() {
        ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(client, "/m/ea"), new ZkReadWriteLock(client, "/m/eb").writeLock(),
                new ZkSemaphore(client, "/m/ec", 1)));
        assertTimeoutPreemptively(AT_ONCE, () -> {
            MultiLease first = multi.acquire();
            MultiLease second = multi.acquire();
            MultiLease third = (MultiLease) multi.tryAcquire(Duration.ZERO).orElseThrow();
            for (MultiLease again : List.of(second, third)) {
                for (int k = 0; k < 3; k++) {
                    assertEquals(first.components().get(k).nodePath(), again.components().get(k).nodePath(), "node " + k);
                    assertEquals(first.components().get(k).fencingToken(), again.components().get(k).fencingToken(), "token " + k);
                }
                assertTrue(again.isValid());
            }
            assertEquals(3, lockNodes("/m/ea", "/m/eb", "/m/ec"));
            second.close();
            assertEquals(LeaseState.RELEASED, second.state(), "an inner close while the thread still holds");
            first.close();
            assertTrue(multi.isHeldByCurrentThread());
            assertTrue(third.isValid());
            assertEquals(3, lockNodes("/m/ea", "/m/eb", "/m/ec"));
            third.close();
            assertEquals(LeaseState.RELEASED, third.state());
            assertEquals(0, lockNodes("/m/ea", "/m/eb", "/m/ec"));
            assertFalse(multi.isHeldByCurrentThread());
        });
    }

    /**
     * A single blocking acquisition of a reentrant component the thread holds through a
     * multi-lock is refused at once with an IllegalStateException naming the path; nothing is
     * leaked and the multi-lease stays held.
     */
    @Test
    void nestedSingleAcquireOfAMultiHeldComponentIsRefused() throws Exception {
        ZkMutex a = new ZkMutex(client, "/m/na");
        ZkReadWriteLock rw = new ZkReadWriteLock(client, "/m/nb");
        ZkReadWriteLock rr = new ZkReadWriteLock(client, "/m/nc");
        ZkMultiLock multi = new ZkMultiLock(List.of(a, rw.writeLock(), rr.readLock()));
        assertTimeoutPreemptively(AT_ONCE, () -> {
            try (Lease held = multi.acquire()) {
                IllegalStateException refused = assertThrows(IllegalStateException.class, a::acquire);
                assertTrue(refused.getMessage().contains("/m/na") && refused.getMessage().contains("multi-lock"),
                        refused.getMessage());
                assertThrows(IllegalStateException.class, () -> a.tryAcquire(Duration.ofSeconds(1)));
                assertThrows(IllegalStateException.class, () -> a.asLock().tryLock());
                assertThrows(IllegalStateException.class, () -> rw.writeLock().acquire(), "write half again");
                assertThrows(IllegalStateException.class, () -> rw.readLock().acquire(), "downgrade of a multi-held write");
                assertThrows(IllegalStateException.class, () -> rr.readLock().acquire(), "read half again");
                assertThrows(IllegalStateException.class, () -> rr.writeLock().acquire(), "upgrade of a multi-held read");
                assertFalse(a.isHeldByCurrentThread());
                assertTrue(held.isValid());
                assertEquals(3, lockNodes("/m/na", "/m/nb", "/m/nc"));
            }
            assertEquals(0, lockNodes("/m/na", "/m/nb", "/m/nc"));
        });
    }

    /**
     * A multi-lease dropped without being closed does not outlive itself in the thread's
     * bookkeeping: once it is unreachable, the thread's blocking acquisition of a component is
     * no longer refused (it queues behind the dropped lease's node, which stays until the
     * session ends, so a zero timeout ends empty), and the multi-lock no longer counts as held.
     */
    @Test
    void aMultiLeaseDroppedUnclosedLeavesNoRefusalOnceUnreachable() {
        ZkMutex a = new ZkMutex(client, "/m/ga");
        ZkMultiLock multi = new ZkMultiLock(List.of(a, new ZkMutex(client, "/m/gb")));
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            WeakReference<Lease> dropped = acquireAndDrop(multi, a);
            Await.until("the dropped multi-lease is collected", Duration.ofSeconds(20), () -> {
                System.gc();
                return dropped.get() == null;
            });
            assertEquals(Optional.empty(), a.tryAcquire(Duration.ZERO));
            assertFalse(multi.isHeldByCurrentThread());
            assertEquals(2, lockNodes("/m/ga", "/m/gb"), "the dropped lease's nodes stay until its session ends");
        });
    }

    private static WeakReference<Lease> acquireAndDrop(ZkMultiLock multi, ZkMutex component) throws InterruptedException {
        Lease lease = multi.acquire();
        assertThrows(IllegalStateException.class, () -> component.tryAcquire(Duration.ZERO));
        assertTrue(multi.isHeldByCurrentThread());
        return new WeakReference<>(lease);
    }

    /** Once the multi-lease is closed, the single acquisition that was refused works again. */
    @Test
    void afterTheMultiLeaseClosesTheSingleAcquireWorksAgain() {
        ZkMutex a = new ZkMutex(client, "/m/wa");
        ZkMultiLock multi = new ZkMultiLock(List.of(a, new ZkMutex(client, "/m/wb")));
        assertTimeoutPreemptively(AT_ONCE, () -> {
            Lease held = multi.acquire();
            assertThrows(IllegalStateException.class, a::acquire);
            held.close();
            try (Lease single = a.acquire()) {
                assertTrue(single.isValid());
                assertEquals(1, a.holdCount());
            }
            assertEquals(0, lockNodes("/m/wa", "/m/wb"));
        });
    }

    /**
     * A second multi-lock overlapping a reentrant component the thread holds through a first
     * one, or over the same components, is refused at once; nothing of it is left.
     */
    @Test
    void overlappingSecondMultiLockIsRefused() throws Exception {
        ZkMutex a = new ZkMutex(client, "/m/oa");
        ZkMutex b = new ZkMutex(client, "/m/ob");
        ZkMutex c = new ZkMutex(client, "/m/oc");
        ZkMultiLock ab = new ZkMultiLock(List.of(a, b));
        ZkMultiLock bc = new ZkMultiLock(List.of(c, b));
        assertTimeoutPreemptively(AT_ONCE, () -> {
            try (Lease held = ab.acquire()) {
                IllegalStateException refused = assertThrows(IllegalStateException.class, bc::acquire);
                assertTrue(refused.getMessage().contains("/m/ob"), refused.getMessage());
                assertThrows(IllegalStateException.class, () -> bc.tryAcquire(Duration.ofSeconds(1)));
                assertThrows(IllegalStateException.class, () -> new ZkMultiLock(List.of(b, a)).acquire(), "same locks, other multi-lock");
                assertFalse(bc.isHeldByCurrentThread());
                assertTrue(held.isValid());
                assertEquals(2, lockNodes("/m/oa", "/m/ob", "/m/oc"));
            }
            bc.acquire().close();
            assertEquals(0, lockNodes("/m/oa", "/m/ob", "/m/oc"));
        });
    }

    /**
     * The thread's bookkeeping ends with a LOST multi-lease: after session expiry the single
     * acquisition of a component is no longer refused, and the multi-lock takes fresh nodes
     * instead of re-entering the lost ones.
     */
    @Test
    void aLostMultiLeaseNeitherRefusesNorIsReentered() {
        ZkMutex a = new ZkMutex(client, "/m/la");
        ZkMultiLock multi = new ZkMultiLock(List.of(a, new ZkMutex(client, "/m/lb")));
        assertTimeoutPreemptively(Await.scaled(LONG), () -> {
            MultiLease lost = multi.acquire();
            Sessions.expire(client, server.getConnectString());
            Await.equal("multi-lease state", LeaseState.LOST, LONG, lost::state);
            try (Lease single = a.acquire()) {
                assertTrue(single.isValid());
            }
            try (MultiLease fresh = multi.acquire()) {
                assertTrue(fresh.isValid());
                assertFalse(fresh.components().get(0).nodePath().equals(lost.components().get(0).nodePath()));
            }
            lost.close();
            assertEquals(LeaseState.LOST, lost.state());
            Await.equal("nodes", 0, LONG, () -> lockNodes("/m/la", "/m/lb"));
        });
    }

    /**
     * A semaphore permit is not reentrant: a thread holding the only permit through a
     * multi-lock that asks the semaphore again makes a new request (not refused), which a
     * zero timeout ends empty; the multi-lock itself re-enters.
     */
    @Test
    void aSemaphoreComponentIsAskedForANewPermitNotRefused() {
        ZkSemaphore semaphore = new ZkSemaphore(client, "/m/sa", 1);
        ZkMultiLock multi = new ZkMultiLock(List.of(semaphore, new ZkMutex(client, "/m/sb")));
        assertTimeoutPreemptively(AT_ONCE, () -> {
            try (Lease held = multi.acquire(); Lease again = multi.acquire()) {
                assertTrue(held.isValid());
                assertEquals(Optional.empty(), semaphore.tryAcquire(Duration.ZERO));
                assertEquals(2, lockNodes("/m/sa", "/m/sb"));
                assertTrue(again.isValid());
            }
            assertEquals(0, lockNodes("/m/sa", "/m/sb"));
        });
    }

    /** A multi-lock cannot downgrade or upgrade a read-write lock the thread holds: refused, nothing left held. */
    @Test
    void otherHalfHeldIsRefused() throws Exception {
        ZkReadWriteLock rw = new ZkReadWriteLock(client, "/m/half");
        ZkMutex x = new ZkMutex(client, "/m/hx");
        try (Lease write = rw.writeLock().acquire()) {
            assertTrue(write.isValid());
            assertThrows(IllegalStateException.class, () -> new ZkMultiLock(List.of(x, rw.readLock())).acquire());
            assertFalse(x.isHeldByCurrentThread());
        }
        try (Lease read = rw.readLock().acquire()) {
            assertTrue(read.isValid());
            assertThrows(IllegalStateException.class, () -> new ZkMultiLock(List.of(rw.writeLock(), x)).acquire());
        }
        assertEquals(0, lockNodes("/m/half", "/m/hx"));
    }

    /** Round trips: for N = 1, 4, 8 an uncontended acquire is 1 transaction + N reads, a release 1 transaction. */
    @Test
    void roundTripsAreOneTransactionAndNReads() throws Exception {
        ZkProbe probe = new ZkProbe(server.getPort());
        CuratorFramework quiet = ZkTesting.client(server.getConnectString(), 60_000);
        try {
            for (int n : new int[] {1, 4, 8}) {
                List<DistributedLock> locks = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    locks.add(new ZkMutex(quiet, "/rt" + n + "/lock" + i));
                }
                ZkMultiLock multi = new ZkMultiLock(locks);
                multi.acquire().close();       // creates the directories
                long acquire = Long.MAX_VALUE;
                long release = Long.MAX_VALUE;
                for (int i = 0; i < 3; i++) {
                    Lease[] lease = new Lease[1];
                    acquire = Math.min(acquire, probe.requestsDuring(() -> lease[0] = multi.acquire()));
                    release = Math.min(release, probe.requestsDuring(lease[0]::close));
                }
                assertEquals(1 + n, acquire, "requests per acquire of " + n + " locks");
                assertEquals(1, release, "requests per release of " + n + " locks");
            }
        } finally {
            quiet.close();
        }
    }

    /** Listed in opposite orders by two threads on two sessions, over and over, two multi-locks never deadlock. */
    @Test
    void oppositeOrdersNeverDeadlock() throws Exception {
        ZkMultiLock ab = new ZkMultiLock(List.of(new ZkMutex(client, "/m/da"), new ZkMutex(client, "/m/db")));
        ZkMultiLock ba = new ZkMultiLock(List.of(new ZkMutex(other, "/m/db"), new ZkMutex(other, "/m/da")));
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (ZkMultiLock multi : List.of(ab, ba)) {
            Thread t = new Thread(() -> {
                try {
                    for (int i = 0; i < 20; i++) {
                        try (Lease lease = multi.tryAcquire(LONG).orElseThrow()) {
                            assertTrue(lease.isValid());
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(t.isAlive(), "deadlocked");
        }
        assertEquals(List.of(), errors);
    }

    /** When every component is re-entered, closing the multi-lease gives each hold back, and the nodes go with the singles. */
    @Test
    void allComponentsReenteredAreGivenBackOnClose() throws Exception {
        ZkMutex a = new ZkMutex(client, "/m/aa");
        ZkMutex b = new ZkMutex(client, "/m/ab");
        Lease first = a.acquire();
        Lease second = b.acquire();
        new ZkMultiLock(List.of(a, b)).acquire().close();
        assertEquals(1, a.holdCount());
        assertEquals(1, b.holdCount());
        first.close();
        second.close();
        assertEquals(0, lockNodes("/m/aa", "/m/ab"));
    }

    /** Components on different namespaces of one client are refused: one transaction, one namespace. */
    @Test
    void differentNamespacesAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ZkMultiLock(List.of(
                new ZkMutex(client.usingNamespace("ns1"), "/x"), new ZkMutex(client.usingNamespace("ns2"), "/y"))));
        assertTrue(e.getMessage().contains("namespace"), e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ZkMultiLock(List.of(
                new ZkMutex(client.usingNamespace("ns1"), "/q"), new ZkMutex(client.usingNamespace("ns1"), "/q"))))
                .getMessage().contains("twice"));
    }

    /** A zero timeout on never-used paths makes their directories and still takes the locks in that one attempt. */
    @Test
    void zeroTimeoutOnFreshPathsSucceeds() throws Exception {
        ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(client, "/fresh/a"), new ZkMutex(client, "/fresh/b")));
        try (Lease lease = multi.tryAcquire(Duration.ZERO).orElseThrow()) {
            assertTrue(lease.isValid());
        }
    }

    /** A directory that can never be made (under an ephemeral node) fails the request with LockException, not a spin to the timeout. */
    @Test
    void impossibleDirectoryFailsClearly() throws Exception {
        client.create().withMode(CreateMode.EPHEMERAL).forPath("/eph");
        ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(client, "/eph/y"), new ZkMutex(client, "/m/z")));
        long start = System.nanoTime();
        assertThrows(LockException.class, () -> multi.tryAcquire(Duration.ofSeconds(20)));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "failed fast");
        assertEquals(0, lockNodes("/m/z"));
    }

    /** Interrupts at any moment of a blocking acquisition, granted or not, leave no node behind. */
    @Test
    void interruptsAtAnyMomentLeaveNoNode() throws Exception {
        ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(client, "/m/ia"), new ZkMutex(client, "/m/ib")));
        multi.acquire().close();
        Random random = new Random(42);
        for (int i = 0; i < 150; i++) {
            long delayNanos = random.nextInt(3_000_000);
            Thread worker = new Thread(() -> {
                try {
                    multi.acquire().close();   // granted before the interrupt: released normally
                } catch (InterruptedException expected) {
                    // interrupted while waiting: the request must leave nothing behind
                }
            });
            worker.start();
            LockSupport.parkNanos(delayNanos);
            worker.interrupt();
            worker.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(worker.isAlive());
            Await.equal("nodes after interrupt " + i, 0, LONG, () -> lockNodes("/m/ia", "/m/ib"));
        }
    }
}
