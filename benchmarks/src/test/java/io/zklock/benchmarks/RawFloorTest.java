package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/**
 * The floors' raw locks are locks: a floor that let more holders in than its permits would
 * measure a lock that does not exist. Holders are counted while they hold, on a real server.
 * The background floor's replies do pass ZooKeeper's event thread (what it is there to measure).
 */
class RawFloorTest {

    /** The raw semaphore of scenario 5f: 6 threads over 3 sessions, never more than 3 holders, and 3 reached. */
    @Test
    void semaphoreGrantsAtMostItsPermits() throws Exception {
        assertEquals(3, maxHolders(3, 2, 3, client -> RawFloor.permits(client, "/floor", 3)));
    }

    /** The raw mutex of scenario 3f: 4 sessions x 2 threads, one holder at a time. */
    @Test
    void mutexGrantsOneHolder() throws Exception {
        assertEquals(1, maxHolders(4, 2, 1, client -> RawFloor.RECIPES.mutex(client, "/floor")));
    }

    /** The background floor's mutex (floor 2pb's lock): one holder at a time, its waiters woken. */
    @Test
    void backgroundMutexGrantsOneHolder() throws Exception {
        assertEquals(1, maxHolders(4, 2, 1, client -> RawFloor.BACKGROUND.mutex(client, "/floor")));
    }

    /** The listing-and-watch loop with every call in the background: at most 3 holders, 3 reached. */
    @Test
    void backgroundSemaphoreGrantsAtMostItsPermits() throws Exception {
        assertEquals(3, maxHolders(3, 2, 3,
                client -> RawFloor.permits(client, "/floor", 3, RawFloor.Calls.IN_BACKGROUND)));
    }

    /** The background floor's reader cycle (floor 4fb's): never waits, so readers of two sessions hold together. */
    @Test
    void backgroundReadersHoldTogether() throws Exception {
        assertTrue(maxHolders(2, 2, 2, client -> RawFloor.BACKGROUND.readWrite(client, "/floor")[0]) >= 2);
    }

    /**
     * With ZooKeeper's event thread blocked (a watcher that has not returned), the synchronous
     * floor's release completes (its reply wakes the caller from the send thread) and the
     * background floor's does not, until the event thread runs again.
     */
    @Test
    void backgroundRepliesWaitForTheEventThread() throws Exception {
        try (var server = new TestingServer()) {
            CuratorFramework client = Scenario.Workload.start(server.getConnectString());
            var unblock = new CountDownLatch(1);
            try {
                Scenario.Workload.awaitConnected(client, server.getConnectString());
                Recipes.Held background = RawFloor.BACKGROUND.mutex(client, "/background").acquire();
                Recipes.Held synchronous = RawFloor.RECIPES.mutex(client, "/synchronous").acquire();
                var blocked = new CountDownLatch(1);
                ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
                zk.exists("/blocker", event -> {
                    blocked.countDown();
                    try {
                        unblock.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                client.create().forPath("/blocker");
                assertTrue(blocked.await(10, TimeUnit.SECONDS), "the watcher never ran");

                release(synchronous).get(10, TimeUnit.SECONDS);
                CompletableFuture<Void> backgroundReleased = release(background);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
                assertFalse(backgroundReleased.isDone(), "a background reply reached the caller past a blocked event thread");
                unblock.countDown();
                backgroundReleased.get(10, TimeUnit.SECONDS);
            } finally {
                unblock.countDown();
                client.close();
            }
        }
    }

    private static CompletableFuture<Void> release(Recipes.Held held) {
        var released = new CompletableFuture<Void>();
        new Thread(() -> {
            try {
                held.release();
                released.complete(null);
            } catch (Throwable e) {
                released.completeExceptionally(e);
            }
        }).start();
        return released;
    }

    /**
     * Runs the threads for a second (up to thirty until {@code target} holders were seen at once and
     * 20 grants made: a loaded machine is slow, not wrong), each holding ~1 ms, on the lock {@code lock} makes for each session; returns the most holders seen at once.
     */
    static int maxHolders(int sessions, int threadsPerSession, int target,
            Function<CuratorFramework, Recipes.Lock> lock) throws Exception {
        try (var server = new TestingServer()) {
            var clients = new ArrayList<CuratorFramework>();
            var holders = new AtomicInteger();
            var most = new AtomicInteger();
            var grants = new AtomicInteger();
            var failure = new AtomicReference<Throwable>();
            var threads = new ArrayList<Thread>();
            var locks = new ArrayList<Recipes.Lock>();
            try {
                for (int s = 0; s < sessions; s++) {
                    CuratorFramework client = Scenario.Workload.start(server.getConnectString());
                    clients.add(client);
                    Scenario.Workload.awaitConnected(client, server.getConnectString());
                    locks.add(lock.apply(client));
                }
                long start = System.nanoTime();     // once every session is up
                long deadline = start + TimeUnit.SECONDS.toNanos(1);
                long lastChance = start + TimeUnit.SECONDS.toNanos(30);  // a loaded machine may overlap holds, or grant, late
                for (Recipes.Lock each : locks) {
                    for (int t = 0; t < threadsPerSession; t++) {
                        threads.add(new Thread(() -> {
                            try {
                                long now;
                                while ((now = System.nanoTime()) < deadline
                                        || ((most.get() < target || grants.get() < 20) && now < lastChance)) {
                                    Recipes.Held held = each.acquire();
                                    most.accumulateAndGet(holders.incrementAndGet(), Math::max);
                                    LockSupport.parkNanos(1_000_000L);
                                    holders.decrementAndGet();
                                    held.release();
                                    grants.incrementAndGet();
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        }));
                    }
                }
                threads.forEach(Thread::start);
                for (Thread t : threads) {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(lastChance - System.nanoTime()) + 10_000));
                }
            } finally {
                clients.forEach(CuratorFramework::close);
            }
            assertEquals(null, failure.get(), "a worker failed");
            assertTrue(threads.stream().noneMatch(Thread::isAlive), "a worker hung");
            assertTrue(grants.get() >= 20, "only " + grants.get() + " grants");
            return most.get();
        }
    }
}
