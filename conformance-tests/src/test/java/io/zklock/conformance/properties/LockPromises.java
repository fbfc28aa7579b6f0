package io.zklock.conformance.properties;

import static io.zklock.conformance.harness.ConformanceSupport.LONG;
import static io.zklock.conformance.harness.ConformanceSupport.QUIET;
import static io.zklock.conformance.harness.ConformanceSupport.REVOCATION_BOUND;
import static io.zklock.conformance.harness.ConformanceSupport.assertLibraryThreads;
import static io.zklock.conformance.harness.ConformanceSupport.firstGranted;
import static io.zklock.conformance.harness.ConformanceSupport.indexes;
import static io.zklock.conformance.harness.ConformanceSupport.recordingHandler;
import static io.zklock.conformance.harness.ConformanceSupport.sessionOf;
import static io.zklock.conformance.harness.ConformanceSupport.sessionsOf;
import static io.zklock.conformance.harness.ConformanceSupport.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

import io.zklock.conformance.harness.ConformanceSupport.Abandon;
import io.zklock.conformance.harness.FencedReadWriteResource;
import io.zklock.conformance.harness.PropertyTry;
import io.zklock.conformance.harness.Recipe;
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
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.curator.framework.CuratorFramework;

/**
 * The properties every recipe keeps (mutex, semaphore, read lock, write lock, multi-lock), run
 * against a real ZooKeeper. Nothing here assumes that one holder excludes another: a property
 * that does lives in {@link ExclusivePromises}, one about re-entry in
 * {@link ReentrantPromises}. Where a property needs a request that waits, it takes the
 * recipe's rival ({@link Recipe#rival}: the recipe itself, or the write lock for a read lock).
 * A recipe's test class extends {@link io.zklock.conformance.harness.ConformanceSupport},
 * implements this group and each other group its promises allow, and names the recipe from
 * {@link Recipe#all()}; jqwik generates the schedules and shrinks a failure to a small one.
 * Each try works under a fresh path and ends with a leak check: no node of the try left, and no
 * watch left on the server while its clients are still open.
 */
public interface LockPromises extends PropertyTry {

    /** The recipe under test: the factory of the locks each property judges. */
    Recipe recipe();

    // ---- properties ----------------------------------------------------------------------------

    /**
     * Mutual exclusion: however many sessions and threads contend, holding the recipe or (when
     * {@code rivals}) its rival, never more than the recipe's capacity of distinct holders are
     * inside the fenced resource at once, never a holder beside a rival's holder (readers never
     * with a writer), and no exclusive holder is ever refused as stale.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    default void neverMoreHoldersThanCapacity_judgedByFencedResource(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @IntRange(min = 1, max = 3) int threadsPerSession,
            @ForAll @IntRange(min = 1, max = 3) int rounds,
            @ForAll @IntRange(min = 0, max = 3) int holdMillis,
            @ForAll @IntRange(min = 1, max = 3) int depth,
            @ForAll boolean rivals) throws Exception {
        boolean shared = recipe().shared();
        FencedResource resource = shared ? null : new FencedResource(recipe().capacity(), recipe().exclusive());
        FencedReadWriteResource sharedResource = shared ? new FencedReadWriteResource() : null;
        List<DistributedLock> locks = locksOnNewSessions(sessions);
        List<DistributedLock> rivalLocks = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            rivalLocks.add(recipe().rival(clients().get(s), path()));
        }
        int nesting = recipe().reentrant() ? depth : 1;
        runThreads(sessions * threadsPerSession, t -> {
            boolean rival = rivals && t % 2 == 1;
            DistributedLock lock = (rival ? rivalLocks : locks).get(t % sessions);
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
                    if (!shared) {
                        assertTrue(resource.enter(token), "holder with token " + token + " refused as stale");
                        sleep(holdMillis);
                        resource.exit(token);
                    } else if (rival) {
                        assertTrue(sharedResource.enterWrite(token), "rival with token " + token + " refused as stale");
                        sleep(holdMillis);
                        sharedResource.exitWrite(token);
                    } else {
                        sharedResource.enterRead("t" + t);
                        sleep(holdMillis);
                        sharedResource.exitRead();
                    }
                } finally {
                    Collections.reverse(leases);
                    leases.forEach(Lease::close);
                }
            }
        });
        if (shared) {
            assertEquals(List.of(), sharedResource.overlaps());
            assertEquals(List.of(), sharedResource.refused());
        } else {
            assertEquals(List.of(), resource.overlaps());
            assertTrue(resource.peak() >= 1 && resource.peak() <= recipe().capacity(), "peak " + resource.peak());
        }
        assertClean();
    }

    /**
     * Liveness of a queue: waiters queued one after another behind holders that shut them out
     * are each granted exactly once when the holders let go (in which order is the business
     * of {@link ExclusivePromises#grantsFollowQueueOrder}).
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    default void everyWaiterQueuedBehindTheHoldersIsGrantedOnce(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @IntRange(min = 2, max = 6) int waiters) throws Exception {
        Granted granted = queueBehindHoldersAndRelease(sessions, waiters);
        List<Integer> sortedGrants = new ArrayList<>(granted.order());
        Collections.sort(sortedGrants);
        assertEquals(indexes(waiters), sortedGrants, "every waiter granted once");
        assertClean();
    }

    /**
     * Lease state is never optimistic: a lease closed while its client is cut off from
     * ZooKeeper (session alive) stays unreleased until the server is back and its node is gone,
     * then is RELEASED, told once; the close does not wait for the connection.
     */
    @Example
    default void closeWhileCutOffIsNotReleasedUntilTheNodeIsGone() throws Exception {
        closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone((client, p) -> recipe().create(client, p).acquire());
    }

    /**
     * Hygiene: waiters that time out, are interrupted or are cancelled while the lock is held
     * leave no node and no watch behind, and the holder keeps the lock throughout.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    default void abandonedRequestsLeaveNoNodeAndNoWatch(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @Size(min = 1, max = 5) List<Abandon> waiters,
            @ForAll @IntRange(min = 1, max = 40) int timeoutMillis) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(sessions);
        List<Lease> holders = shutOut(clients().get(0));
        int held = lockNodes();
        int holderWatches = cachingSessions();  // a session caching nodes under the try's root keeps one watch there
        for (int i = 0; i < waiters.size(); i++) {
            DistributedLock lock = recipe().create(clients().get(i % sessions), path());
            abandonWhileHeld(lock, waiters.get(i), timeoutMillis, held, holderWatches);
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
    default void grantRacingTimeoutIsReturnedOrReleased(
            @ForAll @IntRange(min = 0, max = 30) int releaseAfterMillis,
            @ForAll @IntRange(min = 1, max = 30) int timeoutMillis) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        List<Lease> holders = shutOut(clients().get(0));
        Thread releaser = start("releaser", () -> {
            sleep(releaseAfterMillis);
            holders.forEach(Lease::close);
        });
        Optional<Lease> got = locks.get(1).tryAcquire(Duration.ofMillis(timeoutMillis));
        joinAll(List.of(releaser));
        if (got.isPresent()) {
            assertTrue(got.get().isValid(), "granted lease valid");
            if (recipe().cached() && recipe().permits() > 1) {   // a semaphore's waiter asks back only the permits it needs:
                                                // the holders' other cached permits go when their client's cache closes
                Recipe.closeLock(recipe().create(clients().get(0), path()));
                Await.equal("nodes once the holders' cache let go", 1, LONG, this::lockNodes);
            } else {
                assertEquals(1, lockNodes());
            }
            got.get().close();
        }
        assertClean();
    }

    /**
     * Session expiry while waiting: the waiter re-queues on its new session and is granted
     * once the holder releases; it is never granted on its dead session's node.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    default void waiterWhoseSessionExpiresRequeuesAndIsGranted(@ForAll boolean async) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        List<Lease> holders = shutOut(clients().get(0));
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
        long deadSession = clients().get(1).getZookeeperClient().getZooKeeper().getSessionId();
        Sessions.expire(clients().get(1), zk().connectString());
        Await.until("waiter re-queued on a new session", LONG, () -> {
            try {
                long now = clients().get(1).getZookeeperClient().getZooKeeper().getSessionId();
                return now != deadSession && lockNodes() == queued;
            } catch (Exception e) {
                return false;
            }
        });
        assertFalse(waiting.isDone(), "waiter granted while the holder holds");
        holders.forEach(Lease::close);
        try (Lease lease = waiting.get(LONG.toSeconds(), TimeUnit.SECONDS)) {
            assertTrue(lease.isValid());
            assertEquals(clients().get(1).getZookeeperClient().getZooKeeper().getSessionId(),
                    clients().get(0).checkExists().forPath(lease.nodePath()).getEphemeralOwner(),
                    "granted node owned by the waiter's live session");
        }
        assertClean();
    }

    /**
     * Cleanup: once every holder and waiter has gone, the lock directory is a container with no
     * children and the server reaps it; a later acquisition recreates it and still works.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    default void emptyLockDirectoryIsReapedAndRecreatedOnDemand(@ForAll @IntRange(min = 1, max = 3) int holders)
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
    default void reacquireIsNeverGrantedOnAReapedAndRecreatedDirectoryWhileOthersHold(
            @ForAll @IntRange(min = 0, max = 2) int extraCycles) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(3);
        DistributedLock mine = locks.get(0);
        int cycles = recipe().rivalHolds() + extraCycles;   // our nodes are numbered 0 .. cycles - 1
        for (int i = 0; i < cycles; i++) {
            mine.acquire().close();
        }
        awaitReaped();
        List<Lease> theirs = shutOut(clients().get(1));        // numbers 0 .. rivalHolds - 1 in the new directory
        for (int i = recipe().rivalHolds(); i < cycles; i++) {
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

    /**
     * Takes every lease the recipe admits (one of a shared recipe), each on a thread of its own (nested {@code depth}
     * times there for a reentrant recipe); one list of views per holder, in grant order.
     */
    default List<List<Lease>> holdToCapacity(DistributedLock lock, int depth) throws Exception {
        List<List<Lease>> holders = new CopyOnWriteArrayList<>();
        for (int i = 0; i < recipe().holds(); i++) {
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
    default void revocableHolderAskedToLetGoReleasesWithinABoundAndTheFirstWaiterIsGranted(
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
            DistributedLock lock = recipe().rival(clients().get(1 + i % 2), path());
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
    default void holderAskedThatKeepsItsLeaseTurnsLostWhenItsNodeIsForcedOut() throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        LockAdmin admin = admin();
        List<List<Lease>> holders = holdToCapacity(locks.get(0), recipe().reentrant() ? 2 : 1);
        List<Lease> victim = holders.get(holders.size() - 1);
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        victim.get(0).onRevocationRequested(recordingHandler(ranOn, new CountDownLatch(0), lease -> { }));
        CompletableFuture<Lease> waiter = queue(() -> recipe().rival(clients().get(1), path()).acquireAsync(LONG));

        assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(victim.get(0).nodePath()));
        Await.equal("handler told", 1, REVOCATION_BOUND, ranOn::size);
        sleep((int) Await.scaled(QUIET).toMillis());
        assertTrue(victim.stream().allMatch(Lease::isValid), "the holder kept its lease when asked");
        assertFalse(waiter.isDone(), "granted while the holder kept its lease");

        clients().get(0).delete().forPath(victim.get(0).nodePath());
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
    default void nonRevocableHolderKeepsItsLeaseAfterARequestThatStatusShows() throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        LockAdmin admin = admin();
        List<List<Lease>> holders = holdToCapacity(locks.get(0), 1);
        Lease holder = holders.get(0).get(0);
        CompletableFuture<Lease> waiter = queue(() -> recipe().rival(clients().get(1), path()).acquireAsync(LONG));

        assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(holder.nodePath()));
        sleep((int) Await.scaled(QUIET).toMillis() * 2);

        assertEquals(LeaseState.HELD, holder.state());
        assertTrue(holder.isValid());
        assertNotNull(clients().get(0).checkExists().forPath(holder.nodePath()), "the holder's node");
        assertFalse(waiter.isDone(), "the waiter granted");
        LockStatus status = admin.status(inspectedPath());
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
    default void requestToAVanishedNodeIsNodeGoneAndCreatesNothing(@ForAll boolean reaped) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        LockAdmin admin = admin();
        CuratorFramework any = clients().get(0);
        Lease gone = locks.get(0).acquire();
        String node = gone.nodePath();
        gone.close();
        releaseCaches();                       // a cached recipe's closed lease leaves its node until the lock closes
        Lease other = null;
        if (reaped) {
            awaitReaped();
            assertEquals(LockStatus.State.ABSENT, admin.status(inspectedPath()).state(), "status of a reaped directory");
        } else {
            other = locks.get(1).acquire();
        }
        List<String> before = ZkTesting.children(any, inspectedPath());

        assertEquals(RevocationResult.NODE_GONE, admin.requestRevocation(node));

        assertNull(any.checkExists().forPath(node), "a node made by the request");
        assertEquals(before, ZkTesting.children(any, inspectedPath()), "the directory after the request");
        if (reaped) {
            assertNull(any.checkExists().forPath(path()), "the reaped directory made again");
            assertEquals(LockStatus.State.ABSENT, admin.status(inspectedPath()).state());
        }
        for (String bad : List.of(path(), path() + "/not-a-lock-node", "relative/_c_x-mutex-0000000001", path() + "/", "")) {
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
     * Hygiene of revocation: a lease that opted in sets one watch on the server per node it
     * stands on, however many views and handlers opted in; once the lease ends (revoked, never asked, or asked without
     * having opted in) no watch is left on the server.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    default void noWatchIsLeftOnTheServerOnceALeaseEnds(
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
                Await.equal("one revocation watch per node of the lease", recipe().nodesPerLease(), LONG, zk().probe::watchCount);
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
            releaseCaches();                   // a cached recipe keeps an unasked node until its lock closes
            assertEquals(0, lockNodes());
            Await.equal("watches on the server after " + what, 0, LONG, zk().probe::watchCount);
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
    default void statusListsExactlyTheServersNodesInQueueOrderWithTheGrantedHolders(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @IntRange(min = 1, max = 6) int requests) throws Exception {
        // the readers of one session share its cached read node: with caching, one session per request
        List<DistributedLock> locks = locksOnNewSessions(recipe().cached() && recipe().shared() ? requests : sessions);
        LockAdmin admin = admin();
        List<CompletableFuture<Lease>> queued = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            DistributedLock lock = locks.get(i % locks.size());
            queued.add(queue(() -> lock.acquireAsync(LONG)));
        }
        int holding = Math.min(requests, recipe().capacity());
        List<Lease> granted = new ArrayList<>();
        for (CompletableFuture<Lease> f : queued.subList(0, holding)) {
            granted.add(f.get(LONG.toSeconds(), TimeUnit.SECONDS));
        }

        LockStatus status = admin.status(inspectedPath());

        Recipe.Inspected named = recipe().inspected();
        assertStatusMatchesServer(status, granted, Collections.nCopies(requests, named.kind()), named.recipe(), named.maxLeases());
        assertFalse(queued.subList(holding, requests).stream().anyMatch(CompletableFuture::isDone), "a waiter granted");
        granted.forEach(Lease::close);
        List<CompletableFuture<Lease>> rest = new ArrayList<>(queued.subList(holding, requests));
        while (!rest.isEmpty()) {
            firstGranted(rest).close();
        }
        releaseCaches();                       // a cached recipe's idle nodes go with their lock objects
        Await.equal("status of an idle lock", LockStatus.State.ABSENT, LONG, () -> admin.status(inspectedPath()).state());
        assertClean();
    }

    /**
     * Session expiry of a holder that opted in: its lease is LOST and its handler never runs,
     * a request to its node is NODE_GONE, the next waiter is granted, and no watch is left.
     */
    @Example
    default void holderWhoseSessionExpiresIsLostWithoutItsHandlerAndTheNextWaiterIsGranted() throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(2);
        LockAdmin admin = admin();
        List<Lease> held = holdToCapacity(locks.get(0), 1).stream().map(views -> views.get(0)).toList();
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        held.forEach(lease -> lease.onRevocationRequested(recordingHandler(ranOn, new CountDownLatch(0), Lease::close)));
        CompletableFuture<Lease> waiter = queue(() -> recipe().rival(clients().get(1), path()).acquireAsync(LONG));

        Sessions.expire(clients().get(0), zk().connectString());

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
    default void requestIntoAWaitingNodeWakesTheWaiterBehindAtMostOnceAndStrandsNoLease() throws Exception {
        CuratorFramework holding = quietClient();
        CuratorFramework asked = quietClient();
        CuratorFramework behind = quietClient();
        LockAdmin admin = admin();
        List<List<Lease>> holders = holdToCapacity(recipe().create(holding, path()), 1);
        CompletableFuture<Lease> first = queue(() -> recipe().rival(asked, path()).acquireAsync(LONG));
        CompletableFuture<Lease> second = queue(() -> recipe().rival(behind, path()).acquireAsync(LONG));
        Set<Long> waiters = sessionsOf(List.of(asked, behind));
        touchAll();
        awaitQuiet(waiters);
        String askedNode = admin.status(inspectedPath()).waiters().get(0).nodePath();

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
        if (recipe().holds() > 1) {
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
}
