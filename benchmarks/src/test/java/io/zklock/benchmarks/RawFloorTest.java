package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The floors' raw locks are locks: a floor that let more holders in than its permits would
 * measure a lock that does not exist. Holders are counted while they hold, on a real server.
 */
class RawFloorTest {

    /** The raw semaphore of scenario 5f: 6 threads over 3 sessions, never more than 3 holders, and 3 reached. */
    @Test
    void semaphoreGrantsAtMostItsPermits() throws Exception {
        assertEquals(3, maxHolders(3, 2, 3, false));
    }

    /** The raw mutex of scenario 3f: 4 sessions x 2 threads, one holder at a time. */
    @Test
    void mutexGrantsOneHolder() throws Exception {
        assertEquals(1, maxHolders(4, 2, 1, false));
    }

    /** The raw mutex with every call in the background (floor 2pb's): one holder at a time, its waiters woken. */
    @Test
    void backgroundMutexGrantsOneHolder() throws Exception {
        assertEquals(1, maxHolders(4, 2, 1, true));
    }

    /** The raw semaphore's listing-and-watch loop with every call in the background: at most 3 holders, 3 reached. */
    @Test
    void backgroundSemaphoreGrantsAtMostItsPermits() throws Exception {
        assertEquals(3, maxHolders(3, 2, 3, true));
    }

    /**
     * Runs the threads for a second (up to five until {@code permits} holders were seen at once), each
     * holding ~1 ms; returns the most holders seen at once. {@code background}: the floor whose
     * calls are all made in the background.
     */
    private static int maxHolders(int sessions, int threadsPerSession, int permits, boolean background)
            throws Exception {
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
                    locks.add(RawFloor.permits(client, "/floor", permits, background));
                }
                long start = System.nanoTime();     // once every session is up
                long deadline = start + TimeUnit.SECONDS.toNanos(1);
                long lastChance = start + TimeUnit.SECONDS.toNanos(5);   // a loaded machine may overlap holds late
                for (Recipes.Lock lock : locks) {
                    for (int t = 0; t < threadsPerSession; t++) {
                        threads.add(new Thread(() -> {
                            try {
                                long now;
                                while ((now = System.nanoTime()) < deadline
                                        || (most.get() < permits && now < lastChance)) {
                                    Recipes.Held held = lock.acquire();
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
                    t.join(TimeUnit.SECONDS.toMillis(10));
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
