package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;

/**
 * The cached floor of scenario c2f is a read-write lock: a floor whose writer ran beside a
 * reader would measure a lock that does not exist. Holders are counted in memory across
 * sessions while they hold, on a real server.
 */
class RawCachedReadWriteTest {

    /** 3 reader sessions x 2 threads and 2 writer sessions: a writer holds alone, readers share, every side is granted. */
    @Test
    void writerHoldsAloneAndReadersShare() throws Exception {
        try (var server = new TestingServer()) {
            var clients = new ArrayList<CuratorFramework>();
            var readers = new AtomicInteger();
            var writers = new AtomicInteger();
            var mostReaders = new AtomicInteger();
            var overlaps = new AtomicInteger();
            var reads = new AtomicInteger();
            var writes = new AtomicInteger();
            var failure = new AtomicReference<Throwable>();
            var threads = new ArrayList<Thread>();
            try {
                var readLocks = new ArrayList<Recipes.Lock>();
                var writeLocks = new ArrayList<Recipes.Lock>();
                for (int s = 0; s < 5; s++) {
                    CuratorFramework client = session(server, clients);
                    Recipes.Lock[] rw = RawCachedReadWrite.RECIPES.readWrite(client, "/rw");
                    (s < 3 ? readLocks : writeLocks).add(rw[s < 3 ? 0 : 1]);
                }
                // every side runs until all reach their counts: a starved side keeps the others running to the limit
                BooleanSupplier done = () -> reads.get() >= 200 && writes.get() >= 20 && mostReaders.get() >= 2;
                for (Recipes.Lock read : readLocks) {
                    for (int t = 0; t < 2; t++) {
                        threads.add(worker(done, failure, () -> {
                            Recipes.Held held = read.acquire();
                            mostReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
                            if (writers.get() > 0) {
                                overlaps.incrementAndGet();
                            }
                            LockSupport.parkNanos(100_000L);
                            readers.decrementAndGet();
                            held.release();
                            reads.incrementAndGet();
                            LockSupport.parkNanos(200_000L);
                        }));
                    }
                }
                for (Recipes.Lock write : writeLocks) {
                    threads.add(worker(done, failure, () -> {
                        Recipes.Held held = write.acquire();
                        if (writers.incrementAndGet() > 1 || readers.get() > 0) {
                            overlaps.incrementAndGet();
                        }
                        LockSupport.parkNanos(500_000L);
                        writers.decrementAndGet();
                        held.release();
                        writes.incrementAndGet();
                        Thread.sleep(5);
                    }));
                }
                joinAll(threads);
            } finally {
                clients.forEach(CuratorFramework::close);
            }
            assertEquals(null, failure.get(), "a worker failed");
            assertTrue(threads.stream().noneMatch(Thread::isAlive), "a worker hung");
            assertEquals(0, overlaps.get(), "a writer held beside another holder");
            assertTrue(writes.get() >= 20, "only " + writes.get() + " writes: the readers starve the writers");
            assertTrue(reads.get() >= 200, "only " + reads.get() + " reads");
            assertTrue(mostReaders.get() >= 2, "readers never held together");
        }
    }

    /** With no writer, 2 reader sessions x 2 threads create a node each once and re-grant every other read locally. */
    @Test
    void readersRegrantLocallyWhileNoWriterWaits() throws Exception {
        String previous = RequestCounter.install();
        try (var server = new TestingServer()) {
            var clients = new ArrayList<CuratorFramework>();
            var reads = new AtomicInteger();
            var failure = new AtomicReference<Throwable>();
            var threads = new ArrayList<Thread>();
            long packets;
            try {
                var readLocks = new ArrayList<Recipes.Lock>();
                for (int s = 0; s < 2; s++) {
                    readLocks.add(RawCachedReadWrite.RECIPES.readWrite(session(server, clients), "/rw")[0]);
                }
                packets = RequestCounter.packets();
                for (Recipes.Lock read : readLocks) {
                    for (int t = 0; t < 2; t++) {
                        threads.add(worker(() -> reads.get() >= 200, failure, () -> {
                            read.acquire().release();
                            reads.incrementAndGet();
                            LockSupport.parkNanos(50_000L);
                        }));
                    }
                }
                joinAll(threads);
                packets = RequestCounter.packets() - packets;
            } finally {
                clients.forEach(CuratorFramework::close);
            }
            assertEquals(null, failure.get(), "a worker failed");
            assertTrue(threads.stream().noneMatch(Thread::isAlive), "a worker hung");
            assertTrue(reads.get() >= 200, "only " + reads.get() + " reads");
            double perRead = (double) packets / reads.get();
            assertTrue(perRead < 0.1, packets + " requests for " + reads.get() + " reads: " + perRead + " per read");
        } finally {
            RequestCounter.uninstall(previous);
        }
    }

    /**
     * A reader session that heard a writer's create grants no more reads locally: a read asked
     * for while the writer waits behind the session's holder is granted after the writer.
     */
    @Test
    void heardWriterEndsLocalGrants() throws Exception {
        try (var server = new TestingServer()) {
            var clients = new ArrayList<CuratorFramework>();
            var order = new ConcurrentLinkedQueue<String>();
            var failure = new AtomicReference<Throwable>();
            try {
                CuratorFramework readerSession = session(server, clients);
                Recipes.Lock read = RawCachedReadWrite.RECIPES.readWrite(readerSession, "/rw")[0];
                Recipes.Lock write = RawCachedReadWrite.RECIPES.readWrite(session(server, clients), "/rw")[1];
                Recipes.Held first = read.acquire();
                // the reader session's persistent watch hears a child's create before its parent's child watch fires
                var heard = new CountDownLatch(1);
                readerSession.getChildren().usingWatcher((Watcher) e -> heard.countDown()).forPath("/rw");
                Thread writer = once(failure, () -> {
                    Recipes.Held held = write.acquire();
                    order.add("write");        // while it holds: a grant's order, not the threads' race after release
                    held.release();
                });
                assertTrue(heard.await(10, TimeUnit.SECONDS), "the writer's create was not heard");
                Thread second = once(failure, () -> {
                    Recipes.Held held = read.acquire();
                    order.add("read");
                    held.release();
                });
                Thread.sleep(200);
                assertEquals(List.of(), List.copyOf(order), "granted while the first reader holds");
                first.release();
                writer.join(TimeUnit.SECONDS.toMillis(10));
                second.join(TimeUnit.SECONDS.toMillis(10));
            } finally {
                clients.forEach(CuratorFramework::close);
            }
            assertEquals(null, failure.get(), "a thread failed");
            assertEquals(List.of("write", "read"), List.copyOf(order));
        }
    }

    /** A started thread running {@code step} once; its failure is kept. */
    private static Thread once(AtomicReference<Throwable> failure, Step step) {
        var thread = new Thread(() -> {
            try {
                step.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
        thread.setDaemon(true);                // a hung one must not outlive the test
        thread.start();
        return thread;
    }

    /** A new session on {@code server}, connected, added to {@code clients} (which the caller closes). */
    static CuratorFramework session(TestingServer server, List<CuratorFramework> clients) {
        CuratorFramework client = Scenario.Workload.start(server.getConnectString());
        clients.add(client);
        Scenario.Workload.awaitConnected(client, server.getConnectString());
        return client;
    }

    /** One step of a worker's loop. */
    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    /**
     * How long workers may run to reach their counts. Counts, not time, end a run: a loaded
     * machine takes longer, and only a side that cannot progress reaches this limit.
     */
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Starts {@code threads} and waits for them, a little past {@link #LIMIT_NANOS}. */
    private static void joinAll(List<Thread> threads) throws InterruptedException {
        threads.forEach(Thread::start);
        long until = System.nanoTime() + LIMIT_NANOS + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
        }
    }

    /** A thread running {@code step} until {@code done} holds or {@link #LIMIT_NANOS} pass; its first failure is kept. */
    private static Thread worker(BooleanSupplier done, AtomicReference<Throwable> failure, Step step) {
        var thread = new Thread(() -> {
            long limit = System.nanoTime() + LIMIT_NANOS;
            try {
                while (!done.getAsBoolean() && System.nanoTime() < limit) {
                    step.run();
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
        thread.setDaemon(true);                // a hung one must not outlive the test
        return thread;
    }
}
