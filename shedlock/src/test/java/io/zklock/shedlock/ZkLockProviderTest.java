package io.zklock.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's provider contract and what zklock adds (a dead holder freed at its session's
 * expiry, lockAtLeastFor kept after a holder dies, no node per run, guarded writes, bad input),
 * on a real server.
 *
 * <p>The scenarios of ShedLock's own provider suite ({@code shedlock-test-support}, which is not
 * published where this build resolves from), each checked here in our own words:
 * <ul>
 * <li>a lock is taken, shows as locked, and its unlock frees it; a second lock of a held job is
 *     refused: {@link #noSecondLock}
 * <li>two names are two independent locks: {@link #twoJobsAreIndependent}
 * <li>lock twice in a row, and again right after each unlock, ten times: {@link #lockRightAfterUnlock}
 * <li>a short lockAtMostFor frees the job of a holder that never unlocks: {@link #lockAtMostForReleasesALiveHolder}
 * <li>lockAtLeastFor keeps the job after an early unlock, then frees it: {@link #lockAtLeastForAfterAnEarlyUnlock}
 * <li>the fuzz of 8 threads over 2 jobs, every increment counted: {@link #fuzzEightThreadsTwoProvidersNoOverlap}
 * <li>extend, once and several times, keeps the job past the first lockAtMostFor: {@link #extendKeepsTheJob}
 * <li>an extension's lockAtLeastFor holds the job after its unlock: {@link #extendSetsLockAtLeastFor}
 * <li>an expired lock is not extended and the job is free: {@link #anExpiredLockIsNotExtended}
 * <li>a lock cannot be extended twice, unlocked after its extension, nor extended after its
 *     unlock (IllegalStateException): {@link #aLockIsUsedOnce}
 * </ul>
 */
class ZkLockProviderTest extends EmbeddedServerTest {
    private static final String ROOT = "/jobs-root";
    private static final Duration LONG_RUN = Duration.ofMinutes(10);

    private ZkLockProvider provider() {
        return new ZkLockProvider(client, ROOT);
    }

    private ZkLockProvider otherProvider() {
        return new ZkLockProvider(other, ROOT);
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    private static LockConfiguration config(String name) {
        return config(name, LONG_RUN, Duration.ZERO);
    }

    private static SimpleLock locked(ZkLockProvider provider, LockConfiguration config) {
        Optional<SimpleLock> lock = provider.lock(config);
        assertTrue(lock.isPresent(), "job " + config.getName() + " was not locked");
        return lock.get();
    }

    private boolean lockable(ZkLockProvider provider, String name) {
        Optional<SimpleLock> lock = provider.lock(config(name));
        lock.ifPresent(SimpleLock::unlock);
        return lock.isPresent();
    }

    private List<String> jobNodes() {
        return ZkTesting.lockNodesBelow(client, ROOT);
    }

    // ---- ShedLock's contract ----------------------------------------------------------------

    /** A held job is refused to the same provider, the same thread, and another client. */
    @Test
    void noSecondLock() {
        SimpleLock lock = locked(provider(), config("job"));
        assertTrue(provider().lock(config("job")).isEmpty());
        assertTrue(otherProvider().lock(config("job")).isEmpty());
        assertEquals(1, jobNodes().size(), "a refused attempt leaves no node");
        lock.unlock();
        assertTrue(jobNodes().isEmpty());
    }

    /** Two jobs are two locks. */
    @Test
    void twoJobsAreIndependent() {
        SimpleLock a = locked(provider(), config("a"));
        SimpleLock b = locked(otherProvider(), config("b"));
        a.unlock();
        b.unlock();
    }

    /** After an unlock (lockAtLeastFor zero) the job can be locked again at once, ten times over, and is refused while held. */
    @Test
    void lockRightAfterUnlock() {
        for (int i = 0; i < 10; i++) {
            SimpleLock lock = locked(i % 2 == 0 ? provider() : otherProvider(), config("job"));
            assertTrue(provider().lock(config("job")).isEmpty(), "round " + i);
            lock.unlock();
        }
    }

    /** lockAtMostFor releases a holder that is still alive and never unlocks. */
    @Test
    void lockAtMostForReleasesALiveHolder() {
        SimpleLock lock = locked(provider(), config("job", Duration.ofSeconds(2), Duration.ZERO));   // outlasts a slow refusal
        assertTrue(otherProvider().lock(config("job")).isEmpty());
        Await.until("the job is free after lockAtMostFor", LONG, () -> lockable(otherProvider(), "job"));
        lock.unlock();                         // a late unlock is harmless
        SimpleLock next = locked(otherProvider(), config("job"));
        assertTrue(provider().lock(config("job")).isEmpty(), "the late unlock freed nothing");
        next.unlock();
    }

    /** lockAtLeastFor holds the job after an early unlock, then lets it go. */
    @Test
    void lockAtLeastForAfterAnEarlyUnlock() {
        long start = System.nanoTime();
        locked(provider(), config("job", LONG_RUN, Duration.ofSeconds(2))).unlock();
        assertTrue(jobNodes().isEmpty(), "the unlock deleted the node");
        assertFalse(lockable(otherProvider(), "job"), "locked again before lockAtLeastFor passed");
        Await.until("the job is free after lockAtLeastFor", LONG, () -> lockable(otherProvider(), "job"));
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(1_900).toNanos(), "freed before lockAtLeastFor");
    }

    /** extend keeps the job past the first lockAtMostFor, several times over; the final unlock frees it. */
    @Test
    void extendKeepsTheJob() throws InterruptedException {
        SimpleLock lock = locked(provider(), config("job", Duration.ofSeconds(2), Duration.ZERO));   // outlasts a slow first extend
        for (int i = 0; i < 3; i++) {
            lock = lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        }
        Thread.sleep(2_500);
        assertTrue(otherProvider().lock(config("job")).isEmpty(), "still held after the first lockAtMostFor");
        lock.unlock();
        assertTrue(lockable(otherProvider(), "job"));
    }

    /** extend's lockAtLeastFor holds the job after the unlock. */
    @Test
    void extendSetsLockAtLeastFor() {
        SimpleLock lock = locked(provider(), config("job", Duration.ofSeconds(10), Duration.ZERO));
        lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)).orElseThrow().unlock();
        assertFalse(lockable(otherProvider(), "job"));
    }

    /** A lockAtMostFor of zero, which ShedLock allows, locks the job and releases it at once; the run's late unlock frees nothing. */
    @Test
    void aZeroLockAtMostForLocksAndExpiresAtOnce() {
        SimpleLock lock = locked(provider(), config("job", Duration.ZERO, Duration.ZERO));
        Await.until("the job is free", LONG, () -> lockable(otherProvider(), "job"));
        assertTrue(lock.extend(Duration.ofSeconds(10), Duration.ZERO).isEmpty(), "an expired lock was extended");
        SimpleLock next = locked(otherProvider(), config("job"));
        assertTrue(provider().lock(config("job")).isEmpty(), "the expired run freed the next one");
        next.unlock();
        assertTrue(jobNodes().isEmpty());
    }

    /** An expired lock cannot be extended: empty, and the job is free. */
    @Test
    void anExpiredLockIsNotExtended() throws InterruptedException {
        SimpleLock lock = locked(provider(), config("job", Duration.ofMillis(2), Duration.ZERO));
        Thread.sleep(4);
        assertTrue(lock.extend(Duration.ofSeconds(10), Duration.ZERO).isEmpty());
        Await.until("the expired job is free", LONG, () -> lockable(otherProvider(), "job"));
    }

    /** A lock is used once: unlock or extend again is an IllegalStateException. */
    @Test
    void aLockIsUsedOnce() {
        SimpleLock lock = locked(provider(), config("job"));
        SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        assertThrows(IllegalStateException.class, lock::unlock);
        assertThrows(IllegalStateException.class, () -> lock.extend(Duration.ofSeconds(10), Duration.ZERO));
        extended.unlock();
        assertThrows(IllegalStateException.class, extended::unlock);
        assertThrows(IllegalStateException.class, () -> extended.extend(Duration.ofSeconds(10), Duration.ZERO));
    }

    /** Eight threads over two providers (two clients) run two jobs: every run counted, never two runs of a job at once. */
    @Test
    void fuzzEightThreadsTwoProvidersNoOverlap() throws Exception {
        LockingTaskExecutor[] executors = {new DefaultLockingTaskExecutor(provider()), new DefaultLockingTaskExecutor(otherProvider())};
        int runs = 25;
        AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger()};
        AtomicInteger overlaps = new AtomicInteger();
        int[] counters = new int[2];           // plain ints: only mutual exclusion keeps them right
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int job = t % 2;
                LockingTaskExecutor executor = executors[t / 4];
                futures.add(pool.submit(() -> {
                    int done = 0;
                    while (done < runs) {
                        LockingTaskExecutor.TaskResult<Boolean> result;
                        try {
                            result = executor.executeWithLock(() -> {
                            if (inside[job].incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            int n = counters[job];
                            Thread.sleep(1);
                            counters[job] = n + 1;
                            inside[job].decrementAndGet();
                            return true;
                        }, config("fuzz-" + job, LONG_RUN, Duration.ofMillis(5)));
                        } catch (Throwable e) {
                            throw new AssertionError(e);
                        }
                        if (result.wasExecuted()) {
                            done++;
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, overlaps.get(), "runs of one job overlapped");
        assertEquals(4 * runs, counters[0]);
        assertEquals(4 * runs, counters[1]);
        assertTrue(jobNodes().isEmpty());
    }

    // ---- what zklock adds -------------------------------------------------------------------

    /** A holder whose session expires frees its job at the expiry, long before lockAtMostFor. */
    @Test
    void aDeadHoldersJobIsFreeAtItsSessionExpiry() throws Exception {
        CuratorFramework holder = ZkTesting.client(server.getConnectString(), 20_000);
        try {
            SimpleLock lock = locked(new ZkLockProvider(holder, ROOT), config("job"));
            assertTrue(otherProvider().lock(config("job")).isEmpty());
            Sessions.expire(holder, server.getConnectString());
            SimpleLock next = locked(otherProvider(), config("job"));   // the server deleted the node at the expiry
            lock.unlock();                     // the dead holder's late unlock
            assertTrue(provider().lock(config("job")).isEmpty(), "the late unlock freed the next holder's lock");
            next.unlock();
        } finally {
            holder.close();
        }
    }

    /** lockAtLeastFor outlives a holder that dies: once its node is gone the next run still waits for the bound, then runs. */
    @Test
    void lockAtLeastForOutlivesADeadHolder() throws Exception {
        CuratorFramework holder = ZkTesting.client(server.getConnectString(), 20_000);
        try {
            long start = System.nanoTime();
            locked(new ZkLockProvider(holder, ROOT), config("job", LONG_RUN, Duration.ofSeconds(5)));   // outlasts a slow expiry
            Sessions.expire(holder, server.getConnectString());
            Await.until("the dead holder's node is gone", LONG, () -> jobNodes().isEmpty());
            assertFalse(lockable(otherProvider(), "job"), "ran again before the dead holder's lockAtLeastFor passed");
            assertTrue(jobNodes().isEmpty(), "a refused attempt leaves no node");
            Await.until("the job is free after lockAtLeastFor", LONG, () -> lockable(otherProvider(), "job"));
            assertTrue(System.nanoTime() - start >= Duration.ofMillis(4_900).toNanos(), "freed before lockAtLeastFor");
        } finally {
            holder.close();
        }
    }

    /** A guarded write of the run commits while it holds the job and is refused after its unlock. */
    @Test
    void aRunsGuardCommitsOnlyWhileItHoldsTheJob() throws Exception {
        client.create().forPath("/state", "0".getBytes(StandardCharsets.UTF_8));
        ZkJobLock lock = (ZkJobLock) locked(provider(), config("job"));
        ZkJobLock extended = (ZkJobLock) lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        assertEquals(lock.fencingToken(), extended.fencingToken());
        assertEquals("job", extended.jobName());
        other.transaction().forOperations(extended.guard(), other.transactionOp().setData().forPath("/state", "1".getBytes(StandardCharsets.UTF_8)));
        extended.unlock();
        assertThrows(KeeperException.NoNodeException.class, () -> other.transaction().forOperations(extended.guard(),
                other.transactionOp().setData().forPath("/state", "2".getBytes(StandardCharsets.UTF_8))));
        assertEquals("1", new String(client.getData().forPath("/state"), StandardCharsets.UTF_8));
        ZkJobLock next = (ZkJobLock) locked(otherProvider(), config("job"));
        assertTrue(next.fencingToken() > lock.fencingToken());
        next.unlock();
    }

    /** Runs leave nothing behind: no node per run, one marker per job. */
    @Test
    void noNodePilesUpPerRun() throws Exception {
        for (int i = 0; i < 20; i++) {
            locked(i % 2 == 0 ? provider() : otherProvider(), config(i % 4 < 2 ? "a" : "b")).unlock();
            assertTrue(lockable(otherProvider(), "a"), "job a not free after round " + i);
        }
        assertTrue(jobNodes().isEmpty());
        assertEquals(List.of("a", "b"), ZkTesting.children(client, ROOT + "/marks").stream().sorted().toList());
        for (String job : ZkTesting.children(client, ROOT + "/jobs")) {
            assertEquals(List.of(), ZkTesting.children(client, ROOT + "/jobs/" + job));
        }
    }

    /** Names map to distinct nodes under the root: a slash, dots and escapes never share a lock or leave the root. */
    @Test
    void namesNeverShareALockNorLeaveTheRoot() throws Exception {
        List<String> names = List.of("a/b", "a%2Fb", "a_2Fb", "..", ".", "../../escape", "zookeeper", "é", "e\u0301", " ", "\t", "日本", "x".repeat(80));
        List<SimpleLock> held = new ArrayList<>();
        for (String name : names) {
            held.add(locked(provider(), config(name)));
        }
        for (String name : names) {
            assertTrue(otherProvider().lock(config(name)).isEmpty(), name);
        }
        held.forEach(SimpleLock::unlock);
        List<String> marks = ZkTesting.children(client, ROOT + "/marks");
        assertEquals(names.size(), marks.size());
        assertEquals(names.size(), marks.stream().distinct().count());
        assertEquals(List.of("jobs", "marks"), ZkTesting.children(client, ROOT).stream().sorted().toList());
        assertEquals(List.of("jobs-root", "zookeeper"), ZkTesting.children(client, "/").stream().sorted().toList());
    }

    /** Bad names and durations are refused with the bad value named, and nothing is created. */
    @Test
    void badInputIsRefusedAndLeavesNothing() throws Exception {
        ZkLockProvider provider = provider();
        assertMessage("job name is null", () -> provider.lock(null), "lockAtMostFor");
        assertMessage("lockAtLeastFor", () -> provider.lock(config("job", LONG_RUN, Duration.ofSeconds(-1))), "PT-1S");
        assertMessage("too long", () -> provider.lock(config("x".repeat(256))), "xxxx");
        assertMessage("too long", () -> provider.lock(config("日".repeat(90))), "810");
        assertMessage("unpaired surrogate", () -> provider.lock(config("bad\uD800name")), "bad\\uD800name");
        SimpleLock lock = locked(provider, config("job"));
        assertMessage("longer than its lockAtMostFor", () -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)), "PT2S");
        assertMessage("lockAtMostFor", () -> lock.extend(Duration.ofSeconds(-1), Duration.ZERO), "PT-1S");
        assertMessage("lockAtLeastFor", () -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(-1)), "PT-1S");
        lock.unlock();                         // a refused extension left the lock usable
        assertThrows(IllegalArgumentException.class, () -> new ZkLockProvider(null, ROOT));
        assertThrows(IllegalArgumentException.class, () -> new ZkLockProvider(client, "no-slash"));
        assertThrows(IllegalArgumentException.class, () -> new ZkLockProvider(client, "/a//b"));
        for (String root : List.of("/", "/zookeeper", "/zookeeper/quota", "/a/")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ZkLockProvider(client, root));
            assertTrue(e.getMessage().contains("'" + root + "'"), e.getMessage());
        }
        assertEquals(List.of("job"), ZkTesting.children(client, ROOT + "/marks"), "only the valid job made a marker");
        assertTrue(jobNodes().isEmpty());
    }

    private static void assertMessage(String contains, org.junit.jupiter.api.function.Executable call, String alsoContains) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        if (contains.equals("job name is null")) {
            assertTrue(e.getMessage().contains("lockConfiguration is null"), e.getMessage());
            return;
        }
        assertTrue(e.getMessage().contains(contains) && e.getMessage().contains(alsoContains), e.getMessage());
    }

    // ---- faults -----------------------------------------------------------------------------

    /**
     * A connected client like {@code client} (same session timeout) that gives up on a request
     * sooner with the server down: Curator fails a request only once its connection timeout has
     * passed on every try, 10 s and 6 tries on {@code client}, 1 s and 2 tries here. What these
     * tests check is what the provider does when the request fails, not how long Curator waits.
     */
    private CuratorFramework quickToGiveUp() throws InterruptedException {
        CuratorFramework quick = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs(20_000)
                .connectionTimeoutMs(1_000)
                .retryPolicy(new ExponentialBackoffRetry(20, 1, 500))
                .ensembleTracker(false)
                .build();
        quick.start();
        if (!quick.blockUntilConnected(20, TimeUnit.SECONDS)) {
            quick.close();
            throw new IllegalStateException("could not connect to " + server.getConnectString());
        }
        return quick;
    }

    /** With the server down, lock() fails or refuses without waiting for it, and once it is back nothing was left behind. */
    @Test
    void lockWhileTheServerIsDownLeavesNothing() throws Exception {
        try (CuratorFramework quick = quickToGiveUp()) {
            server.stop();
            Await.until("the client notices", LONG, () -> !quick.getZookeeperClient().isConnected());
            try {
                Optional<SimpleLock> lock = new ZkLockProvider(quick, ROOT).lock(config("job"));
                assertTrue(lock.isEmpty(), "locked with the server down");
            } catch (LockException expected) {
                // ZooKeeper could not be reached: the job is not locked
            }
            server.restart();
            Await.until("the job can be locked once the server is back", LONG, () -> {
                try {
                    return lockable(otherProvider(), "job");
                } catch (LockException e) {
                    return false;
                }
            });
            Await.until("no node is left", LONG, () -> jobNodes().isEmpty());
        }
    }

    /** An extend that fails because ZooKeeper cannot be reached leaves the lock usable: its unlock, which ShedLock's executor calls next, frees the job. */
    @Test
    void aFailedExtendLeavesTheLockToUnlock() throws Exception {
        try (CuratorFramework quick = quickToGiveUp()) {
            SimpleLock lock = locked(new ZkLockProvider(quick, ROOT), config("job"));
            server.stop();
            Await.until("the client notices", LONG, () -> !quick.getZookeeperClient().isConnected());
            assertThrows(LockException.class, () -> lock.extend(LONG_RUN, Duration.ZERO));
            server.restart();
            Await.until("the client reconnects", LONG, () -> quick.getZookeeperClient().isConnected());
            lock.unlock();
            assertThrows(IllegalStateException.class, lock::unlock, "the lock is used once, by its unlock");
            Await.until("the job is free after the unlock", LONG, () -> {
                try {
                    return lockable(otherProvider(), "job");
                } catch (LockException e) {
                    return false;
                }
            });
        }
    }

    /** An unlock while the connection is lost returns at once; the delete lands on reconnection and frees the job. */
    @Test
    void unlockDuringAConnectionLossFreesTheJobOnReconnection() throws Exception {
        SimpleLock lock = locked(provider(), config("job"));
        server.stop();
        Await.until("the client notices", LONG, () -> !client.getZookeeperClient().isConnected());
        lock.unlock();
        server.restart();
        Await.until("the job is free after the reconnection", LONG, () -> {
            try {
                return lockable(otherProvider(), "job");
            } catch (LockException e) {
                return false;
            }
        });
        assertNotEquals(0, ZkTesting.children(client, ROOT + "/marks").size());
    }
}
