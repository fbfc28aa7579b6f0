package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockStatus;
import io.zklock.core.MultiLease;
import io.zklock.core.Participant;
import io.zklock.core.RevocationResult;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.FencedResource;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.curator.framework.CuratorFramework;

/**
 * Multi-lock properties: random orders over overlapping lock sets from many sessions, mixed
 * with single-lock users of the same locks, never deadlock and never overlap; a timed attempt
 * with a part held elsewhere takes nothing; mixed kinds keep each kind's own rule.
 */
class MultiLockPropertiesTest extends ConformanceSupport {
    private static final int LOCKS = 4;

    @Override
    protected Recipe recipe() {
        return Recipe.MULTI_LOCK;
    }

    private String lockPath(int i) {
        return path + "/lock" + i;
    }

    /**
     * No deadlock, no overlap: threads on several sessions take random subsets of four mutexes,
     * listed in random orders, through multi-locks, while single-lock users take one at a
     * time; every request completes, and no lock ever has two holders.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void overlappingSetsInAnyOrderNeverDeadlockNorOverlap(
            @ForAll @IntRange(min = 2, max = 3) int sessions,
            @ForAll @Size(min = 3, max = 6) List<@Size(min = 1, max = LOCKS) List<@IntRange(min = 0, max = LOCKS - 1) Integer>> requests,
            @ForAll @IntRange(min = 0, max = 2) int singleUsers) throws Exception {
        List<CuratorFramework> sessionClients = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            locksOnNewSessions(1);
            sessionClients.add(clients.get(clients.size() - 1));
        }
        List<FencedResource> resources = new ArrayList<>();
        for (int i = 0; i < LOCKS; i++) {
            resources.add(new FencedResource(1, true));
        }
        runThreads(requests.size() + singleUsers, t -> {
            CuratorFramework client = sessionClients.get(t % sessions);
            if (t >= requests.size()) {
                int which = t % LOCKS;
                for (int round = 0; round < 3; round++) {
                    try (Lease lease = new ZkMutex(client, lockPath(which)).tryAcquire(LONG).orElseThrow()) {
                        use(resources.get(which), lease.fencingToken());
                    }
                }
                return;
            }
            List<Integer> order = new ArrayList<>(new LinkedHashSet<>(requests.get(t)));
            List<DistributedLock> locks = new ArrayList<>();
            for (int i : order) {
                locks.add(new ZkMutex(client, lockPath(i)));
            }
            ZkMultiLock multi = new ZkMultiLock(locks);
            for (int round = 0; round < 2; round++) {
                Optional<Lease> got = multi.tryAcquire(LONG);
                try (MultiLease lease = (MultiLease) got.orElseThrow(
                        () -> new AssertionError("multi-lock " + order + " not granted: deadlock?"))) {
                    Map<Integer, Long> tokens = new HashMap<>();
                    for (int k = 0; k < order.size(); k++) {
                        tokens.put(order.get(k), lease.components().get(k).fencingToken());
                    }
                    for (Map.Entry<Integer, Long> e : tokens.entrySet()) {
                        assertTrue(resources.get(e.getKey()).enter(e.getValue()), "stale token on lock " + e.getKey());
                    }
                    sleep(1);
                    tokens.forEach((i, token) -> resources.get(i).exit(token));
                }
            }
        });
        for (FencedResource resource : resources) {
            assertEquals(List.of(), resource.overlaps());
        }
        assertClean();
    }

    /**
     * All or nothing: when one of the locks is held elsewhere, a timed multi-lock attempt
     * returns empty and leaves no node in any of the queues, the held one included.
     */
    @Property(tries = 5, shrinking = ShrinkingMode.BOUNDED)
    void aTimedAttemptWithAPartHeldElsewhereTakesNothing(
            @ForAll @IntRange(min = 2, max = LOCKS) int size,
            @ForAll @IntRange(min = 0, max = LOCKS - 1) int heldIndex,
            @ForAll @IntRange(min = 0, max = 50) int timeoutMillis) throws Exception {
        locksOnNewSessions(2);
        int held = heldIndex % size;
        Lease holder = new ZkMutex(clients.get(0), lockPath(held)).acquire();
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            locks.add(new ZkMutex(clients.get(1), lockPath(i)));
        }
        Collections.shuffle(locks);
        assertEquals(Optional.empty(), new ZkMultiLock(locks).tryAcquire(Duration.ofMillis(timeoutMillis)));
        Await.equal("only the holder's node", 1, LONG,
                () -> ZkTesting.lockNodesBelow(clients.get(0), path).size());
        Await.equal("watches on the server", 0, LONG, zk.probe::watchCount);
        assertTrue(holder.isValid());
        holder.close();
        assertClean();
    }

    /**
     * Mixed kinds: a multi-lock of a mutex, a read lock and a semaphore permit excludes the
     * mutex's other users and the write lock's, shares the read lock with other readers, and
     * counts as one permit of the semaphore.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void mixedKindsKeepEachKindsRule(@ForAll @IntRange(min = 1, max = 3) int permits) throws Exception {
        locksOnNewSessions(2);
        CuratorFramework mine = clients.get(0);
        CuratorFramework theirs = clients.get(1);
        ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(mine, lockPath(0)),
                new ZkReadWriteLock(mine, lockPath(1)).readLock(), new ZkSemaphore(mine, lockPath(2), permits)));
        try (Lease lease = multi.acquire()) {
            assertEquals(Optional.empty(), new ZkMutex(theirs, lockPath(0)).tryAcquire(Duration.ZERO));
            ZkReadWriteLock rw = new ZkReadWriteLock(theirs, lockPath(1));
            assertEquals(Optional.empty(), rw.writeLock().tryAcquire(Duration.ZERO));
            rw.readLock().tryAcquire(Duration.ZERO).orElseThrow().close();
            ZkSemaphore semaphore = new ZkSemaphore(theirs, lockPath(2), permits);
            List<Lease> rest = new ArrayList<>();
            for (int i = 0; i < permits - 1; i++) {
                rest.add(semaphore.tryAcquire(Duration.ZERO).orElseThrow());
            }
            assertEquals(Optional.empty(), semaphore.tryAcquire(Duration.ZERO), "the multi-lock holds one permit");
            rest.forEach(Lease::close);
            assertTrue(lease.isValid());
        }
        assertClean();
    }

    /**
     * Re-entry: a thread's nested blocking acquisitions of one multi-lock share one node per
     * component and their tokens, returned at once; the nodes outlive every close but the last,
     * whatever the close order and closing thread; while held, the thread's single acquisition
     * of a component and another multi-lock over one are refused, leaving nothing behind.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    void multiReentryKeepsOneNodePerLockAndDeletesThemAtTheLastClose(
            @ForAll @IntRange(min = 1, max = LOCKS) int size,
            @ForAll("closeOrders") List<Integer> closeOrder,
            @ForAll boolean closeOnAnotherThread,
            @ForAll boolean readWriteHalves) throws Exception {
        locksOnNewSessions(1);
        CuratorFramework client = clients.get(0);
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            locks.add(!readWriteHalves ? new ZkMutex(client, lockPath(i))
                    : i % 2 == 0 ? new ZkReadWriteLock(client, lockPath(i)).writeLock()
                    : new ZkReadWriteLock(client, lockPath(i)).readLock());
        }
        ZkMultiLock multi = new ZkMultiLock(locks);
        List<MultiLease> leases = new ArrayList<>();
        assertTimeoutPreemptively(Await.scaled(Duration.ofSeconds(20)), () -> {   // one thread owns the leases
            for (int n = 0; n < closeOrder.size(); n++) {
                leases.add(n % 2 == 0 ? multi.acquire() : (MultiLease) multi.tryAcquire(Duration.ZERO).orElseThrow());
            }
            for (MultiLease lease : leases) {
                for (int k = 0; k < size; k++) {
                    Lease first = leases.get(0).components().get(k);
                    assertEquals(first.nodePath(), lease.components().get(k).nodePath(), "re-entered node of lock " + k);
                    assertEquals(first.fencingToken(), lease.components().get(k).fencingToken(), "re-entered token of lock " + k);
                }
            }
            DistributedLock component = locks.get(size - 1);
            assertThrows(IllegalStateException.class, component::acquire, "single acquisition of a multi-held lock");
            ZkMultiLock overlapping = new ZkMultiLock(List.of(component, new ZkMutex(client, lockPath(LOCKS))));
            assertThrows(IllegalStateException.class, overlapping::acquire, "another multi-lock over a multi-held lock");
            assertEquals(size, lockNodesOfTry(), "nodes while re-entered " + leases.size() + " times");
            for (int k = 0; k < closeOrder.size(); k++) {
                Lease lease = leases.get(closeOrder.get(k));
                if (closeOnAnotherThread) {
                    joinAll(List.of(start("closer", lease::close)));
                } else {
                    lease.close();
                }
                assertEquals(LeaseState.RELEASED, lease.state());
                boolean last = k == closeOrder.size() - 1;
                assertEquals(last ? 0 : size, lockNodesOfTry(), "nodes after close " + (k + 1) + " of " + closeOrder.size());
                assertEquals(!last, multi.isHeldByCurrentThread(), "held after close " + (k + 1));
            }
            component.acquire().close();       // refused no more
        });
        assertClean();
    }

    @Provide
    Arbitrary<List<Integer>> closeOrders() {
        return Arbitraries.integers().between(1, 4).flatMap(n -> {
            List<Integer> indexes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                indexes.add(i);
            }
            return Arbitraries.shuffle(indexes);
        });
    }

    private int lockNodesOfTry() {
        return ZkTesting.lockNodesBelow(clients.get(0), path).size();
    }

    /**
     * Lease state is never optimistic: a multi-lease over a mutex, both halves of two
     * read-write locks and a semaphore permit, closed while cut off, is not RELEASED until every
     * node is gone.
     */
    @Example
    void multiLeaseClosedWhileCutOffIsNotReleasedUntilEveryNodeIsGone() throws Exception {
        closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone((client, p) -> new ZkMultiLock(List.of(
                new ZkMutex(client, p + "/lock0"), new ZkReadWriteLock(client, p + "/lock1").readLock(),
                new ZkReadWriteLock(client, p + "/lock2").writeLock(), new ZkSemaphore(client, p + "/lock3", 2))).acquire());
    }

    /**
     * As {@link #multiLeaseClosedWhileCutOffIsNotReleasedUntilEveryNodeIsGone}, for a multi-lease
     * whose component the thread also held on its own, closed before the multi-lease.
     */
    @Example
    void multiLeaseOverAReenteredComponentClosedWhileCutOffIsNotReleasedUntilEveryNodeIsGone() throws Exception {
        closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone((client, p) -> {
            ZkMutex a = new ZkMutex(client, p + "/lock0");
            Lease alone = a.acquire();
            Lease multi = new ZkMultiLock(List.of(a, new ZkMutex(client, p + "/lock1"))).acquire();
            alone.close();
            return multi;
        });
    }

    /**
     * Revocation and status of a multi-lease: a multi-lease over a mutex, a read lock and a
     * semaphore permit shows in each lock's status as a holding node of kind multi with its
     * component's token, ahead of a waiter of the lock's own kind; opted in with
     * {@code Lease::close}, it lets go within a bound when any one of its nodes is asked (or
     * all of them), its handler runs exactly once on a library thread, and every waiter is
     * granted.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void revocableMultiLeaseLetsGoOnceWhicheverNodeIsAskedAndEveryWaiterIsGranted(
            @ForAll @IntRange(min = 0, max = 2) int asked,
            @ForAll boolean askEveryNode) throws Exception {
        locksOnNewSessions(3);
        CuratorFramework mine = clients.get(0);
        CuratorFramework theirs = clients.get(1);
        LockAdmin admin = new LockAdmin(clients.get(2));
        MultiLease lease = (MultiLease) new ZkMultiLock(List.of(new ZkMutex(mine, lockPath(0)),
                new ZkReadWriteLock(mine, lockPath(1)).readLock(), new ZkSemaphore(mine, lockPath(2), 1))).acquire();
        List<CompletableFuture<Lease>> waiters = List.of(new ZkMutex(theirs, lockPath(0)).acquireAsync(LONG),
                new ZkReadWriteLock(theirs, lockPath(1)).writeLock().acquireAsync(LONG),
                new ZkSemaphore(theirs, lockPath(2), 1).acquireAsync(LONG));
        Await.equal("waiters queued", 6, LONG, this::lockNodesOfTry);
        List<String> waiterKinds = List.of("mutex", "write", "permit");
        for (int i = 0; i < 3; i++) {
            LockStatus status = admin.status(lockPath(i));
            assertEquals(List.of("multi", waiterKinds.get(i)), status.participants().stream().map(Participant::mode).toList());
            assertEquals(List.of(true, false), status.participants().stream().map(Participant::holding).toList());
            assertEquals(lease.components().get(i).nodePath(), status.holders().get(0).nodePath());
            assertEquals(lease.components().get(i).fencingToken(), status.holders().get(0).fencingToken());
        }
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        CountDownLatch mayRelease = new CountDownLatch(1);
        lease.onRevocationRequested(recordingHandler(ranOn, mayRelease, Lease::close));

        assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(lease.components().get(asked).nodePath()));
        if (askEveryNode) {
            for (Lease component : lease.components()) {
                assertTrue(admin.requestRevocation(component.nodePath()) != RevocationResult.NODE_GONE, "a node of a held lease");
            }
        }
        Await.equal("handler run", 1, REVOCATION_BOUND, ranOn::size);
        mayRelease.countDown();
        for (CompletableFuture<Lease> waiter : waiters) {
            waiter.get(Await.scaled(REVOCATION_BOUND).toMillis(), TimeUnit.MILLISECONDS).close();
        }

        // RELEASED once the holder's client has the delete's reply; the waiters' clients hear the
        // deletion on their own connections and can be granted before that reply arrives
        Await.equal("the multi-lease told RELEASED", LeaseState.RELEASED, REVOCATION_BOUND, lease::state);
        assertLibraryThreads(ranOn);
        sleep((int) Await.scaled(QUIET).toMillis());
        assertEquals(1, ranOn.size(), "the handler runs exactly once");
        assertClean();
    }

    private static void use(FencedResource resource, long token) throws InterruptedException {
        assertTrue(resource.enter(token), "stale token " + token);
        sleep(1);
        resource.exit(token);
    }
}
