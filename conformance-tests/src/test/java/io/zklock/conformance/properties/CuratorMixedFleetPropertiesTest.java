package io.zklock.conformance.properties;

import static io.zklock.conformance.harness.MixedFleet.Library.CURATOR;
import static io.zklock.conformance.harness.MixedFleet.Library.ZKLOCK_COMPAT;
import static io.zklock.conformance.harness.MixedFleet.Library.ZKLOCK_DEFAULT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.zklock.conformance.harness.MixedFleet;
import io.zklock.conformance.harness.MixedFleet.CountingResource;
import io.zklock.conformance.harness.MixedFleet.Library;
import io.zklock.conformance.harness.MixedFleet.Participant;
import io.zklock.conformance.harness.MixedFleet.Shape;
import io.zklock.conformance.harness.SharedServer;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LockCompatibility;
import io.zklock.core.LockException;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Mixed fleets on one path per recipe: Curator's recipes beside zklock's in
 * {@link LockCompatibility#CURATOR}, and zklock's two modes beside each other (the mutex: all
 * three at once). Each participant on a session of its own loops acquire / 1-3 ms of work /
 * release until every participant has been granted {@link #GRANTS} times (or for
 * {@link #RUN_LIMIT}) while a counting resource judges every entry.
 */
class CuratorMixedFleetPropertiesTest {
    /** Grants each participant of a fleet is run to: enough for a read-write participant's writes to be starved or not. */
    private static final int GRANTS = 20;
    /** How long a fleet runs at most: a participant short of {@link #GRANTS} by then was starved, or nearly. */
    private static final Duration RUN_LIMIT = Duration.ofSeconds(30);
    private final SharedServer zk = SharedServer.get();
    private final List<CuratorFramework> clients = new ArrayList<>();
    private String path;
    private CuratorFramework checker;

    @BeforeEach
    void freshPath() {
        path = "/mixed/" + UUID.randomUUID();
        checker = client();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(CuratorFramework::close);
    }

    private CuratorFramework client() {
        CuratorFramework client = ZkTesting.client(zk.connectString(), 15_000);
        clients.add(client);
        return client;
    }

    static Stream<Arguments> fleets() {
        return Stream.of(
                Arguments.of(Shape.MUTEX, List.of(CURATOR, CURATOR, ZKLOCK_COMPAT, ZKLOCK_COMPAT, ZKLOCK_DEFAULT, ZKLOCK_DEFAULT)),
                Arguments.of(Shape.READ_WRITE, List.of(CURATOR, CURATOR, CURATOR, ZKLOCK_COMPAT, ZKLOCK_COMPAT, ZKLOCK_COMPAT)),
                Arguments.of(Shape.SEMAPHORE, List.of(CURATOR, CURATOR, CURATOR, ZKLOCK_COMPAT, ZKLOCK_COMPAT, ZKLOCK_COMPAT)),
                Arguments.of(Shape.READ_WRITE, List.of(ZKLOCK_COMPAT, ZKLOCK_COMPAT, ZKLOCK_COMPAT, ZKLOCK_DEFAULT, ZKLOCK_DEFAULT,
                        ZKLOCK_DEFAULT)),
                Arguments.of(Shape.SEMAPHORE, List.of(ZKLOCK_COMPAT, ZKLOCK_COMPAT, ZKLOCK_COMPAT, ZKLOCK_DEFAULT, ZKLOCK_DEFAULT,
                        ZKLOCK_DEFAULT)));
    }

    /**
     * Never more holders than the lock admits, no reader beside a writer, every participant
     * granted (and for the read-write lock, granted its writes: every third attempt is one), no
     * waiter of zklock's two semaphore modes stranded, nothing left behind.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fleets")
    void mixedFleetExcludesAndProgresses(Shape shape, List<Library> libraries) throws Exception {
        CountingResource resource = new CountingResource(shape);
        List<Participant> fleet = new ArrayList<>();
        for (int i = 0; i < libraries.size(); i++) {
            Library library = libraries.get(i);
            fleet.add(new Participant(library + "-" + i, library, MixedFleet.handle(library, shape, client(), path), resource,
                    shape == Shape.READ_WRITE).start());
        }
        runUntilGranted(fleet);
        String report = shape + " " + fleet + ", at most " + resource.mostInside() + " inside";
        System.out.println("mixed fleet: " + report);
        assertEquals(0, resource.violations(), report + "; " + resource.firstViolations());
        for (Participant p : fleet) {
            assertTrue(p.errors.isEmpty(), p + ": " + p.errors);
            assertTrue(p.grants.get() > 0, "starved: " + p);
        }
        if (shape == Shape.READ_WRITE) {
            assertTrue(fleet.stream().allMatch(p -> p.writes.get() > 0 || p.grants.get() < 6), "writers starved: " + fleet);
        }
        if (shape == Shape.SEMAPHORE && !libraries.contains(CURATOR)) {
            // the default mode lists leases/ and locks/ below the path beside compatibility-mode clients: a
            // waiter stranded by that extra step (a directory event lost meanwhile) shows as a timeout (MixedFleet.ATTEMPT)
            assertEquals(0, fleet.stream().mapToInt(p -> p.timeouts.get()).sum(), "waiters that timed out: " + fleet);
        }
        assertNothingLeft();
    }

    /**
     * Lets {@code fleet} run until each participant has been granted {@link #GRANTS} times, or
     * for {@link #RUN_LIMIT} (scaled), then stops it: a slow machine takes longer, a participant
     * that cannot progress is left short.
     */
    private static void runUntilGranted(List<Participant> fleet) throws InterruptedException {
        long deadline = System.nanoTime() + Await.scaled(RUN_LIMIT).toNanos();
        while (fleet.stream().anyMatch(p -> p.grants.get() < GRANTS) && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        for (Participant p : fleet) {
            p.stop();
        }
    }

    /**
     * The default-mode semaphore never grants silently beside Curator's semaphore clients, which
     * do not count its permits: while a Curator lease is held it refuses with a LockException
     * naming the path and Curator's lease node, leaving no node; beside a compatibility-mode
     * holder (whose lease nodes are zklock's: phase 3) it is granted as usual.
     */
    @Test
    void defaultSemaphoreRefusesBesideCurator() throws Exception {
        InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(client(), path, 2);
        org.apache.curator.framework.recipes.locks.Lease curatorLease = curator.acquire();
        ZkSemaphore ours = new ZkSemaphore(client(), path, 2);
        try {
            LockException e = assertThrows(LockException.class, () -> ours.tryAcquire(Duration.ofSeconds(5)));
            String leaseNode = "leases/" + curatorLease.getNodeName();
            assertTrue(e.getMessage().contains(path) && e.getMessage().contains(leaseNode)
                    && e.getMessage().contains("InterProcessSemaphoreV2") && e.getMessage().contains("LockCompatibility.CURATOR"),
                    e.getMessage());
            assertEquals(List.of(), checker.getChildren().forPath(path).stream().filter(c -> c.startsWith("_c_")).toList(),
                    "the refused request's permit node is gone");
        } finally {
            curator.returnLease(curatorLease);
        }
        try (io.zklock.core.Lease compat = new ZkSemaphore(client(), path, 2, LockCompatibility.CURATOR).tryAcquire(Duration.ofSeconds(5))
                .orElseThrow(); io.zklock.core.Lease lease = ours.tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
            assertTrue(compat.isValid() && lease.isValid());
        }
        assertNothingLeft();
    }

    /**
     * Curator's multi-lock (one lock after the other, in list order) and zklock's over
     * compatibility-mode mutexes (one transaction), the two libraries listing the same two paths
     * in opposite orders, two clients each: both sides are granted, Curator's never waits out a
     * timeout (zklock's yields to it rather than hold one lock while waiting for the other), and
     * each path has one holder at a time.
     */
    @Test
    void multiLocksOfBothLibrariesNeverDeadlock() throws Exception {
        String a = path + "/a";
        String b = path + "/b";
        CountingResource onA = new CountingResource(Shape.MUTEX);
        CountingResource onB = new CountingResource(Shape.MUTEX);
        List<Participant> fleet = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            boolean curator = i < 2;            // Curator's multi-locks deadlock among themselves over opposite orders
            List<String> order = curator ? List.of(a, b) : List.of(b, a);
            CuratorFramework client = client();
            MixedFleet.Handle handle;
            if (curator) {
                org.apache.curator.framework.recipes.locks.InterProcessMultiLock multi =
                        new org.apache.curator.framework.recipes.locks.InterProcessMultiLock(client, order);
                handle = (write, timeout) -> multi.acquire(timeout.toMillis(), TimeUnit.MILLISECONDS) ? new MixedFleet.Held() {
                    @Override
                    public boolean valid() {
                        return true;
                    }

                    @Override
                    public void release() throws Exception {
                        multi.release();
                    }
                } : null;
            } else {
                ZkMultiLock multi = new ZkMultiLock(order.stream()
                        .map(p -> new ZkMutex(client, p, LockCompatibility.CURATOR)).toList());
                handle = (write, timeout) -> multi.tryAcquire(timeout).<MixedFleet.Held>map(lease -> new MixedFleet.Held() {
                    @Override
                    public boolean valid() {
                        return lease.isValid();
                    }

                    @Override
                    public void release() {
                        lease.close();
                    }
                }).orElse(null);
            }
            MixedFleet.Handle both = handle;
            String name = (curator ? "curator-" : "zklock-") + i;
            fleet.add(new Participant(name, curator ? CURATOR : ZKLOCK_COMPAT, (write, timeout) -> {
                MixedFleet.Held held = both.acquire(write, timeout);
                if (held == null) {
                    return null;
                }
                onA.enter(name, true, held);
                onB.enter(name, true, held);
                return new MixedFleet.Held() {
                    @Override
                    public boolean valid() {
                        return held.valid();
                    }

                    @Override
                    public void release() throws Exception {
                        onA.leave(held);
                        onB.leave(held);
                        held.release();
                    }
                };
            }, new CountingResource(Shape.SEMAPHORE), false).start());
        }
        Thread.sleep(4000);
        for (Participant p : fleet) {
            p.stop();
        }
        System.out.println("multi-locks: " + fleet);
        assertEquals(0, onA.violations() + onB.violations(), onA.firstViolations() + " " + onB.firstViolations());
        for (Participant p : fleet) {
            assertTrue(p.errors.isEmpty(), p + ": " + p.errors);
            assertTrue(p.grants.get() > 0, "starved: " + p);
            if (p.library == CURATOR) {           // zklock's side yields to Curator's, and may wait out its timeout under a constant stream
                assertEquals(0, p.timeouts.get(), "an acquisition timed out after " + MixedFleet.ATTEMPT
                        + " (a deadlock broken by the timeout): " + fleet);
            }
        }
        assertNothingLeft();
    }

    private void assertNothingLeft() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> left = ZkTesting.lockNodesBelow(checker, path);
        while (!left.isEmpty() && System.nanoTime() < until) {
            Thread.sleep(50);
            left = ZkTesting.lockNodesBelow(checker, path);
        }
        assertEquals(List.of(), left, "nodes left behind");
    }

    /**
     * The default mode of the read-write lock refuses with a LockException (a condition of the
     * path, not a misuse), naming the path and Curator's nodes, while Curator's clients queue on it.
     */
    @Test
    void defaultReadWriteLockRefusesBesideCurator() throws Exception {
        InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client(), path);
        curator.readLock().acquire();
        try {
            ZkReadWriteLock ours = new ZkReadWriteLock(client(), path);
            LockException read = assertThrows(LockException.class, () -> ours.readLock().tryAcquire(Duration.ofSeconds(5)));
            LockException write = assertThrows(LockException.class, () -> ours.writeLock().tryAcquire(Duration.ofSeconds(5)));
            for (LockException e : List.of(read, write)) {
                assertTrue(e.getMessage().contains(path) && e.getMessage().contains("__READ__"), e.getMessage());
            }
            ZkReadWriteLock compat = new ZkReadWriteLock(client(), path, LockCompatibility.CURATOR);
            assertTrue(compat.readLock().tryAcquire(Duration.ofSeconds(5)).orElseThrow().isValid());
        } finally {
            curator.readLock().release();
        }
    }

    /** Status labels each node of a mixed path with its library, and names Curator's participants as a problem. */
    @Test
    void statusTellsWhoseNodesAreWhose() throws Exception {
        InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client(), path);
        curator.readLock().acquire();
        try (io.zklock.core.Lease ours = new ZkReadWriteLock(client(), path, LockCompatibility.CURATOR).readLock()
                .tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
            io.zklock.core.LockStatus status = new io.zklock.core.LockAdmin(checker).status(path);
            List<String> modes = status.participants().stream().map(io.zklock.core.Participant::mode).toList();
            assertTrue(modes.contains("read [curator]") && modes.contains("read [zklock, curator layout]"), modes.toString());
            assertTrue(status.problems().stream().anyMatch(p -> p.startsWith("Curator participants")), status.problems().toString());
        } finally {
            curator.readLock().release();
        }
        io.zklock.core.LockStatus after = new io.zklock.core.LockAdmin(checker).status(path);
        assertTrue(after.problems().stream().noneMatch(p -> p.startsWith("Curator participants")), after.problems().toString());
    }

    /**
     * A compatibility-mode multi-lock that yields to a Curator holder and times out waiting for
     * it leaves no watch on the server: its wait for the blocker removes the watch it set.
     */
    @Test
    void multiLockWaitForACuratorBlockerLeavesNoWatch() throws Exception {
        org.apache.curator.framework.recipes.locks.InterProcessMutex curator =
                new org.apache.curator.framework.recipes.locks.InterProcessMutex(client(), path + "/b");
        curator.acquire();
        try {
            CuratorFramework c = client();
            ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(c, path + "/a", LockCompatibility.CURATOR),
                    new ZkMutex(c, path + "/b", LockCompatibility.CURATOR)));
            assertTrue(multi.tryAcquire(Duration.ofMillis(700)).isEmpty(), "granted beside Curator's holder");
            Await.equal("watches left on the server after the wait", 0, Duration.ofSeconds(5),
                    zk.probe::watchCount);
        } finally {
            curator.release();
        }
        assertNothingLeft();
    }

    /** Caching with compatibility mode is refused at construction, naming both. */
    @Test
    void compatibilityRefusesCaching() {
        LeaseCaching caching = LeaseCaching.keepIdleFor(Duration.ofSeconds(1));
        CuratorFramework client = client();
        for (Runnable make : List.<Runnable>of(
                () -> new ZkMutex(client, path, caching, LockCompatibility.CURATOR),
                () -> new ZkReadWriteLock(client, path, caching, LockCompatibility.CURATOR),
                () -> new ZkSemaphore(client, path, 2, caching, LockCompatibility.CURATOR))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make::run);
            assertTrue(e.getMessage().contains("caching") && e.getMessage().contains("CURATOR"), e.getMessage());
        }
    }

    /** A multi-lock refuses a semaphore in compatibility mode at construction, saying why. */
    @Test
    void multiLockRefusesCompatibilitySemaphore() {
        CuratorFramework client = client();
        ZkSemaphore semaphore = new ZkSemaphore(client, path + "/s", 2, LockCompatibility.CURATOR);
        ZkMutex mutex = new ZkMutex(client, path + "/m");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ZkMultiLock(List.of(mutex, semaphore)));
        assertTrue(e.getMessage().contains("CURATOR") && e.getMessage().contains("multi-lock"), e.getMessage());
    }
}
