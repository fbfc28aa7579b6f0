package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.FencedReadWriteResource;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockStatus;
import io.zklock.core.RevocationResult;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.testing.Await;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;
import org.apache.curator.framework.CuratorFramework;

/**
 * The properties of {@link ZkReadWriteLock} as a pair of locks, each judged on a real
 * ZooKeeper and ending with the leak check (no lock node, no watch left): readers with writers
 * and downgrading writers, queue order across both kinds, downgrade and upgrade, re-entry of
 * both halves, abandoned requests of either kind, the herd a writer's release wakes, session
 * expiry after a downgrade, and inspection and revocation of shared holders. What each half
 * keeps on its own runs in {@link ReadLockConformanceTest} and {@link WriteLockConformanceTest}.
 */
class ReadWriteLockPropertiesTest extends ConformanceSupport {
    @Override
    protected Recipe recipe() {
        return Recipe.WRITE_LOCK;
    }

    /**
     * Lease state is never optimistic, for a downgraded read lease: once the write lease is
     * closed, the read lease closed while cut off is not RELEASED until its node is gone.
     */
    @Example
    void downgradedReadLeaseClosedWhileCutOffIsNotReleasedUntilTheNodeIsGone() throws Exception {
        closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone((client, p) -> {
            ZkReadWriteLock lock = new ZkReadWriteLock(client, p);
            Lease write = lock.writeLock().acquire();
            Lease read = lock.readLock().acquire();
            write.close();
            return read;
        });
    }

    // ---- exclusion -----------------------------------------------------------------------------

    enum Role { READER, WRITER, DOWNGRADER }

    /**
     * Exclusion: whatever mix of readers, writers and downgrading writers contend from however
     * many sessions and threads, no reader is ever inside beside a writer, no two writers are
     * inside at once, and no write token is refused as stale.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void readersNeverOverlapAWriterAndWritersNeverOverlap_judgedByFencedResource(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @Size(min = 2, max = 6) List<Role> roles,
            @ForAll @IntRange(min = 1, max = 3) int rounds,
            @ForAll @IntRange(min = 0, max = 3) int holdMillis,
            @ForAll @IntRange(min = 1, max = 2) int depth) throws Exception {
        FencedReadWriteResource resource = new FencedReadWriteResource();
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(sessions, SESSION_TIMEOUT_MS);
        runThreads(roles.size(), t -> {
            ZkReadWriteLock lock = locks.get(t % sessions);
            for (int r = 0; r < rounds; r++) {
                switch (roles.get(t)) {
                    case READER -> {
                        List<Lease> leases = acquireNested(lock.readLock(), depth);
                        resource.enterRead("t" + t);
                        sleep(holdMillis);
                        resource.exitRead();
                        closeAll(leases);
                    }
                    case WRITER -> {
                        List<Lease> leases = acquireNested(lock.writeLock(), depth);
                        long token = leases.get(0).fencingToken();
                        assertTrue(resource.enterWrite(token), "writer with token " + token + " refused as stale");
                        sleep(holdMillis);
                        resource.exitWrite(token);
                        closeAll(leases);
                    }
                    case DOWNGRADER -> {
                        Lease write = lock.writeLock().acquire();
                        assertTrue(resource.enterWrite(write.fencingToken()), "downgrader refused as stale");
                        sleep(holdMillis);
                        Lease read = lock.readLock().acquire();
                        resource.downgrade(write.fencingToken());
                        write.close();
                        sleep(holdMillis);
                        resource.exitRead();
                        read.close();
                    }
                }
            }
        });
        assertEquals(List.of(), resource.overlaps());
        assertEquals(List.of(), resource.refused());
        assertClean();
    }

    /**
     * Liveness of sharing: readers with no writer queued ahead of them all hold at once (each
     * waits, holding, until every one holds), whether or not a writer held before them or
     * queued behind them; the writer behind them gets in only after the last has left.
     */
    @Property(tries = 5, shrinking = ShrinkingMode.BOUNDED)
    void readersOverlapWhenNoWriterIsQueuedAhead(
            @ForAll @IntRange(min = 2, max = 4) int readers,
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll boolean writerHeldFirst,
            @ForAll boolean writerQueuedBehind) throws Exception {
        FencedReadWriteResource resource = new FencedReadWriteResource();
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(sessions, SESSION_TIMEOUT_MS);
        Lease first = writerHeldFirst ? locks.get(0).writeLock().acquire() : null;
        CountDownLatch allHold = new CountDownLatch(readers);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            ZkReadWriteLock lock = locks.get(i % sessions);
            int before = lockNodes();
            String who = "reader-" + i;
            threads.add(start(who, () -> {
                try (Lease lease = lock.readLock().acquire()) {
                    resource.enterRead(who);
                    allHold.countDown();
                    assertTrue(allHold.await(Await.scaled(LONG).toMillis(), TimeUnit.MILLISECONDS),
                            "readers with no writer ahead never held all at once");
                    resource.exitRead();
                    assertTrue(lease.isValid());
                }
            }));
            if (first != null) {
                Await.equal(who + " queued", before + 1, LONG, this::lockNodes);
            }
        }
        CompletableFuture<Lease> behind = null;
        if (writerQueuedBehind) {
            if (first == null) {
                Await.until("readers hold", LONG, () -> allHold.getCount() == 0 || lockNodes() == readers);
            }
            behind = admitWriter(locks.get(readers % sessions).writeLock().acquireAsync(LONG), resource);
        }
        if (first != null) {
            first.close();
        }
        joinAll(threads);
        if (behind != null) {
            releaseWriter(behind.get(LONG.toSeconds(), TimeUnit.SECONDS), resource);
        }
        assertEquals(readers, resource.peakReaders(), "readers inside at once");
        assertEquals(List.of(), resource.overlaps());
        assertClean();
    }

    // ---- order ---------------------------------------------------------------------------------

    /**
     * Order: behind a writer, waiters of both kinds are granted so that each writer enters
     * after everything queued before it has left, and each reader enters after every earlier
     * writer has left and before any later writer enters.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void grantsFollowQueueOrder_readerWaitsForEveryEarlierWriterAndNoLaterOne(
            @ForAll @Size(min = 2, max = 6) List<Boolean> writers,
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @IntRange(min = 0, max = 5) int holdMillis) throws Exception {
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(sessions, SESSION_TIMEOUT_MS);
        Lease first = locks.get(0).writeLock().acquire();
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < writers.size(); i++) {
            int index = i;
            ZkReadWriteLock lock = locks.get(i % sessions);
            DistributedLock half = writers.get(i) ? lock.writeLock() : lock.readLock();
            int before = lockNodes();
            threads.add(start("waiter-" + i, () -> {
                try (Lease lease = half.acquire()) {
                    log.add("G" + index);
                    sleep(holdMillis);
                    log.add("R" + index);
                    assertTrue(lease.isValid());
                }
            }));
            Await.equal("waiter " + i + " queued", before + 1, LONG, this::lockNodes);
        }
        first.close();
        joinAll(threads);
        for (int i = 0; i < writers.size(); i++) {
            int granted = log.indexOf("G" + i);
            for (int j = 0; j < writers.size(); j++) {
                if (j < i && (writers.get(i) || writers.get(j))) {
                    assertTrue(log.indexOf("R" + j) < granted, "waiter " + j + " left before " + i + " entered: " + log);
                }
                if (j > i && writers.get(j) && !writers.get(i)) {
                    assertTrue(granted < log.indexOf("G" + j), "reader " + i + " entered before later writer " + j + ": " + log);
                }
            }
        }
        assertClean();
    }

    // ---- downgrade and upgrade -----------------------------------------------------------------

    enum Style { ACQUIRE, TRY_ZERO, TRY_LONG, LOCK_VIEW }

    /**
     * Downgrade: a writer that takes the read lock gets it at once (on a node queued at its
     * write node's place) and, after closing its write lease, keeps reading while a writer that
     * queued meanwhile waits; readers that queued between the two join it, readers behind the
     * waiting writer wait; nobody overlaps a writer.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void downgradeWithAWriterQueuedKeepsThatWriterOutUntilTheReadLeaseCloses(
            @ForAll @IntRange(min = 0, max = 2) int readersBetween,
            @ForAll @IntRange(min = 0, max = 2) int readersBehind,
            @ForAll Style style,
            @ForAll boolean reenter) throws Exception {
        FencedReadWriteResource resource = new FencedReadWriteResource();
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(2 + readersBetween + readersBehind, SESSION_TIMEOUT_MS);
        ZkReadWriteLock mine = locks.get(0);
        Lease write = mine.writeLock().acquire();
        assertTrue(resource.enterWrite(write.fencingToken()));
        List<CompletableFuture<Lease>> between = new ArrayList<>();
        for (int i = 0; i < readersBetween; i++) {
            ZkReadWriteLock lock = locks.get(2 + i);
            between.add(queue(() -> admitReader(lock.readLock().acquireAsync(LONG), resource, "between")));
        }
        CompletableFuture<Lease> writer = queue(() -> admitWriter(locks.get(1).writeLock().acquireAsync(LONG), resource));
        List<CompletableFuture<Lease>> behind = new ArrayList<>();
        for (int i = 0; i < readersBehind; i++) {
            int session = 2 + readersBetween + i;
            behind.add(queue(() -> admitReader(locks.get(session).readLock().acquireAsync(LONG), resource, "behind")));
        }
        Await.equal("waiters asleep", readersBetween + 1 + readersBehind, LONG, zk.probe::watchCount);

        Lease read = downgrade(mine, style);
        assertEquals(OptionalLong.of(nodeOf(write).sequence()), nodeOf(read).anchor(), "read node anchored at the write node");
        resource.downgrade(write.fencingToken());
        if (reenter) {
            Lease again = mine.readLock().acquire();
            assertEquals(read.nodePath(), again.nodePath());
            again.close();
        }
        write.close();
        for (CompletableFuture<Lease> f : between) {
            releaseReader(f.get(LONG.toSeconds(), TimeUnit.SECONDS), resource);
        }
        awaitQuiet(sessionsOf(clients.subList(1, clients.size())));
        assertFalse(writer.isDone(), "the writer queued during the downgrade got in beside its read lease");
        assertTrue(behind.stream().noneMatch(CompletableFuture::isDone), "a reader behind the waiting writer got in");
        assertTrue(read.isValid());

        resource.exitRead();
        read.close();
        releaseWriter(writer.get(LONG.toSeconds(), TimeUnit.SECONDS), resource);
        for (CompletableFuture<Lease> f : behind) {
            releaseReader(f.get(LONG.toSeconds(), TimeUnit.SECONDS), resource);
        }
        assertEquals(List.of(), resource.overlaps());
        assertClean();
    }

    /** The downgrade's read acquisition, in the given style; it must be granted at once. */
    private static Lease downgrade(ZkReadWriteLock lock, Style style) throws Exception {
        return switch (style) {
            case ACQUIRE -> lock.readLock().acquire();
            case TRY_ZERO -> lock.readLock().tryAcquire(Duration.ZERO).orElseThrow(() -> new AssertionError("downgrade not granted at once"));
            case TRY_LONG -> lock.readLock().tryAcquire(LONG).orElseThrow();
            case LOCK_VIEW -> {
                assertTrue(lock.readLock().asLock().tryLock(), "downgrade through the Lock view not granted at once");
                lock.readLock().asLock().unlock();     // the view's lease is closed; take a lease to return
                yield lock.readLock().tryAcquire(Duration.ZERO).orElseThrow();
            }
        };
    }

    enum UpgradeStyle { ACQUIRE, TRY_ZERO, TRY_LONG, LOCK_VIEW, TRY_LOCK_VIEW }

    /**
     * Upgrade: a thread holding the read lock (plainly, or left over from a downgrade) that asks
     * for the write lock by any blocking call gets an IllegalStateException at once that says
     * why, creates no node, and keeps its read lease; once it has closed its read leases it can
     * take the write lock.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void upgradeIsRefusedAtOnceWithAClearMessage(
            @ForAll @IntRange(min = 1, max = 3) int depth,
            @ForAll boolean fromDowngrade,
            @ForAll UpgradeStyle style,
            @ForAll boolean writerQueued) throws Exception {
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(2, SESSION_TIMEOUT_MS);
        ZkReadWriteLock mine = locks.get(0);
        List<Lease> reads = new ArrayList<>();
        if (fromDowngrade) {
            Lease write = mine.writeLock().acquire();
            reads.add(mine.readLock().acquire());
            write.close();
        }
        while (reads.size() < depth) {
            reads.add(mine.readLock().acquire());
        }
        CompletableFuture<Lease> other = writerQueued ? queue(() -> locks.get(1).writeLock().acquireAsync(LONG)) : null;
        int nodes = lockNodes();

        long start = System.nanoTime();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> {
            switch (style) {
                case ACQUIRE -> mine.writeLock().acquire();
                case TRY_ZERO -> mine.writeLock().tryAcquire(Duration.ZERO);
                case TRY_LONG -> mine.writeLock().tryAcquire(LONG);
                case LOCK_VIEW -> mine.writeLock().asLock().lock();
                case TRY_LOCK_VIEW -> mine.writeLock().asLock().tryLock(LONG.toSeconds(), TimeUnit.SECONDS);
            }
        });
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertTrue(tookMillis < Await.scaled(Duration.ofSeconds(2)).toMillis(), "refused after " + tookMillis + " ms");
        String message = refused.getMessage();
        assertTrue(message.contains("upgrade") && message.contains("read lock") && message.contains(path),
                "message says why: " + message);
        assertEquals(nodes, lockNodes(), "nodes after the refusal");
        assertEquals(depth, mine.readLock().holdCount());
        assertTrue(reads.stream().allMatch(Lease::isValid));
        assertFalse(mine.writeLock().isHeldByCurrentThread());
        closeAll(reads);
        if (other != null) {
            other.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        }
        try (Lease write = mine.writeLock().tryAcquire(LONG).orElseThrow()) {
            assertTrue(write.isValid());
        }
        assertClean();
    }

    /**
     * Re-entry of both halves: under any sequence of blocking read and write acquisitions and
     * closes by one thread, each half it holds has exactly one node, shared by all its leases
     * and deleted at its last close; a read taken while holding the write lock is anchored at
     * the write node; a write asked while holding only the read lock is refused.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    void reentryOfBothHalvesKeepsOneNodePerHalfAndDeletesItAtTheLastClose(
            @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 0, max = 8) Integer> ops) throws Exception {
        ZkReadWriteLock lock = readWriteLocksOnNewSessions(1, SESSION_TIMEOUT_MS).get(0);
        List<Lease> reads = new ArrayList<>();
        List<Lease> writes = new ArrayList<>();
        for (int op : ops) {
            if (op <= 2) {
                Lease read = lock.readLock().acquire();
                if (!reads.isEmpty()) {
                    assertEquals(reads.get(0).nodePath(), read.nodePath(), "re-entered read node");
                } else if (!writes.isEmpty()) {
                    assertEquals(OptionalLong.of(nodeOf(writes.get(0)).sequence()), nodeOf(read).anchor(), "downgrade anchor");
                } else {
                    assertEquals(OptionalLong.empty(), nodeOf(read).anchor(), "plain read node");
                }
                reads.add(read);
            } else if (op <= 5) {
                if (writes.isEmpty() && !reads.isEmpty()) {
                    assertThrows(IllegalStateException.class, () -> lock.writeLock().acquire(), "upgrade");
                } else {
                    Lease write = lock.writeLock().acquire();
                    if (!writes.isEmpty()) {
                        assertEquals(writes.get(0).nodePath(), write.nodePath(), "re-entered write node");
                        assertEquals(writes.get(0).fencingToken(), write.fencingToken());
                    }
                    writes.add(write);
                }
            } else {
                List<Lease> open = new ArrayList<>(reads);
                open.addAll(writes);
                if (!open.isEmpty()) {
                    Lease lease = open.get(op % open.size());
                    lease.close();
                    assertEquals(LeaseState.RELEASED, lease.state());
                    reads.remove(lease);
                    writes.remove(lease);
                }
            }
            assertEquals((reads.isEmpty() ? 0 : 1) + (writes.isEmpty() ? 0 : 1), lockNodes(), "nodes after " + op);
            assertEquals(!reads.isEmpty(), lock.readLock().isHeldByCurrentThread());
            assertEquals(!writes.isEmpty(), lock.writeLock().isHeldByCurrentThread());
            assertEquals(reads.size(), lock.readLock().holdCount());
            assertEquals(writes.size(), lock.writeLock().holdCount());
        }
        closeAll(reads);
        closeAll(writes);
        assertClean();
    }

    // ---- hygiene -------------------------------------------------------------------------------

    /**
     * Hygiene: readers and writers that time out, are interrupted or are cancelled while a
     * writer holds (or while readers hold and a writer waits) leave no node and no watch
     * behind, and the holder keeps the lock throughout.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void abandonedReadAndWriteRequestsLeaveNoNodeAndNoWatch(
            @ForAll boolean readerHolds,
            @ForAll @Size(min = 1, max = 4) List<@IntRange(min = 0, max = 7) Integer> waiters,
            @ForAll @IntRange(min = 1, max = 40) int timeoutMillis) throws Exception {
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(3, SESSION_TIMEOUT_MS);
        Lease holder = readerHolds ? locks.get(0).readLock().acquire() : locks.get(0).writeLock().acquire();
        CompletableFuture<Lease> queuedWriter = readerHolds ? queue(() -> locks.get(1).writeLock().acquireAsync(LONG)) : null;
        int nodes = lockNodes();
        int watches = readerHolds ? 1 : 0;
        Await.equal("watches before", watches, LONG, zk.probe::watchCount);
        for (int i = 0; i < waiters.size(); i++) {
            ZkReadWriteLock lock = locks.get(1 + i % 2);
            DistributedLock half = waiters.get(i) % 2 == 0 ? lock.readLock() : lock.writeLock();
            abandonWhileHeld(half, Abandon.values()[waiters.get(i) / 2], timeoutMillis, nodes, watches);
        }
        assertTrue(holder.isValid(), "holder still valid");
        holder.close();
        if (queuedWriter != null) {
            queuedWriter.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        }
        assertClean();
    }

    // ---- herd ----------------------------------------------------------------------------------

    /**
     * No herd: with W1 holding, readers A queued behind W1, a writer W2 behind them and readers
     * B behind W2 (each on its own session), releasing W1 wakes exactly the readers A, the only
     * clients that can proceed: W2 and the readers B send nothing.
     */
    @Property(tries = 4, shrinking = ShrinkingMode.BOUNDED)
    @StatisticsReport(onFailureOnly = true)
    void releasingTheFirstWriterWakesOnlyTheReadersBetweenTheTwoWriters(
            @ForAll @IntRange(min = 1, max = 3) int between,
            @ForAll @IntRange(min = 1, max = 4) int behind) throws Exception {
        HerdOutcome outcome = herd(between, behind, false);

        Statistics.label("zklock: readers between, behind -> woken").collect(between + "," + behind + " -> " + outcome.woken.size());
        assertEquals(outcome.between, outcome.woken, "sessions woken by W1's release (between " + outcome.between
                + ", W2 " + outcome.secondWriter + ", behind " + outcome.behind + ")");
        assertClean();
    }

    /**
     * The control, Curator's read rule (a reader watches the FIRST write node ahead of it): the
     * same measurement sees W1's release wake the readers behind W2 as well, who list the
     * directory and watch again: a herd of between + behind clients.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.BOUNDED)
    @StatisticsReport(onFailureOnly = true)
    void firstWriteNodeWatchersAllWakeOnTheFirstWritersRelease_control(
            @ForAll @IntRange(min = 1, max = 3) int between,
            @ForAll @IntRange(min = 1, max = 4) int behind) throws Exception {
        HerdOutcome outcome = herd(between, behind, true);

        Statistics.label("first-write: readers between, behind -> woken").collect(between + "," + behind + " -> " + outcome.woken.size());
        Set<Long> everyReader = new HashSet<>(outcome.between);
        everyReader.addAll(outcome.behind);
        assertEquals(everyReader, outcome.woken, "sessions woken by W1's release under the first-write rule");
        assertClean();
    }

    /**
     * The comparison at the largest size the properties draw (3 readers between the writers, 4
     * behind W2), measured the same way: W1's release wakes 3 clients under our rule and 7
     * under the first-write rule.
     */
    @Example
    @StatisticsReport(onFailureOnly = true)
    void atThreeBetweenAndFourBehindWeWakeThreeAndTheFirstWriteRuleSeven() throws Exception {
        HerdOutcome ours = herd(3, 4, false);
        HerdOutcome firstWrite = herd(3, 4, true);

        Statistics.label("woken at 3 between, 4 behind: zklock, first-write")
                .collect(ours.woken.size() + ", " + firstWrite.woken.size());
        assertEquals(ours.between, ours.woken);
        assertEquals(3, ours.woken.size());
        assertEquals(7, firstWrite.woken.size());
        assertClean();
    }

    record HerdOutcome(Set<Long> between, long secondWriter, Set<Long> behind, Set<Long> woken) {
    }

    /** Curator's read rule, for the control: watch the first write node ahead. */
    static final LockDriver FIRST_WRITE = (sorted, ours, maxLeases) -> {
        if (!ours.is("read")) {
            return LockDriver.EXCLUSIVE.decide(sorted, ours, maxLeases);
        }
        int index = LockDriver.indexOf(sorted, ours);
        for (int i = 0; i < index; i++) {
            if (sorted.get(i).is("write")) {
                return Decision.watch(sorted.get(i));
            }
        }
        return Decision.granted();
    };

    /** One acquisition request of the herd scenario, on its own session. */
    interface Requester {
        CompletableFuture<Lease> request(CuratorFramework client, boolean write);
    }

    private HerdOutcome herd(int between, int behind, boolean firstWriteRule) throws Exception {
        Requester requester = firstWriteRule
                ? (client, write) -> new LockEngine(client, path, new RecipeDescriptor(write ? "write" : "read", FIRST_WRITE, 1))
                        .acquireAsync(LONG)
                : (client, write) -> {
                    ZkReadWriteLock lock = new ZkReadWriteLock(client, path);
                    return (write ? lock.writeLock() : lock.readLock()).acquireAsync(LONG);
                };
        CuratorFramework first = quietClient();
        Lease w1 = requester.request(first, true).get(LONG.toSeconds(), TimeUnit.SECONDS);
        List<CompletableFuture<Lease>> a = new ArrayList<>();
        Set<Long> aSessions = new HashSet<>();
        for (int i = 0; i < between; i++) {
            CuratorFramework c = quietClient();
            aSessions.add(sessionOf(c));
            a.add(queue(() -> requester.request(c, false)));
        }
        CuratorFramework second = quietClient();
        CompletableFuture<Lease> w2 = queue(() -> requester.request(second, true));
        List<CompletableFuture<Lease>> b = new ArrayList<>();
        Set<Long> bSessions = new HashSet<>();
        for (int i = 0; i < behind; i++) {
            CuratorFramework c = quietClient();
            bSessions.add(sessionOf(c));
            b.add(queue(() -> requester.request(c, false)));
        }
        Await.equal("waiters asleep", between + 1 + behind, LONG, zk.probe::watchCount);
        Set<Long> waiters = new HashSet<>(aSessions);
        waiters.addAll(bSessions);
        waiters.add(sessionOf(second));

        touchAll();                            // no session pings for the next few seconds
        Set<Long> woken = zk.probe.sessionsActiveDuring(waiters, () -> {
            w1.close();
            for (CompletableFuture<Lease> f : a) {
                f.get(LONG.toSeconds(), TimeUnit.SECONDS);
            }
            awaitQuiet(waiters);
        });

        assertFalse(w2.isDone() || b.stream().anyMatch(CompletableFuture::isDone), "W2 or a reader behind it granted");
        for (CompletableFuture<Lease> f : a) {
            f.get().close();
        }
        w2.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        for (CompletableFuture<Lease> f : b) {
            f.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        }
        return new HerdOutcome(aSessions, sessionOf(second), bSessions, woken);
    }

    // ---- faults --------------------------------------------------------------------------------

    /**
     * Session expiry after a downgrade: the read lease turns LOST, the writer that queued
     * meanwhile is then granted with a larger token, and the thread can take the lock again on
     * its new session.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void sessionExpiryOfADowngradedReaderLetsTheQueuedWriterIn(@ForAll boolean writeStillHeld) throws Exception {
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(2, SESSION_TIMEOUT_MS);
        ZkReadWriteLock mine = locks.get(0);
        Lease write = mine.writeLock().acquire();
        CompletableFuture<Lease> writer = queue(() -> locks.get(1).writeLock().acquireAsync(LONG));
        Lease read = mine.readLock().acquire();
        if (!writeStillHeld) {
            write.close();
        }
        long dead = sessionOf(clients.get(0));

        Sessions.expire(clients.get(0), zk.connectString());

        try (Lease next = writer.get(LONG.toSeconds(), TimeUnit.SECONDS)) {
            assertTrue(next.fencingToken() > write.fencingToken());
            Await.until("the read lease is LOST", LONG, () -> read.state() == LeaseState.LOST);
            assertFalse(mine.readLock().isHeldByCurrentThread());
        }
        read.close();
        write.close();
        Await.until("new session", LONG, () -> {
            try {
                return clients.get(0).getZookeeperClient().getZooKeeper().getSessionId() != dead;
            } catch (Exception e) {
                return false;
            }
        });
        try (Lease again = mine.readLock().tryAcquire(LONG).orElseThrow()) {
            assertNotEquals(read.nodePath(), again.nodePath());
            assertEquals(OptionalLong.empty(), nodeOf(again).anchor(), "no downgrade from a lost write lease");
        }
        assertClean();
    }

    /**
     * Reaped and re-created directory: a thread whose write node was deleted under it (the
     * directory then emptied, was reaped and re-created, its counter back at 0, and another
     * client's write node took the same number) asks for a downgrade. Its read node must not
     * take the stranger's write node for its own: it waits as an ordinary reader, and the
     * stranger keeps the lock alone.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void downgradeNeverAnchorsOnAStrangersNodeInARecreatedDirectory(@ForAll boolean zero) throws Exception {
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(2, SESSION_TIMEOUT_MS);
        ZkReadWriteLock mine = locks.get(0);
        Lease write = mine.writeLock().acquire();
        clients.get(1).delete().forPath(write.nodePath());      // an operator's revoke
        Await.until("empty directory reaped", LONG, () -> {
            try {
                return clients.get(1).checkExists().forPath(path) == null;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (Lease stranger = locks.get(1).writeLock().acquire()) {
            assertEquals(sequenceOf(write), sequenceOf(stranger), "the re-created directory's counter restarted");
            Optional<Lease> read = mine.readLock().tryAcquire(zero ? Duration.ZERO : Duration.ofMillis(300));
            assertEquals(Optional.empty(), read, "a read lease beside a stranger's write lease");
            assertTrue(stranger.isValid());
        }
        write.close();
        assertClean();
    }

    // ---- inspection and revocation -------------------------------------------------------------

    /**
     * Revocation of shared holders: readers on their own sessions, each re-entered and opted in
     * on every view, are all asked at once (requestRevocationOfHolders asks them and no
     * waiter); each lets go within a bound, its handlers run once per view on a library thread,
     * and the writer queued behind them is granted.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void revocableReadersAllAskedLetGoAndTheWriterBehindThemIsGranted(
            @ForAll @IntRange(min = 1, max = 3) int readers,
            @ForAll @IntRange(min = 1, max = 2) int depth) throws Exception {
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(readers + 1, SESSION_TIMEOUT_MS);
        LockAdmin admin = admin();
        List<List<Lease>> held = new CopyOnWriteArrayList<>();
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        CountDownLatch now = new CountDownLatch(0);
        for (int i = 0; i < readers; i++) {
            ZkReadWriteLock lock = locks.get(i);
            joinAll(List.of(start("reader-" + i, () -> held.add(acquireNested(lock.readLock(), depth)))));
        }
        held.stream().flatMap(List::stream).forEach(view -> view.onRevocationRequested(recordingHandler(ranOn, now, Lease::close)));
        CompletableFuture<Lease> writer = queue(() -> locks.get(readers).writeLock().acquireAsync(LONG));

        Map<String, RevocationResult> asked = admin.requestRevocationOfHolders(path);

        assertEquals(held.stream().map(views -> views.get(0).nodePath()).collect(Collectors.toSet()), asked.keySet(),
                "the holders asked");
        assertEquals(Set.of(RevocationResult.REQUESTED), Set.copyOf(asked.values()));
        try (Lease granted = writer.get(Await.scaled(REVOCATION_BOUND).toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(granted.isValid());
            assertEquals(readers * depth, ranOn.size(), "handlers run, one per view");
            assertLibraryThreads(ranOn);
        }
        assertClean();
    }

    /**
     * Status of a read-write queue: for a generated mix of read and write requests from several
     * sessions, status lists exactly the server's lock nodes in queue order, with kinds read and
     * write, and holding exactly where the lock granted (the readers before the first writer,
     * or that writer alone when it comes first), with the leases' tokens.
     */
    @Property(tries = 4, shrinking = ShrinkingMode.BOUNDED)
    void statusOfAReadWriteQueueListsTheServersNodesWithTheHoldersTheLockGranted(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @Size(min = 1, max = 6) List<Boolean> writes) throws Exception {
        readWriteLocksOnNewSessions(sessions, SESSION_TIMEOUT_MS);
        LockAdmin admin = admin();
        List<CompletableFuture<Lease>> queued = new ArrayList<>();
        List<Boolean> grants = new ArrayList<>();
        boolean writerAhead = false;
        for (int i = 0; i < writes.size(); i++) {
            ZkReadWriteLock lock = new ZkReadWriteLock(clients.get(i % sessions), path);   // no re-entry, no downgrade
            DistributedLock half = writes.get(i) ? lock.writeLock() : lock.readLock();
            queued.add(queue(() -> half.acquireAsync(LONG)));
            grants.add(!writerAhead && (i == 0 || !writes.get(i)));
            writerAhead |= writes.get(i);
        }
        List<Lease> granted = new ArrayList<>();
        for (int i = 0; i < queued.size(); i++) {
            if (grants.get(i)) {
                granted.add(queued.get(i).get(LONG.toSeconds(), TimeUnit.SECONDS));
            }
        }

        LockStatus status = admin.status(path);

        assertStatusMatchesServer(status, granted, writes.stream().map(w -> w ? "write" : "read").toList(), "readwrite", 1);
        for (int i = 0; i < queued.size(); i++) {
            assertEquals(grants.get(i), queued.get(i).isDone(), "request " + i + " granted");
        }
        granted.forEach(Lease::close);
        List<CompletableFuture<Lease>> rest = new ArrayList<>();
        for (int i = 0; i < queued.size(); i++) {
            if (!grants.get(i)) {
                rest.add(queued.get(i));
            }
        }
        while (!rest.isEmpty()) {
            firstGranted(rest).close();
        }
        assertClean();
    }

    // ---- helpers -------------------------------------------------------------------------------

    List<ZkReadWriteLock> readWriteLocksOnNewSessions(int sessions, int sessionTimeoutMs) {
        List<ZkReadWriteLock> locks = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            CuratorFramework client = ZkTesting.client(zk.connectString(), sessionTimeoutMs);
            clients.add(client);
            locks.add(new ZkReadWriteLock(client, path));
        }
        return locks;
    }

    static List<Lease> acquireNested(DistributedLock half, int depth) throws InterruptedException {
        List<Lease> leases = new ArrayList<>();
        for (int d = 0; d < depth; d++) {
            leases.add(half.acquire());
        }
        long token = leases.get(0).fencingToken();
        assertTrue(leases.stream().allMatch(l -> l.fencingToken() == token && l.isValid()), "nested leases " + leases);
        return leases;
    }

    static void closeAll(List<Lease> leases) {
        List<Lease> reversed = new ArrayList<>(leases);
        Collections.reverse(reversed);
        reversed.forEach(Lease::close);
    }

    static CompletableFuture<Lease> admitReader(CompletableFuture<Lease> f, FencedReadWriteResource resource, String who) {
        return f.thenApply(lease -> {
            resource.enterRead(who);
            return lease;
        });
    }

    static CompletableFuture<Lease> admitWriter(CompletableFuture<Lease> f, FencedReadWriteResource resource) {
        return f.thenApply(lease -> {
            assertTrue(resource.enterWrite(lease.fencingToken()), "writer refused as stale");
            return lease;
        });
    }

    static void releaseReader(Lease lease, FencedReadWriteResource resource) {
        resource.exitRead();
        lease.close();
    }

    static void releaseWriter(Lease lease, FencedReadWriteResource resource) {
        resource.exitWrite(lease.fencingToken());
        lease.close();
    }

    static LockNode nodeOf(Lease lease) {
        return LockNode.parse(lease.nodePath().substring(lease.nodePath().lastIndexOf('/') + 1)).orElseThrow();
    }

    /**
     * Sequence-gap inference is never fooled by a re-created directory, even where the count of
     * children matches: a reader whose last look showed another session's read node (which then
     * went without it looking again) sees the directory reaped and made again, with a writer
     * holding it and the creation count brought to exactly the number the reader expects next.
     * A number and a count alone would let the reader infer it is queued behind that old reader
     * only; its next read acquire must instead wait for the writer.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void readReacquireIsNeverGrantedBesideAWriterInARecreatedDirectory(
            @ForAll @IntRange(min = 1, max = 3) int cycles) throws Exception {
        List<ZkReadWriteLock> locks = readWriteLocksOnNewSessions(3, SESSION_TIMEOUT_MS);
        ZkReadWriteLock mine = locks.get(0);
        Lease old = locks.get(1).readLock().acquire();          // number 0
        for (int i = 0; i < cycles; i++) {
            mine.readLock().acquire().close();                   // numbers 1 .. cycles; the first lists and sees 0
        }
        old.close();                                             // gone, and we did not look
        awaitReaped();
        Lease writer = locks.get(2).writeLock().acquire();      // number 0 of the new directory
        for (int i = 0; i < cycles; i++) {
            assertEquals(Optional.empty(), locks.get(1).readLock().tryAcquire(Duration.ZERO), "a reader behind the writer");
        }
        assertEquals(cycles + 1, nextSequence(), "the new directory's count is at the number the reader expects next");

        assertEquals(Optional.empty(), mine.readLock().tryAcquire(QUIET), "read lease granted beside a writer");
        writer.close();
        try (Lease lease = mine.readLock().tryAcquire(LONG).orElseThrow()) {
            assertTrue(lease.isValid());
        }
        assertClean();
    }
}
