package io.zklock.spring.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The registry through Spring Integration's public API, on one real server shared by the
 * class; each test has its own root and clients, and leaves no lock node behind.
 */
class ZkLockRegistryTest {
    private static final Duration LONG = Duration.ofSeconds(20);

    private static TestingServer server;
    private final List<CuratorFramework> clients = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private CuratorFramework client;
    private String root;
    private ZkLockRegistry registry;

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @BeforeEach
    void setUp(TestInfo test) {
        client = newClient();
        root = "/si/" + test.getTestMethod().orElseThrow().getName();
        registry = new ZkLockRegistry(client, root);
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        registry.close();
        Await.equal("lock nodes under " + root, List.of(), LONG, () -> ZkTesting.lockNodesBelow(client, root));
        clients.forEach(CuratorFramework::close);
    }

    private CuratorFramework newClient() {
        CuratorFramework c = ZkTesting.client(server.getConnectString(), 30_000);
        clients.add(c);
        return c;
    }

    private <T> T onOtherThread(java.util.concurrent.Callable<T> task) throws Exception {
        return threads.submit(task).get(30, TimeUnit.SECONDS);
    }

    private boolean tried(java.util.concurrent.Callable<Boolean> attempt) throws Exception {
        return onOtherThread(attempt);
    }

    /** obtain gives the same instance for the same key, and different ones for different keys. */
    @Test
    void sameKeySameInstanceOtherKeyOtherInstance() {
        DistributedLock a = registry.obtain("a");
        assertSame(a, registry.obtain("a"));
        assertNotSame(a, registry.obtain("b"));
        assertEquals(root + "/a", registry.obtain("a").path());
    }

    /** A thread re-enters its lock; the node stays until the last unlock, then is gone. */
    @Test
    void reentryKeepsOneNodeUntilTheLastUnlock() throws Exception {
        ZkRegistryLock lock = registry.obtain("r");
        lock.lock();
        lock.lockInterruptibly();
        assertTrue(lock.tryLock());
        assertTrue(lock.tryLock(1, TimeUnit.SECONDS));
        assertEquals(1, ZkTesting.lockNodesBelow(client, root).size());
        long token = lock.fencingToken();
        for (int i = 0; i < 3; i++) {
            lock.unlock();
            assertTrue(lock.isHeldByCurrentThread());
            assertEquals(token, lock.fencingToken());
        }
        lock.unlock();
        assertFalse(lock.isHeldByCurrentThread());
        Await.equal("nodes", List.of(), LONG, () -> ZkTesting.lockNodesBelow(client, root));
    }

    /** While one thread holds the lock, another's tryLock fails, timed or not. */
    @Test
    void secondThreadIsRefusedWhileTheFirstHolds() throws Exception {
        ZkRegistryLock lock = registry.obtain("k");
        lock.lock();
        try {
            assertFalse(tried(lock::tryLock));
            assertFalse(tried(() -> lock.tryLock(200, TimeUnit.MILLISECONDS)));
            assertFalse(tried(() -> lock.tryLock(Duration.ofMillis(100), Duration.ofSeconds(5))));
        } finally {
            lock.unlock();
        }
        assertTrue(tried(() -> {
            boolean got = lock.tryLock();
            lock.unlock();
            return got;
        }));
    }

    /** unlock by a thread that does not hold the lock throws IllegalMonitorStateException and frees nothing. */
    @Test
    void unlockByAThreadThatDoesNotHoldItThrows() throws Exception {
        ZkRegistryLock lock = registry.obtain("w");
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "never locked");
        lock.lock();
        try {
            Future<?> wrong = threads.submit(lock::unlock);
            var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> wrong.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalMonitorStateException, e.getCause().toString());
            assertTrue(lock.isHeldByCurrentThread());
            assertEquals(1, ZkTesting.lockNodesBelow(client, root).size());
        } finally {
            lock.unlock();
        }
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "unlocked once too often");
    }

    /** A waiter in lockInterruptibly is granted when the holder unlocks, never before. */
    @Test
    void lockInterruptiblyWaitsForTheHolderAndIsGrantedAtItsUnlock() throws Exception {
        ZkRegistryLock lock = registry.obtain("q");
        lock.lock();
        CountDownLatch granted = new CountDownLatch(1);
        Future<?> waiter = threads.submit(() -> {
            lock.lockInterruptibly();
            granted.countDown();
            lock.unlock();
            return null;
        });
        Await.equal("queued nodes", 2, LONG, () -> ZkTesting.lockNodesBelow(client, root).size());
        assertEquals(1, granted.getCount(), "granted while the holder holds");
        lock.unlock();
        waiter.get(20, TimeUnit.SECONDS);
        assertEquals(0, granted.getCount());
    }

    /** tryLock() makes its one attempt even when the thread is interrupted, and keeps the interrupt status. */
    @Test
    void tryLockIgnoresAnInterruptAndKeepsIt() throws Exception {
        ZkRegistryLock lock = registry.obtain("int");
        Thread.currentThread().interrupt();
        boolean got;
        try {
            got = lock.tryLock();
        } finally {
            assertTrue(Thread.interrupted(), "interrupt status kept (and cleared here)");
        }
        assertTrue(got);
        assertThrows(InterruptedException.class, () -> {
            Thread.currentThread().interrupt();
            lock.lockInterruptibly();
        });
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        assertFalse(lock.isHeldByCurrentThread());
    }

    /** An interrupted lockInterruptibly throws InterruptedException and withdraws its node. */
    @Test
    void interruptedWaiterThrowsAndLeavesNoNode() throws Exception {
        ZkRegistryLock lock = registry.obtain("i");
        lock.lock();
        try {
            Future<?> waiter = threads.submit(() -> {
                lock.lockInterruptibly();
                return null;
            });
            Await.equal("queued nodes", 2, LONG, () -> ZkTesting.lockNodesBelow(client, root).size());
            waiter.cancel(true);
            Await.equal("nodes once the waiter gave up", 1, LONG, () -> ZkTesting.lockNodesBelow(client, root).size());
        } finally {
            lock.unlock();
        }
    }

    /** Two registries on one client exclude each other on the same root and key. */
    @Test
    void twoRegistriesOnOneClientExcludeEachOther() throws Exception {
        try (ZkLockRegistry other = new ZkLockRegistry(client, root)) {
            checkExclusion(registry.obtain("shared"), other.obtain("shared"));
        }
    }

    /** Two registries on two clients exclude each other on the same root and key. */
    @Test
    void twoClientsExcludeEachOther() throws Exception {
        try (ZkLockRegistry other = new ZkLockRegistry(newClient(), root)) {
            checkExclusion(registry.obtain("shared"), other.obtain("shared"));
        }
    }

    /** 4 threads over two lock instances for one key count to 400 with no lost update. */
    private void checkExclusion(Lock first, Lock second) throws Exception {
        first.lock();
        try {
            assertFalse(tried(second::tryLock));
        } finally {
            first.unlock();
        }
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Lock lock = t % 2 == 0 ? first : second;
            workers.add(threads.submit(() -> {
                for (int i = 0; i < 100; i++) {
                    lock.lockInterruptibly();
                    try {
                        assertEquals(1, inside.incrementAndGet(), "two holders at once");
                        counter[0]++;
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(60, TimeUnit.SECONDS);
        }
        assertEquals(400, counter[0]);
    }

    /**
     * A lock taken with a TTL is freed when the TTL runs out; the holder's late unlock throws
     * ConcurrentModificationException (Spring Integration's documented type) saying why, once.
     */
    @Test
    void ttlFreesTheLockAndTheLateUnlockThrows() throws Exception {
        ZkRegistryLock lock = registry.obtain("ttl");
        lock.lock(Duration.ofMillis(300));
        assertTrue(lock.isHeldByCurrentThread());
        try (ZkLockRegistry other = new ZkLockRegistry(newClient(), root)) {
            DistributedLock theirs = other.obtain("ttl");
            assertTrue(tried(() -> {
                boolean got = theirs.tryLock(20, TimeUnit.SECONDS);
                theirs.unlock();
                return got;
            }), "granted once the TTL ran out");
        }
        assertFalse(lock.isHeldByCurrentThread());
        ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class, lock::unlock);
        assertTrue(e.getCause().getMessage().contains("time to live"), e.getCause().getMessage());
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "the late unlock released the hold");
    }

    /** tryLock(wait, ttl) holds for ttl; a re-entry keeps the first TTL, and each acquisition's unlock says it was lost. */
    @Test
    void tryLockWithTtlHoldsForTheTtl() throws Exception {
        ZkRegistryLock lock = registry.obtain("tryttl");
        assertTrue(lock.tryLock(Duration.ofSeconds(1), Duration.ofMillis(400)));
        assertTrue(lock.tryLock());                 // re-entry: no new TTL
        Await.until("the TTL ran out", LONG, () -> !lock.isHeldByCurrentThread());
        Await.equal("nodes", List.of(), LONG, () -> ZkTesting.lockNodesBelow(client, root));
        assertThrows(ConcurrentModificationException.class, lock::unlock);
        assertThrows(ConcurrentModificationException.class, lock::unlock);
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertTrue(lock.tryLock(), "the thread may lock again");
        lock.unlock();
    }

    /**
     * renewLock restarts the TTL: renewed every 200 ms, a 1 s lock is still held after 2.5 s
     * and refused to another client; once renewals stop it is freed.
     */
    @Test
    void renewalKeepsTheLockPastItsTtl() throws Exception {
        Duration ttl = Await.scaled(Duration.ofSeconds(1));
        ZkRegistryLock lock = registry.obtain("renew");
        try (ZkLockRegistry other = new ZkLockRegistry(newClient(), root)) {   // connected before the TTL runs
            DistributedLock theirs = other.obtain("renew");
            lock.lock(ttl);
            long start = System.nanoTime();
            while (System.nanoTime() - start < ttl.multipliedBy(5).dividedBy(2).toNanos()) {
                registry.renewLock("renew");
                Thread.sleep(ttl.dividedBy(5).toMillis());
            }
            assertTrue(lock.isHeldByCurrentThread());
            assertFalse(tried(theirs::tryLock));
            registry.renewLock("renew", Duration.ofMillis(200));
            assertTrue(tried(() -> {
                boolean got = theirs.tryLock(20, TimeUnit.SECONDS);
                theirs.unlock();
                return got;
            }));
        }
        assertThrows(IllegalStateException.class, () -> registry.renewLock("renew"), "nothing to renew");
        assertThrows(ConcurrentModificationException.class, lock::unlock);
    }

    /** renewLock(key, ttl) gives a lock taken without a TTL one; renewing a lock not held throws. */
    @Test
    void renewalGivesATtlAndNeedsTheLock() throws Exception {
        assertThrows(IllegalStateException.class, () -> registry.renewLock("never"));
        ZkRegistryLock lock = registry.obtain("plain");
        lock.lock();
        registry.renewLock("plain");                // no TTL: nothing to restart
        assertTrue(lock.isHeldByCurrentThread());
        registry.renewLock("plain", Duration.ofMillis(200));
        Await.until("the new TTL ran out", LONG, () -> !lock.isHeldByCurrentThread());
        assertThrows(ConcurrentModificationException.class, lock::unlock);
        assertThrows(IllegalStateException.class, () -> onOtherThreadRenew("plain"));
    }

    private void onOtherThreadRenew(String key) throws Throwable {
        try {
            onOtherThread(() -> {
                registry.renewLock(key);
                return null;
            });
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause();
        }
    }

    /** expireUnusedOlderThan forgets unlocked locks only; a held one keeps its instance. */
    @Test
    void expiryOfUnusedLocksDropsUnlockedOnes() throws Exception {
        long gap = Await.scaled(Duration.ofMillis(600)).toMillis();
        ZkRegistryLock held = registry.obtain("held");
        ZkRegistryLock idle = registry.obtain("idle");
        ZkRegistryLock recent = registry.obtain("recent");
        held.lock();
        try {
            registry.expireUnusedOlderThan(30_000);
            assertSame(idle, registry.obtain("idle"), "used less than 30 s ago");
            Thread.sleep(gap);
            assertTrue(recent.tryLock());
            recent.unlock();
            registry.expireUnusedOlderThan(gap / 2);
            assertSame(held, registry.obtain("held"), "held");
            assertSame(recent, registry.obtain("recent"), "used just now");
            assertNotSame(idle, registry.obtain("idle"), "unused for longer than the age");
            registry.expireUnusedOlderThan(0);
            assertSame(held, registry.obtain("held"));
        } finally {
            held.unlock();
        }
        registry.expireUnusedOlderThan(0);
        assertNotSame(held, registry.obtain("held"));
    }

    /** A thread waiting for a lock keeps it from being expired. */
    @Test
    void aLockWithAWaiterIsNotExpired() throws Exception {
        try (ZkLockRegistry other = new ZkLockRegistry(newClient(), root)) {
            DistributedLock theirs = other.obtain("waited");
            theirs.lock();
            ZkRegistryLock lock = registry.obtain("waited");
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                lock.lock();
                lock.unlock();
            }, threads);
            Await.equal("queued nodes", 2, LONG, () -> ZkTesting.lockNodesBelow(client, root).size());
            registry.expireUnusedOlderThan(0);
            assertSame(lock, registry.obtain("waited"), "expired while a thread waits for it");
            theirs.unlock();
            waiting.get(20, TimeUnit.SECONDS);
            registry.expireUnusedOlderThan(0);
            assertNotSame(lock, registry.obtain("waited"));
        }
    }

    /**
     * The registry's map of locks (least recently used first, as the registry's own), slowed
     * where expireUnusedOlderThan drops a lock: after the decision, before the map changes. A
     * real map; only the timing is widened.
     */
    private static final class SlowDrop extends LinkedHashMap<String, ZkRegistryLock> {
        private static final long serialVersionUID = 1L;
        final transient CountDownLatch deciding = new CountDownLatch(1);
        private final long pauseMs;

        SlowDrop(long pauseMs) {
            super(16, 0.75f, true);
            this.pauseMs = pauseMs;
        }

        @Override
        public ZkRegistryLock remove(Object key) {
            deciding.countDown();
            try {
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return super.remove(key);
        }
    }

    /**
     * A thread that locks while expireUnusedOlderThan drops the lock still has one lock per key:
     * obtain() then gives the instance it holds, its re-entry through it is immediate, and either
     * reference unlocks; one node throughout.
     */
    @Test
    void aLockTakenWhileItIsBeingExpiredStaysOneLockForItsHolder() throws Exception {
        SlowDrop map = new SlowDrop(Await.scaled(Duration.ofMillis(500)).toMillis());
        Field locks = ZkLockRegistry.class.getDeclaredField("locks");
        locks.setAccessible(true);
        locks.set(registry, map);
        ZkRegistryLock lock = registry.obtain("k");
        Thread expirer = new Thread(() -> registry.expireUnusedOlderThan(0), "expirer");
        expirer.start();
        assertTrue(map.deciding.await(20, TimeUnit.SECONDS), "the expiry never reached its decision");
        lock.lock();                           // while the expirer is between its decision and the map's change
        expirer.join(20_000);
        try {
            ZkRegistryLock now = registry.obtain("k");
            assertTrue(now.isHeldByCurrentThread(), "obtain() gave an instance the holder does not hold");
            assertTrue(lock.isHeldByCurrentThread());
            assertTrue(now.tryLock(), "the holder's re-entry through obtain() was refused");
            assertSame(now, registry.obtain("k"), "a second instance for a key in use");
            assertEquals(1, ZkTesting.lockNodesBelow(client, root).size());
            now.unlock();
        } finally {
            lock.unlock();
        }
        assertFalse(registry.obtain("k").isHeldByCurrentThread());
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
    }

    /** A lock obtained before expireUnusedOlderThan dropped it still locks the key's one lock: a second instance of the key excludes it, and it unlocks. */
    @Test
    void aDroppedInstanceStillActsOnTheKeysLock() throws Exception {
        ZkRegistryLock dropped = registry.obtain("k");
        registry.expireUnusedOlderThan(0);
        ZkRegistryLock current = registry.obtain("k");
        assertNotSame(dropped, current);
        dropped.lock();
        try {
            assertTrue(current.isHeldByCurrentThread());
            assertTrue(current.tryLock(), "re-entry through the current instance");
            current.unlock();
            assertFalse(tried(registry.obtain("k")::tryLock), "another thread took a held key");
            assertTrue(dropped.fencingToken() > 0);
        } finally {
            dropped.unlock();
        }
        assertFalse(current.isHeldByCurrentThread());
    }

    /**
     * setRenewalTaskScheduler is accepted and ignored, as the interface's default, so shared
     * configuration that sets it on every RenewableLockRegistry starts; nothing is scheduled on it.
     */
    @Test
    void aRenewalSchedulerIsIgnored() throws Exception {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.initialize();
        try {
            registry.setRenewalTaskScheduler(scheduler);
            registry.setRenewalTaskScheduler(scheduler);
            ZkRegistryLock lock = registry.obtain("sched");
            lock.lock(Duration.ofSeconds(30));
            lock.unlock();
            assertEquals(0, scheduler.getScheduledThreadPoolExecutor().getTaskCount(), "a task was scheduled");
        } finally {
            scheduler.shutdown();
        }
    }

    /** executeLocked, Spring's default method, runs the task under the lock and releases it. */
    @Test
    void executeLockedRunsUnderTheLock() throws Exception {
        String seen = registry.executeLocked("exec", () -> {
            assertTrue(registry.obtain("exec").isHeldByCurrentThread());
            assertFalse(tried(registry.obtain("exec")::tryLock));
            return "ran";
        });
        assertEquals("ran", seen);
        assertFalse(registry.obtain("exec").isHeldByCurrentThread());
    }

    /** Keys that look alike, or look like paths, get locks of their own, all directly under the root. */
    @Test
    void awkwardKeysGetLocksOfTheirOwnUnderTheRoot() throws Exception {
        List<String> keys = List.of("a/b", "a%2Fb", "a_b", "..", ".", "../escape", "zookeeper", "line\nbreak",
                "nul\u0000", "日本", "emoji\uD83D\uDE00", "%", "%25");
        List<ZkRegistryLock> locks = new ArrayList<>();
        for (String key : keys) {
            ZkRegistryLock lock = registry.obtain(key);
            assertTrue(lock.tryLock(), key);
            locks.add(lock);
        }
        List<String> directories = client.getChildren().forPath(root);
        assertEquals(keys.size(), directories.size(), directories.toString());
        for (ZkRegistryLock lock : locks) {
            lock.unlock();
        }
    }

    /** Bad keys, roots and TTLs are refused by name, before any call to ZooKeeper. */
    @Test
    void badInputIsRefusedClearlyAndLeavesNothing() throws Exception {
        assertMessage("lock key is null", () -> registry.obtain(null));
        assertMessage("lock key is empty", () -> registry.obtain(""));
        assertMessage("java.lang.Integer", () -> registry.obtain(42));
        assertMessage("513 chars long", () -> registry.obtain("x".repeat(513)));
        assertMessage("lone surrogate", () -> registry.obtain("bad\uD800"));
        assertMessage("Curator client is null", () -> new ZkLockRegistry(null));
        assertMessage("root is null", () -> new ZkLockRegistry(client, null));
        assertMessage("'relative'", () -> new ZkLockRegistry(client, "relative"));
        assertMessage("'/a/'", () -> new ZkLockRegistry(client, "/a/"));
        assertMessage("'/'", () -> new ZkLockRegistry(client, "/"));
        assertMessage("'/zookeeper/x'", () -> new ZkLockRegistry(client, "/zookeeper/x"));
        ZkRegistryLock lock = registry.obtain("ttl");
        assertMessage("positive, was PT0S", () -> lock.lock(Duration.ZERO));
        assertMessage("positive, was PT-1S", () -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(-1)));
        assertMessage("time to live is null", () -> lock.tryLock(Duration.ZERO, null));
        assertMessage("wait time is null", () -> lock.tryLock(null, Duration.ofSeconds(1)));
        assertMessage("positive, was PT-0.001S", () -> registry.renewLock("ttl", Duration.ofMillis(-1)));
        assertFalse(lock.isHeldByCurrentThread());
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
        assertFalse(client.checkExists().forPath(root) != null
                && !client.getChildren().forPath(root).isEmpty(), "nothing created under the root");
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(part), "message \"" + e.getMessage() + "\" should name " + part);
    }

    /** After close, a TTL acquisition is refused and takes nothing. */
    @Test
    void aClosedRegistryRefusesTtlLocksAndTakesNothing() throws Exception {
        ZkRegistryLock lock = registry.obtain("closed");
        registry.close();
        assertThrows(IllegalStateException.class, () -> lock.lock(Duration.ofSeconds(5)));
        assertFalse(lock.isHeldByCurrentThread());
        Await.equal("nodes", List.of(), LONG, () -> ZkTesting.lockNodesBelow(client, root));
        assertTrue(lock.tryLock(), "a lock without a TTL still works");
        lock.unlock();
    }
}
