package io.zklock.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockStatus;
import io.zklock.core.Participant;
import io.zklock.core.RevocationResult;
import io.zklock.testing.Await;
import io.zklock.testing.FencedResource;
import io.zklock.testing.Sessions;
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
 * The properties every recipe keeps, run against a real ZooKeeper. A recipe's test class
 * extends this and names the recipe; jqwik generates the schedules and shrinks a failure to a
 * small one. Each try works under a fresh path and ends with a leak check: no node of the try
 * left, and no watch left on the server while its clients are still open.
 */
abstract class LockConformance extends ConformanceSupport {

    // ---- properties ----------------------------------------------------------------------------

    /**
     * Mutual exclusion: however many sessions and threads contend, never more than the
     * recipe's capacity of distinct holders are inside the fenced resource at once, and no
     * holder is ever refused as stale.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    void neverMoreHoldersThanCapacity_judgedByFencedResource(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @IntRange(min = 1, max = 3) int threadsPerSession,
            @ForAll @IntRange(min = 1, max = 3) int rounds,
            @ForAll @IntRange(min = 0, max = 3) int holdMillis,
            @ForAll @IntRange(min = 1, max = 3) int depth) throws Exception {
        FencedResource resource = new FencedResource(recipe().capacity(), recipe().capacity() == 1);
        List<DistributedLock> locks = locksOnNewSessions(sessions);
        int nesting = recipe().reentrant() ? depth : 1;
        runThreads(sessions * threadsPerSession, t -> {
            DistributedLock lock = locks.get(t % sessions);
            for (int r = 0; r < rounds; r++) {
                List<Lease> leases = new ArrayList<>();
                try {
                    for (int d = 0; d < nesting; d++) {
                        leases.add(lock.acquire());
                    }
                    long token = leases.get(0).fencingToken();
                    for (Lease lease : leases) {
                        assertEquals(token, lease.fencingToken(), "re-entered token");
                        assertTrue(lease.isValid(), "fresh lease valid");
                    }
                    assertTrue(resource.enter(token), "holder with token " + token + " refused as stale");
                    sleep(holdMillis);
                    resource.exit(token);
                } finally {
                    Collections.reverse(leases);
                    leases.forEach(Lease::close);
                }
            }
        });
        assertEquals(List.of(), resource.overlaps());
        assertTrue(resource.peak() >= 1 && resource.peak() <= recipe().capacity(), "peak " + resource.peak());
        assertClean();
    }

    /**
     * Fencing: for an exclusive recipe, the tokens of successive holders strictly increase,
     * whatever mix of blocking, timed and asynchronous acquisitions produced them.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void fencingTokensStrictlyIncreaseAcrossSuccessiveHolders(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @Size(min = 2, max = 8) List<@IntRange(min = 0, max = 2) Integer> styles) throws Exception {
        if (recipe().capacity() != 1) {
            return;
        }
        List<DistributedLock> locks = locksOnNewSessions(sessions);
        List<Long> tokensInGrantOrder = Collections.synchronizedList(new ArrayList<>());
        runThreads(styles.size(), t -> {
            DistributedLock lock = locks.get(t % sessions);
            Lease lease = switch (styles.get(t)) {
                case 0 -> lock.acquire();
                case 1 -> lock.tryAcquire(LONG).orElseThrow();
                default -> lock.acquireAsync(LONG).get(LONG.toSeconds(), TimeUnit.SECONDS);
            };
            try (lease) {
                tokensInGrantOrder.add(lease.fencingToken());
            }
        });
        assertEquals(styles.size(), tokensInGrantOrder.size());
        for (int i = 1; i < tokensInGrantOrder.size(); i++) {
            assertTrue(tokensInGrantOrder.get(i - 1) < tokensInGrantOrder.get(i), "tokens in grant order " + tokensInGrantOrder);
        }
        assertClean();
    }

    /**
     * FIFO: waiters queued one after another behind a holder are granted in the order they
     * queued, which is the order of their nodes' sequence numbers.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void grantsFollowQueueOrder(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @IntRange(min = 2, max = 6) int waiters) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(sessions);
        List<Lease> holders = fillToCapacity(locks.get(0));
        List<Integer> grantOrder = Collections.synchronizedList(new ArrayList<>());
        List<Long> sequences = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int index = i;
            DistributedLock lock = recipe().create(clients.get(i % sessions), path);
            int before = lockNodes();
            threads.add(start("waiter-" + i, () -> {
                try (Lease lease = lock.acquire()) {
                    grantOrder.add(index);
                    sequences.add(sequenceOf(lease));
                }
            }));
            Await.equal("waiter " + i + " queued", before + 1, LONG, this::lockNodes);
        }
        holders.forEach(Lease::close);
        joinAll(threads);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            expected.add(i);
        }
        List<Long> sortedSequences = new ArrayList<>(sequences);
        Collections.sort(sortedSequences);
        if (recipe().capacity() == 1) {
            assertEquals(expected, grantOrder, "grant order of waiters queued 0.." + (waiters - 1));
            assertEquals(sortedSequences, sequences, "sequence numbers in grant order");
        } else {
            List<Integer> sortedGrants = new ArrayList<>(grantOrder);
            Collections.sort(sortedGrants);
            assertEquals(expected, sortedGrants, "every waiter granted once");
        }
        assertClean();
    }

    /**
     * Re-entry: nested blocking acquisitions by one thread share one node and one token; the
     * node outlives every close but the last, whatever the order the leases are closed in and
     * whichever thread closes them, and is deleted at the last.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    void reentryKeepsOneNodeAndDeletesItAtTheLastClose(
            @ForAll("closeOrders") List<Integer> closeOrder,
            @ForAll boolean closeOnAnotherThread) throws Exception {
        if (!recipe().reentrant()) {
            return;
        }
        DistributedLock lock = locksOnNewSessions(1).get(0);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < closeOrder.size(); i++) {
            leases.add(i % 2 == 0 ? lock.acquire() : lock.tryAcquire(Duration.ZERO).orElseThrow());
        }
        for (Lease lease : leases) {
            assertEquals(leases.get(0).nodePath(), lease.nodePath(), "re-entered node");
            assertEquals(leases.get(0).fencingToken(), lease.fencingToken(), "re-entered token");
        }
        assertEquals(1, lockNodes(), "nodes while re-entered " + leases.size() + " times");
        for (int k = 0; k < closeOrder.size(); k++) {
            Lease lease = leases.get(closeOrder.get(k));
            if (closeOnAnotherThread) {
                joinAll(List.of(start("closer", lease::close)));
            } else {
                lease.close();
            }
            assertEquals(LeaseState.RELEASED, lease.state());
            boolean last = k == closeOrder.size() - 1;
            assertEquals(last ? 0 : 1, lockNodes(), "nodes after close " + (k + 1) + " of " + closeOrder.size());
            assertEquals(!last, lock.isHeldByCurrentThread(), "held after close " + (k + 1));
        }
        assertClean();
    }

    /**
     * Lease state is never optimistic: a lease closed while its client is cut off from
     * ZooKeeper (session alive) stays unreleased until the server is back and its node is gone,
     * then is RELEASED, told once; the close does not wait for the connection.
     */
    @Example
    void closeWhileCutOffIsNotReleasedUntilTheNodeIsGone() throws Exception {
        closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone((client, p) -> recipe().create(client, p).acquire());
    }

    /**
     * As {@link #closeWhileCutOffIsNotReleasedUntilTheNodeIsGone}, for the last of several
     * re-entered leases of a reentrant recipe: closing the others first releases nothing.
     */
    @Example
    void lastReenteredCloseWhileCutOffIsNotReleasedUntilTheNodeIsGone() throws Exception {
        if (!recipe().reentrant()) {
            return;
        }
        closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone((client, p) -> {
            DistributedLock lock = recipe().create(client, p);
            Lease first = lock.acquire();
            Lease second = lock.acquire();
            first.close();
            assertEquals(LeaseState.RELEASED, first.state(), "an inner close while the thread still holds");
            assertTrue(lock.isHeldByCurrentThread(), "held through the second lease");
            return second;
        });
    }

    @Provide
    Arbitrary<List<Integer>> closeOrders() {
        return Arbitraries.integers().between(1, 5).flatMap(n -> {
            List<Integer> indexes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                indexes.add(i);
            }
            return Arbitraries.shuffle(indexes);
        });
    }

    /** How a waiter gives up in {@link #abandonedRequestsLeaveNoNodeAndNoWatch}. */
    enum Abandon { TIMEOUT, ZERO_TIMEOUT, INTERRUPT, CANCEL }

    /**
     * Hygiene: waiters that time out, are interrupted or are cancelled while the lock is held
     * leave no node and no watch behind, and the holder keeps the lock throughout.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    void abandonedRequestsLeaveNoNodeAndNoWatch(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @Size(min = 1, max = 5) List<Abandon> waiters,
            @ForAll @IntRange(min = 1, max = 40) int timeoutMillis) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(sessions);
        List<Lease> holders = fillToCapacity(locks.get(0));
        int held = lockNodes();
        for (int i = 0; i < waiters.size(); i++) {
            DistributedLock lock = recipe().create(clients.get(i % sessions), path);
            switch (waiters.get(i)) {
                case TIMEOUT -> assertEquals(Optional.empty(), lock.tryAcquire(Duration.ofMillis(timeoutMillis)));
                case ZERO_TIMEOUT -> assertEquals(Optional.empty(), lock.tryAcquire(Duration.ZERO));
                case INTERRUPT -> {
                    AtomicReference<Throwable> outcome = new AtomicReference<>();
                    Thread waiter = new Thread(() -> {
                        try {
                            outcome.set(new AssertionError("granted: " + lock.acquire()));
                        } catch (Throwable e) {
                            outcome.set(e);
                        }
                    }, "interrupted-waiter");
                    waiter.start();
                    Await.equal("waiter queued", held + 1, LONG, this::lockNodes);
                    waiter.interrupt();
                    waiter.join(Await.scaled(LONG).toMillis());
                    assertInstanceOf(InterruptedException.class, outcome.get());
                }
                case CANCEL -> {
                    CompletableFuture<Lease> future = lock.acquireAsync(LONG);
                    Await.equal("async waiter queued", held + 1, LONG, this::lockNodes);
                    assertTrue(future.cancel(true), "cancel of a waiting request");
                }
            }
            Await.equal("abandoned node removed", held, LONG, this::lockNodes);
            Await.equal("watches on the server", 0, LONG, zk.probe::watchCount);
        }
        assertTrue(holders.stream().allMatch(Lease::isValid), "holders still valid: " + holders);
        holders.forEach(Lease::close);
        assertClean();
    }

    /**
     * A grant that races a timeout is never leaked: whichever wins, when tryAcquire returns
     * empty the waiter has no node, and when it returns a lease the lease is valid.
     */
    @Property(tries = 10, shrinking = ShrinkingMode.BOUNDED)
    void grantRacingTimeoutIsReturnedOrReleased(
            @ForAll @IntRange(min = 0, max = 30) int releaseAfterMillis,
            @ForAll @IntRange(min = 1, max = 30) int timeoutMillis) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        List<Lease> holders = fillToCapacity(locks.get(0));
        Thread releaser = start("releaser", () -> {
            sleep(releaseAfterMillis);
            holders.forEach(Lease::close);
        });
        Optional<Lease> got = locks.get(1).tryAcquire(Duration.ofMillis(timeoutMillis));
        joinAll(List.of(releaser));
        if (got.isPresent()) {
            assertTrue(got.get().isValid(), "granted lease valid");
            assertEquals(1, lockNodes());
            got.get().close();
        }
        assertClean();
    }

    /**
     * Session expiry: a held lease turns LOST and tells its listener; the next holder's token
     * is larger, so the fenced resource refuses the old holder; closing the lost lease is a
     * no-op, and the old client can acquire again on its new session.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void sessionExpiryLosesTheLeaseAndTheNextHolderFencesItOut(
            @ForAll @IntRange(min = 0, max = 3) int waitersOnOtherSessions) throws Exception {
        if (recipe().capacity() != 1) {
            return;
        }
        List<DistributedLock> locks = locksOnNewSessions(1 + Math.max(1, waitersOnOtherSessions));
        FencedResource resource = new FencedResource(1, true);
        Lease old = locks.get(0).acquire();
        List<LeaseState> told = new CopyOnWriteArrayList<>();
        old.addListener((lease, state) -> told.add(state));
        assertTrue(resource.enter(old.fencingToken()));
        resource.exit(old.fencingToken());
        List<CompletableFuture<Lease>> next = new ArrayList<>();
        for (int i = 1; i < locks.size(); i++) {
            next.add(locks.get(i).acquireAsync(LONG));
        }
        Await.equal("waiters queued", locks.size(), LONG, this::lockNodes);

        Sessions.expire(clients.get(0), zk.connectString());

        Lease successor = firstGranted(next);
        assertTrue(successor.fencingToken() > old.fencingToken(), "successor token larger");
        Await.until("the old lease is LOST", LONG, () -> old.state() == LeaseState.LOST);
        Await.until("listener told LOST", LONG, () -> told.contains(LeaseState.LOST));
        assertFalse(told.contains(LeaseState.RELEASED), "states told " + told);
        assertFalse(old.isValid());
        assertTrue(resource.enter(successor.fencingToken()));
        resource.exit(successor.fencingToken());
        assertFalse(resource.enter(old.fencingToken()), "stale holder refused");
        old.close();
        assertEquals(LeaseState.LOST, old.state());
        successor.close();
        while (!next.isEmpty()) {
            firstGranted(next).close();
        }
        try (Lease again = locks.get(0).tryAcquire(LONG).orElseThrow()) {
            assertTrue(again.fencingToken() > successor.fencingToken(), "token after re-acquire");
        }
        assertClean();
    }

    /**
     * Session expiry while waiting: the waiter re-queues on its new session and is granted
     * once the holder releases; it is never granted on its dead session's node.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void waiterWhoseSessionExpiresRequeuesAndIsGranted(@ForAll boolean async) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        List<Lease> holders = fillToCapacity(locks.get(0));
        CompletableFuture<Lease> waiting = async
                ? locks.get(1).acquireAsync(LONG)
                : CompletableFuture.supplyAsync(() -> {
                    try {
                        return locks.get(1).acquire();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
        int queued = holders.size() + 1;
        Await.equal("waiter queued", queued, LONG, this::lockNodes);
        long deadSession = clients.get(1).getZookeeperClient().getZooKeeper().getSessionId();
        Sessions.expire(clients.get(1), zk.connectString());
        Await.until("waiter re-queued on a new session", LONG, () -> {
            try {
                long now = clients.get(1).getZookeeperClient().getZooKeeper().getSessionId();
                return now != deadSession && lockNodes() == queued;
            } catch (Exception e) {
                return false;
            }
        });
        assertFalse(waiting.isDone(), "waiter granted while the holder holds");
        holders.forEach(Lease::close);
        try (Lease lease = waiting.get(LONG.toSeconds(), TimeUnit.SECONDS)) {
            assertTrue(lease.isValid());
            assertEquals(clients.get(1).getZookeeperClient().getZooKeeper().getSessionId(),
                    clients.get(0).checkExists().forPath(lease.nodePath()).getEphemeralOwner(),
                    "granted node owned by the waiter's live session");
        }
        assertClean();
    }

    /**
     * Cleanup: once every holder and waiter has gone, the lock directory is a container with no
     * children and the server reaps it; a later acquisition recreates it and still works.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void emptyLockDirectoryIsReapedAndRecreatedOnDemand(@ForAll @IntRange(min = 1, max = 3) int holders)
            throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(holders);
        for (DistributedLock lock : locks) {
            lock.acquire().close();
        }
        awaitReaped();
        try (Lease lease = locks.get(0).tryAcquire(LONG).orElseThrow()) {
            assertTrue(lease.isValid());
        }
        assertClean();
    }

    /**
     * Sequence-gap inference is never fooled by a re-created directory: a client that
     * re-acquired the lock alone (so it would infer its next grant without listing) sees the
     * directory reaped and made again by other sessions, which hold it to capacity and bring the
     * new directory's creation count to exactly the number the client expects next. The
     * client's next attempt is not granted while they hold, and is granted once they let go.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void reacquireIsNeverGrantedOnAReapedAndRecreatedDirectoryWhileOthersHold(
            @ForAll @IntRange(min = 0, max = 2) int extraCycles) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(3);
        DistributedLock mine = locks.get(0);
        int cycles = recipe().capacity() + extraCycles;     // our nodes are numbered 0 .. cycles - 1
        for (int i = 0; i < cycles; i++) {
            mine.acquire().close();
        }
        awaitReaped();
        List<Lease> theirs = fillToCapacity(locks.get(1));  // numbers 0 .. capacity - 1 in the new directory
        for (int i = recipe().capacity(); i < cycles; i++) {
            assertEquals(Optional.empty(), locks.get(2).tryAcquire(Duration.ZERO), "full: a request gives up");
        }
        assertEquals(cycles, nextSequence(), "the new directory's count is at the number we expect next");

        assertEquals(Optional.empty(), mine.tryAcquire(Duration.ofMillis(300)), "granted beside the holders");
        theirs.forEach(Lease::close);
        try (Lease lease = mine.tryAcquire(LONG).orElseThrow()) {
            assertTrue(lease.isValid());
        }
        assertClean();
    }

    // ---- inspection and revocation -------------------------------------------------------------

    /** How {@link LockAdmin#status} names the recipe of this suite's nodes. */
    abstract String recipeInStatus();

    /** How {@link LockAdmin#status} names the kind of this suite's nodes. */
    abstract String kindInStatus();

    /**
     * Takes every lease the recipe admits, each on a thread of its own (nested {@code depth}
     * times there for a reentrant recipe); one list of views per holder, in grant order.
     */
    List<List<Lease>> holdToCapacity(DistributedLock lock, int depth) throws Exception {
        List<List<Lease>> holders = new CopyOnWriteArrayList<>();
        for (int i = 0; i < recipe().capacity(); i++) {
            int before = lockNodes();
            joinAll(List.of(start("holder-" + i, () -> {
                List<Lease> views = new ArrayList<>();
                for (int d = 0; d < (recipe().reentrant() ? depth : 1); d++) {
                    views.add(lock.acquire());
                }
                holders.add(views);
            })));
            assertEquals(before + 1, lockNodes(), "one node per holder");
        }
        return holders;
    }

    /**
     * Revocation: a holder that opted in (every view of a re-entered lease with
     * {@code Lease::close}) and is asked to let go releases within a bound, its handler having
     * run exactly once per view on a library thread, never a ZooKeeper event thread, even when
     * asked twice (the second request finds ALREADY_REQUESTED); the first waiter is then
     * granted, and only it.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void revocableHolderAskedToLetGoReleasesWithinABoundAndTheFirstWaiterIsGranted(
            @ForAll @IntRange(min = 1, max = 3) int waiters,
            @ForAll @IntRange(min = 1, max = 3) int depth,
            @ForAll boolean askTwice) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(3);
        LockAdmin admin = admin();
        List<List<Lease>> holders = holdToCapacity(locks.get(0), depth);
        List<Lease> victim = holders.get(holders.size() - 1);
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        CountDownLatch mayRelease = new CountDownLatch(1);
        for (Lease view : victim) {
            view.onRevocationRequested(recordingHandler(ranOn, mayRelease, Lease::close));
        }
        List<CompletableFuture<Lease>> pending = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            DistributedLock lock = locks.get(1 + i % 2);
            pending.add(queue(() -> lock.acquireAsync(LONG)));
        }
        CompletableFuture<Lease> first = pending.get(0);

        assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(victim.get(0).nodePath()));
        if (askTwice) {
            assertEquals(RevocationResult.ALREADY_REQUESTED, admin.requestRevocation(victim.get(0).nodePath()));
        }
        Await.equal("handlers run, one per view", victim.size(), REVOCATION_BOUND, ranOn::size);
        mayRelease.countDown();
        Lease granted = first.get(Await.scaled(REVOCATION_BOUND).toMillis(), TimeUnit.MILLISECONDS);

        assertTrue(granted.isValid());
        Await.until("every revoked view RELEASED", REVOCATION_BOUND, () -> victim.stream().allMatch(v -> v.state() == LeaseState.RELEASED));
        assertLibraryThreads(ranOn);
        assertFalse(pending.subList(1, pending.size()).stream().anyMatch(CompletableFuture::isDone), "a later waiter granted");
        sleep((int) Await.scaled(QUIET).toMillis());
        assertEquals(victim.size(), ranOn.size(), "handlers run exactly once per view");
        granted.close();
        holders.stream().flatMap(List::stream).forEach(Lease::close);
        for (CompletableFuture<Lease> f : pending.subList(1, pending.size())) {
            f.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        }
        assertClean();
    }

    /**
     * Escalation: a holder that opted in, was asked, and did not let go, still hears of the
     * forced deletion of its node (what {@code zklock revoke --force} does): every view of its
     * lease turns LOST within a bound, and the first waiter is granted.
     */
    @Example
    void holderAskedThatKeepsItsLeaseTurnsLostWhenItsNodeIsForcedOut() throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        LockAdmin admin = admin();
        List<List<Lease>> holders = holdToCapacity(locks.get(0), recipe().reentrant() ? 2 : 1);
        List<Lease> victim = holders.get(holders.size() - 1);
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        victim.get(0).onRevocationRequested(recordingHandler(ranOn, new CountDownLatch(0), lease -> { }));
        CompletableFuture<Lease> waiter = queue(() -> locks.get(1).acquireAsync(LONG));

        assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(victim.get(0).nodePath()));
        Await.equal("handler told", 1, REVOCATION_BOUND, ranOn::size);
        sleep((int) Await.scaled(QUIET).toMillis());
        assertTrue(victim.stream().allMatch(Lease::isValid), "the holder kept its lease when asked");
        assertFalse(waiter.isDone(), "granted while the holder kept its lease");

        clients.get(0).delete().forPath(victim.get(0).nodePath());
        Await.until("every view of the forced-out lease LOST", REVOCATION_BOUND,
                () -> victim.stream().allMatch(v -> v.state() == LeaseState.LOST));
        Lease granted = waiter.get(Await.scaled(REVOCATION_BOUND).toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(granted.isValid());
        granted.close();
        holders.stream().flatMap(List::stream).forEach(Lease::close);
        assertClean();
    }

    /**
     * A holder that did not opt in keeps its lease when asked: it is still HELD and valid a
     * while later, its node is still there, the waiter still waits, and status shows the
     * request on its node alone. Opting in afterwards hears the pending request at once.
     */
    @Example
    void nonRevocableHolderKeepsItsLeaseAfterARequestThatStatusShows() throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        LockAdmin admin = admin();
        List<List<Lease>> holders = holdToCapacity(locks.get(0), 1);
        Lease holder = holders.get(0).get(0);
        CompletableFuture<Lease> waiter = queue(() -> locks.get(1).acquireAsync(LONG));

        assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(holder.nodePath()));
        sleep((int) Await.scaled(QUIET).toMillis() * 2);

        assertEquals(LeaseState.HELD, holder.state());
        assertTrue(holder.isValid());
        assertNotNull(clients.get(0).checkExists().forPath(holder.nodePath()), "the holder's node");
        assertFalse(waiter.isDone(), "the waiter granted");
        LockStatus status = admin.status(path);
        for (Participant p : status.participants()) {
            assertEquals(p.nodePath().equals(holder.nodePath()), p.revocationRequest().isPresent(), "request shown on " + p.nodeName());
        }
        String by = status.participants().get(0).revocationRequest().orElseThrow().requestedBy();
        assertTrue(by.contains("[pid " + ProcessHandle.current().pid() + "]"), "requested by " + by);

        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        holder.onRevocationRequested(recordingHandler(ranOn, new CountDownLatch(0), lease -> { }));
        Await.equal("a late opt-in hears the pending request", 1, REVOCATION_BOUND, ranOn::size);
        assertLibraryThreads(ranOn);
        assertTrue(holder.isValid(), "a handler that does nothing leaves the lease held");
        holders.stream().flatMap(List::stream).forEach(Lease::close);
        waiter.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        assertClean();
    }

    /**
     * A request to a node that is gone, in a directory that is still there or was reaped, is
     * NODE_GONE and creates nothing: the directory holds exactly what it held, or stays absent
     * (status ABSENT). A path that is invalid or not a lock node's is refused with an
     * IllegalArgumentException.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void requestToAVanishedNodeIsNodeGoneAndCreatesNothing(@ForAll boolean reaped) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        LockAdmin admin = admin();
        CuratorFramework any = clients.get(0);
        Lease gone = locks.get(0).acquire();
        String node = gone.nodePath();
        gone.close();
        Lease other = null;
        if (reaped) {
            awaitReaped();
            assertEquals(LockStatus.State.ABSENT, admin.status(path).state(), "status of a reaped directory");
        } else {
            other = locks.get(1).acquire();
        }
        List<String> before = ZkTesting.children(any, path);

        assertEquals(RevocationResult.NODE_GONE, admin.requestRevocation(node));

        assertNull(any.checkExists().forPath(node), "a node made by the request");
        assertEquals(before, ZkTesting.children(any, path), "the directory after the request");
        if (reaped) {
            assertNull(any.checkExists().forPath(path), "the reaped directory made again");
            assertEquals(LockStatus.State.ABSENT, admin.status(path).state());
        }
        for (String bad : List.of(path, path + "/not-a-lock-node", "relative/_c_x-mutex-0000000001", path + "/", "")) {
            assertThrows(IllegalArgumentException.class, () -> admin.requestRevocation(bad), "request to '" + bad + "'");
        }
        assertThrows(IllegalArgumentException.class, () -> admin.status("no-slash"));
        if (other != null) {
            other.close();
        }
        assertClean();
    }

    /** What {@link #noWatchIsLeftOnTheServerOnceALeaseEnds} does with one lease. */
    enum Revocation { OPTED_IN_AND_REVOKED, OPTED_IN_NEVER_ASKED, OPTED_IN_TWICE_AND_ASKED, ASKED_WITHOUT_OPTING_IN }

    /**
     * Hygiene of revocation: a lease that opted in sets one watch on the server, however many
     * views and handlers opted in; once the lease ends (revoked, never asked, or asked without
     * having opted in) no watch is left on the server.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void noWatchIsLeftOnTheServerOnceALeaseEnds(
            @ForAll @Size(min = 1, max = 4) List<Revocation> leases,
            @ForAll @IntRange(min = 1, max = 2) int depth) throws Exception {
        DistributedLock lock = locksOnNewSessions(1).get(0);
        LockAdmin admin = admin();
        int nesting = recipe().reentrant() ? depth : 1;
        for (Revocation what : leases) {
            List<Lease> views = new ArrayList<>();
            for (int d = 0; d < nesting; d++) {
                views.add(lock.acquire());
            }
            List<Thread> ranOn = new CopyOnWriteArrayList<>();
            int handlers = 0;
            if (what != Revocation.ASKED_WITHOUT_OPTING_IN) {
                for (Lease view : views) {
                    int times = what == Revocation.OPTED_IN_TWICE_AND_ASKED ? 2 : 1;
                    for (int t = 0; t < times; t++) {
                        view.onRevocationRequested(recordingHandler(ranOn, new CountDownLatch(0),
                                what == Revocation.OPTED_IN_AND_REVOKED ? Lease::close : lease -> { }));
                        handlers++;
                    }
                }
                Await.equal("one revocation watch for the lease", 1, LONG, zk.probe::watchCount);
            }
            if (what != Revocation.OPTED_IN_NEVER_ASKED) {
                assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(views.get(0).nodePath()));
                Await.equal("handlers told", handlers, REVOCATION_BOUND, ranOn::size);
            }
            if (what == Revocation.OPTED_IN_AND_REVOKED) {
                Await.equal("nodes once revoked", 0, REVOCATION_BOUND, this::lockNodes);
            } else {
                assertEquals(1, lockNodes());
            }
            Collections.reverse(views);
            views.forEach(Lease::close);
            assertEquals(0, lockNodes());
            Await.equal("watches on the server after " + what, 0, LONG, zk.probe::watchCount);
            assertEquals(what == Revocation.OPTED_IN_NEVER_ASKED ? 0 : handlers, ranOn.size(), "handlers told once each");
        }
        assertClean();
    }

    /**
     * Status matches the server: for a generated queue of requests from several sessions,
     * status lists exactly the lock nodes the server has, in queue order, holding exactly where
     * a lease was granted (the first {@code capacity} requests), with the leases' tokens, this
     * process as owner, the recipe's kind and its maxLeases.
     */
    @Property(tries = 4, shrinking = ShrinkingMode.BOUNDED)
    void statusListsExactlyTheServersNodesInQueueOrderWithTheGrantedHolders(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @IntRange(min = 1, max = 6) int requests) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(sessions);
        LockAdmin admin = admin();
        List<CompletableFuture<Lease>> queued = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            DistributedLock lock = locks.get(i % sessions);
            queued.add(queue(() -> lock.acquireAsync(LONG)));
        }
        int holding = Math.min(requests, recipe().capacity());
        List<Lease> granted = new ArrayList<>();
        for (CompletableFuture<Lease> f : queued.subList(0, holding)) {
            granted.add(f.get(LONG.toSeconds(), TimeUnit.SECONDS));
        }

        LockStatus status = admin.status(path);

        assertStatusMatchesServer(status, granted, Collections.nCopies(requests, kindInStatus()), recipeInStatus(),
                recipe().capacity());
        assertFalse(queued.subList(holding, requests).stream().anyMatch(CompletableFuture::isDone), "a waiter granted");
        granted.forEach(Lease::close);
        List<CompletableFuture<Lease>> rest = new ArrayList<>(queued.subList(holding, requests));
        while (!rest.isEmpty()) {
            firstGranted(rest).close();
        }
        Await.equal("status of an idle lock", LockStatus.State.ABSENT, LONG, () -> admin.status(path).state());
        assertClean();
    }

    /**
     * Session expiry of a holder that opted in: its lease is LOST and its handler never runs,
     * a request to its node is NODE_GONE, the next waiter is granted, and no watch is left.
     */
    @Example
    void holderWhoseSessionExpiresIsLostWithoutItsHandlerAndTheNextWaiterIsGranted() throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        LockAdmin admin = admin();
        List<Lease> held = holdToCapacity(locks.get(0), 1).stream().map(views -> views.get(0)).toList();
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        held.forEach(lease -> lease.onRevocationRequested(recordingHandler(ranOn, new CountDownLatch(0), Lease::close)));
        CompletableFuture<Lease> waiter = queue(() -> locks.get(1).acquireAsync(LONG));

        Sessions.expire(clients.get(0), zk.connectString());

        try (Lease next = waiter.get(LONG.toSeconds(), TimeUnit.SECONDS)) {
            assertTrue(next.isValid());
            Await.until("the holder's leases LOST", LONG, () -> held.stream().allMatch(l -> l.state() == LeaseState.LOST));
            for (Lease lease : held) {
                assertEquals(RevocationResult.NODE_GONE, admin.requestRevocation(lease.nodePath()));
            }
            sleep((int) Await.scaled(QUIET).toMillis());
            assertEquals(List.of(), ranOn, "handlers of lost leases run");
        }
        held.forEach(Lease::close);
        assertClean();
    }

    /**
     * A request written into a waiting node's data (no lease to tell yet) wakes the waiter
     * behind that node at most once (a listing and a new watch), then every waiter sleeps: no
     * busy loop. Once the asked node is granted with the other still queued behind it, a
     * freed lease still reaches that waiter (for a semaphore, the grant notice must land
     * although the request changed the node's data version first: no stranded permit); the
     * asked holder, opting in then, hears the pending request at once.
     */
    @Example
    void requestIntoAWaitingNodeWakesTheWaiterBehindAtMostOnceAndStrandsNoLease() throws Exception {
        CuratorFramework holding = quietClient();
        CuratorFramework asked = quietClient();
        CuratorFramework behind = quietClient();
        LockAdmin admin = admin();
        List<List<Lease>> holders = holdToCapacity(recipe().create(holding, path), 1);
        CompletableFuture<Lease> first = queue(() -> recipe().create(asked, path).acquireAsync(LONG));
        CompletableFuture<Lease> second = queue(() -> recipe().create(behind, path).acquireAsync(LONG));
        Set<Long> waiters = sessionsOf(List.of(asked, behind));
        touchAll();
        awaitQuiet(waiters);
        String askedNode = admin.status(path).waiters().get(0).nodePath();

        Map<Long, Long> before = packets(waiters);
        assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(askedNode));
        awaitQuiet(waiters);
        Map<Long, Long> after = packets(waiters);

        assertEquals(before.get(sessionOf(asked)), after.get(sessionOf(asked)), "packets of the asked waiter");
        assertTrue(after.get(sessionOf(behind)) - before.get(sessionOf(behind)) <= 2,
                "packets of the waiter behind the asked node: " + (after.get(sessionOf(behind)) - before.get(sessionOf(behind))));
        assertFalse(first.isDone() || second.isDone(), "a waiter granted while the lock is full");
        holders.get(0).get(0).close();
        Lease askedLease = first.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertTrue(askedLease.isValid());
        awaitQuiet(waiters);
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        if (recipe().capacity() > 1) {
            holders.get(1).get(0).close();     // a permit is free while the asked node holds: the one behind it gets it
            second.get(Await.scaled(REVOCATION_BOUND).toMillis(), TimeUnit.MILLISECONDS).close();
            askedLease.onRevocationRequested(recordingHandler(ranOn, new CountDownLatch(0), Lease::close));
        } else {
            askedLease.onRevocationRequested(recordingHandler(ranOn, new CountDownLatch(0), Lease::close));
            second.get(Await.scaled(REVOCATION_BOUND).toMillis(), TimeUnit.MILLISECONDS).close();
        }
        Await.equal("the asked holder told once", 1, REVOCATION_BOUND, ranOn::size);
        Await.equal("the asked holder let go", LeaseState.RELEASED, REVOCATION_BOUND, askedLease::state);
        holders.stream().flatMap(List::stream).forEach(Lease::close);
        assertClean();
    }

    /** Waits until the server has reaped the try's empty lock directory. */
    void awaitReaped() {
        CuratorFramework any = clients.get(0);
        Await.until("empty lock directory reaped", LONG, () -> {
            try {
                return any.checkExists().forPath(path) == null;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The sequence number the server gives the next node created in the try's directory. */
    int nextSequence() throws Exception {
        var stat = clients.get(0).checkExists().forPath(path);
        return (stat.getCversion() + stat.getNumChildren()) / 2;
    }
}
