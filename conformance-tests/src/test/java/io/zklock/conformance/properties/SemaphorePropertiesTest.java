package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.testing.FaultProxy;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.FencedResource;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.BeforeTry;
import org.apache.curator.framework.CuratorFramework;

/**
 * Properties that only a semaphore has: no stranded permit when holders release out of
 * order, full use, a constant number of wake-ups per release, and one maxLeases per path.
 */
class SemaphorePropertiesTest extends ConformanceSupport {
    private static final int QUIET_SESSION_MS = 20_000;

    private int permits = Recipe.SEMAPHORE_PERMITS;

    @Override
    protected Recipe recipe() {
        return Recipe.semaphore(permits);
    }

    /** One waiter per new session, queued in this order (each waits until its node is listed). */
    private List<CompletableFuture<Lease>> queueWaiters(int count) {
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            CuratorFramework client = ZkTesting.client(zk.connectString(), QUIET_SESSION_MS);
            clients.add(client);
            int before = lockNodes();
            waiters.add(recipe().create(client, path).acquireAsync(LONG));
            Await.equal("waiter " + i + " queued", before + 1, LONG, this::lockNodes);
        }
        return waiters;
    }

    /**
     * No stranded permit, FIFO: whichever holder releases, in whatever order, the earliest
     * waiter is granted at once (before any further release), and no other waiter is.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    void outOfOrderReleasesGrantTheEarliestWaiterEachTime(
            @ForAll @IntRange(min = 1, max = 3) int maxLeases,
            @ForAll @IntRange(min = 1, max = 5) int waiting,
            @ForAll @Size(min = 8, max = 8) List<@IntRange(min = 0, max = 7) Integer> whichReleases) throws Exception {
        permits = maxLeases;
        List<Lease> holders = new ArrayList<>(fillToCapacity(locksOnNewSessions(1).get(0)));
        List<CompletableFuture<Lease>> waiters = queueWaiters(waiting);
        for (int next = 0; next < waiting; next++) {
            Lease released = holders.remove(whichReleases.get(next) % holders.size());
            released.close();
            Lease granted = waiters.get(next).get(Await.scaled(LONG).toSeconds(), TimeUnit.SECONDS);
            assertTrue(granted.isValid(), "earliest waiter " + next + " granted a valid permit");
            for (int later = next + 1; later < waiting; later++) {
                assertFalse(waiters.get(later).isDone(), "waiter " + later + " granted out of turn after release " + next);
            }
            holders.add(granted);
        }
        assertEquals(maxLeases, holders.size());
        holders.forEach(Lease::close);
        assertClean();
    }

    /** Full use: with more contenders than permits, exactly maxLeases hold at once. */
    @Property(tries = 4, shrinking = ShrinkingMode.BOUNDED)
    void contentionFillsEveryPermitAndNoMore(
            @ForAll @IntRange(min = 1, max = 4) int maxLeases,
            @ForAll @IntRange(min = 1, max = 3) int extra) throws Exception {
        permits = maxLeases;
        List<DistributedLock> locks = locksOnNewSessions(2);
        FencedResource resource = new FencedResource(maxLeases, false);
        List<CompletableFuture<Lease>> all = new ArrayList<>();
        for (int i = 0; i < maxLeases + extra; i++) {
            all.add(locks.get(i % 2).acquireAsync(LONG));
        }
        Await.equal("every contender queued", maxLeases + extra, LONG, this::lockNodes);
        Await.until(maxLeases + " permits granted", LONG, () -> all.stream().filter(CompletableFuture::isDone).count() == maxLeases);
        List<Lease> granted = new ArrayList<>();
        for (CompletableFuture<Lease> f : all) {
            if (f.isDone()) {
                Lease lease = f.get();
                assertTrue(resource.enter(lease.fencingToken()));
                granted.add(lease);
            }
        }
        assertEquals(maxLeases, resource.peak(), "peak use; granted " + granted);
        assertEquals(maxLeases, all.stream().filter(CompletableFuture::isDone).count(), "no grant beyond maxLeases");
        List<CompletableFuture<Lease>> rest = new ArrayList<>(all);
        rest.removeIf(f -> granted.contains(f.getNow(null)));
        for (Lease lease : granted) {
            resource.exit(lease.fencingToken());
            lease.close();
        }
        while (!rest.isEmpty()) {
            firstGranted(rest).close();        // in grant order: a later one waits for an earlier one
        }
        assertEquals(List.of(), resource.overlaps());
        assertClean();
    }

    /**
     * No herd: one release wakes the earliest waiter and the second (both watch the directory)
     * and, through the earliest one's grant, the third (it watches the two nodes ahead of it),
     * and no other client, however long the queue. The window opens once every waiter has gone
     * quiet (the head's wake-ups from the arrivals are over) and closes once those it must wake
     * have been active and all have gone quiet again, so a slow machine neither misses a wake-up
     * nor counts an arrival's.
     */
    @Property(tries = 5, shrinking = ShrinkingMode.BOUNDED)
    void aReleaseWakesAtMostThreeWaitersWhateverTheQueueLength(
            @ForAll @IntRange(min = 1, max = 3) int maxLeases,
            @ForAll @IntRange(min = 1, max = 8) int waiting,
            @ForAll @IntRange(min = 0, max = 2) int whichHolder) throws Exception {
        permits = maxLeases;
        List<Lease> holders = new ArrayList<>(fillToCapacity(locksOnNewSessions(1).get(0)));
        List<CompletableFuture<Lease>> waiters = queueWaiters(waiting);
        List<Long> sessions = new ArrayList<>();
        for (int i = 0; i < waiting; i++) {
            sessions.add(clients.get(1 + i).getZookeeperClient().getZooKeeper().getSessionId());
        }
        Set<Long> waitingSessions = new HashSet<>(sessions);
        Set<Long> expected = new HashSet<>(sessions.subList(0, Math.min(3, waiting)));
        awaitQuiet(waitingSessions);             // the head's wake-ups from the arrivals are over
        touchAll();                              // no session pings for the next few seconds
        Map<Long, Long> before = packets(waitingSessions);
        Set<Long> woken = zk.probe.sessionsActiveDuring(waitingSessions, () -> {
            holders.remove(whichHolder % maxLeases).close();
            waiters.get(0).get(LONG.toSeconds(), TimeUnit.SECONDS);
            Await.until("the first " + expected.size() + " of " + waiting + " waiters woken", LONG,
                    () -> sentSince(before, expected));
            awaitQuiet(waitingSessions);         // any other wake-up of this release is over too
        });
        assertEquals(expected, woken, "sessions woken by one release, queue of " + waiting);
        holders.add(waiters.get(0).get());
        for (Lease lease : holders) {
            lease.close();
        }
        for (int i = 1; i < waiting; i++) {
            waiters.get(i).get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        }
        assertClean();
    }

    /** Whether each of {@code sessions} has sent a packet since {@code before} was read. */
    private boolean sentSince(Map<Long, Long> before, Set<Long> sessions) {
        Map<Long, Long> now = packets(sessions);
        return sessions.stream().allMatch(s -> now.get(s) > before.get(s));
    }

    /**
     * Session expiry of a holder frees its permit: its lease turns LOST, tells its listener,
     * and the earliest waiter is granted while the other holders keep theirs.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void aHoldersSessionExpiryFreesItsPermitForTheEarliestWaiter(
            @ForAll @IntRange(min = 1, max = 3) int maxLeases,
            @ForAll @IntRange(min = 1, max = 3) int waiting) throws Exception {
        permits = maxLeases;
        List<DistributedLock> holderLocks = locksOnNewSessions(maxLeases);
        List<Lease> holders = new ArrayList<>();
        for (DistributedLock lock : holderLocks) {
            holders.add(lock.acquire());
        }
        List<LeaseState> told = new CopyOnWriteArrayList<>();
        Lease doomed = holders.get(0);
        doomed.addListener((lease, state) -> told.add(state));
        List<CompletableFuture<Lease>> waiters = queueWaiters(waiting);

        Sessions.expire(clients.get(0), zk.connectString());

        Lease granted = waiters.get(0).get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertTrue(granted.isValid());
        Await.until("the expired holder's lease is LOST", LONG, () -> doomed.state() == LeaseState.LOST);
        Await.until("its listener told LOST", LONG, () -> told.contains(LeaseState.LOST));
        for (int i = 1; i < waiting; i++) {
            assertFalse(waiters.get(i).isDone(), "waiter " + i + " granted: more permits than freed");
        }
        for (int i = 1; i < holders.size(); i++) {
            assertTrue(holders.get(i).isValid(), "other holders keep their permits");
        }
        doomed.close();
        holders.subList(1, holders.size()).forEach(Lease::close);
        granted.close();
        for (int i = 1; i < waiting; i++) {
            waiters.get(i).get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        }
        assertClean();
    }

    /** Session timeout of the waiter whose process dies: twice {@link #PROMOTION_BOUND}, so its expiry frees nothing in a try. */
    private static final int DEAD_SESSION_MS = 30_000;
    /**
     * How soon a live waiter inside the permit window must be granted: generous for a loaded
     * machine, and still half of {@link #DEAD_SESSION_MS}, so a permit stranded until the dead
     * session expires exceeds it.
     */
    private static final Duration PROMOTION_BOUND = Duration.ofSeconds(15);

    /**
     * A killed waiter never strands a permit: while one waiter's process is dead (its
     * connection frozen, so nothing more from it reaches the server, which keeps its session
     * and its node), live clients release in any order, and every live waiter whose node comes within
     * the first maxLeases nodes is granted within {@link #PROMOTION_BOUND}, long before the
     * dead session could expire; and never more than maxLeases nodes hold, the dead one
     * counted once it is among the first maxLeases.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.OFF)
    void aKilledWaiterNeverStrandsAPermit(
            @ForAll @IntRange(min = 2, max = 3) int maxLeases,
            @ForAll @IntRange(min = 2, max = 5) int waiting,
            @ForAll @IntRange(min = 0, max = 3) int deadAt,
            @ForAll @Size(min = 12, max = 12) List<@IntRange(min = 0, max = 7) Integer> whichReleases) throws Exception {
        permits = maxLeases;
        int dead = deadAt % (waiting - 1);     // someone queues behind the dead waiter
        List<Lease> holders = new ArrayList<>(fillToCapacity(locksOnNewSessions(1).get(0)));
        try (FaultProxy proxy = FaultProxy.to(zk.connectString())) {
            List<CompletableFuture<Lease>> waiters = new ArrayList<>();
            List<CuratorFramework> waiterClients = new ArrayList<>();
            for (int i = 0; i < waiting; i++) {
                CuratorFramework client = i == dead
                        ? ZkTesting.client(proxy.connectString(), DEAD_SESSION_MS)
                        : ZkTesting.client(zk.connectString(), QUIET_SESSION_MS);
                clients.add(client);
                waiterClients.add(client);
                int before = lockNodes();
                waiters.add(recipe().create(client, path).acquireAsync(LONG));
                Await.equal("waiter " + i + " queued", before + 1, LONG, this::lockNodes);
            }
            awaitQuiet(sessionsOf(waiterClients));   // every waiter has listed and set its watch
            proxy.freeze();                          // the process dies: nothing more from it reaches the server
            // the queue in order: the holders (in the order they release), then the waiters
            List<Object> queue = new ArrayList<>(holders);
            for (int i = 0; i < waiting; i++) {
                queue.add(i);
            }
            List<Integer> live = new ArrayList<>();
            for (int i = 0; i < waiting; i++) {
                if (i != dead) {
                    live.add(i);
                }
            }
            List<Lease> granted = new ArrayList<>(holders);   // the live holders
            int releases = 0;
            while (!live.isEmpty()) {
                Lease released = granted.remove(whichReleases.get(releases++ % whichReleases.size()) % granted.size());
                released.close();
                queue.remove(released);
                for (int at = 0; at < maxLeases; at++) {
                    if (queue.get(at) instanceof Integer w && w != dead && live.contains(w)) {
                        Lease lease;
                        try {
                            lease = waiters.get(w).get(PROMOTION_BOUND.toMillis(), TimeUnit.MILLISECONDS);
                        } catch (java.util.concurrent.TimeoutException e) {
                            throw new AssertionError("waiter " + w + " of " + waiting + " (dead: " + dead + ", maxLeases "
                                    + maxLeases + ") is among the first " + maxLeases + " nodes after " + releases
                                    + " releases but not granted within " + PROMOTION_BOUND + ": a stranded permit", e);
                        }
                        assertTrue(lease.isValid(), "waiter " + w + " granted a valid permit");
                        queue.set(at, lease);
                        granted.add(lease);
                        live.remove(w);
                    }
                }
                int valid = (int) granted.stream().filter(Lease::isValid).count();
                boolean deadHolds = queue.indexOf((Object) dead) < maxLeases;
                assertTrue(valid + (deadHolds ? 1 : 0) <= maxLeases, valid + " valid leases"
                        + (deadHolds ? " beside the dead waiter's permit" : "") + " of " + maxLeases);
                for (int w : live) {
                    assertFalse(waiters.get(w).isDone(), "waiter " + w + " granted outside the first " + maxLeases + " nodes");
                }
                assertFalse(waiters.get(dead).isDone() && !waiters.get(dead).isCompletedExceptionally(),
                        "the dead waiter was granted while frozen");
            }
            granted.forEach(Lease::close);
            proxy.heal();                            // its session ends by a close, not by an expiry long after the try
            waiterClients.get(dead).close();
        }
        assertClean();
    }

    /** One maxLeases per path: a client asking with another value is refused, naming both, and leaves no node. */
    @Property(tries = 4, shrinking = ShrinkingMode.BOUNDED)
    void aDifferentMaxLeasesIsRefusedNamingBothValues(
            @ForAll @IntRange(min = 1, max = 5) int established,
            @ForAll @IntRange(min = 1, max = 4) int delta,
            @ForAll boolean async) throws Exception {
        permits = established;
        DistributedLock first = locksOnNewSessions(1).get(0);
        CuratorFramework rogueClient = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
        clients.add(rogueClient);
        int asked = established + delta;
        ZkSemaphore rogue = new ZkSemaphore(rogueClient, path, asked);
        try (Lease held = first.acquire()) {
            Throwable refusal;
            if (async) {
                ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                        () -> rogue.acquireAsync(LONG).get(LONG.toSeconds(), TimeUnit.SECONDS));
                refusal = e.getCause();
            } else {
                refusal = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> rogue.tryAcquire(LONG));
            }
            assertInstanceOf(IllegalStateException.class, refusal);
            assertTrue(refusal.getMessage().contains("maxLeases " + established)
                    && refusal.getMessage().contains("maxLeases " + asked), refusal.getMessage());
            Await.equal("rogue node removed", 1, LONG, this::lockNodes);
            assertTrue(held.isValid());
        }
        assertClean();
    }

    @BeforeTry
    void defaultPermits() {
        permits = Recipe.SEMAPHORE_PERMITS;
    }
}
