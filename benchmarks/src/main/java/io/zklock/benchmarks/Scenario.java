package io.zklock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.zklock.benchmarks.Recipes.Held;
import io.zklock.benchmarks.Recipes.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A workload written once against {@link Recipes}, opened once per library: its sessions and
 * lock objects live across that library's rounds, so a round measures steady-state work.
 * Metric 0 is the operation the throughput and requests per operation are counted against.
 */
record Scenario(String id, String title, List<String> metrics, Opener opener) {

    /** Opens the workload for one library on the server at {@code connectString}. */
    @FunctionalInterface
    interface Opener {
        Workload open(Recipes recipes, String connectString, String root) throws Exception;
    }

    /** One library's sessions and workers for this scenario. */
    static final class Workload implements AutoCloseable {
        final List<CuratorFramework> clients = new ArrayList<>();
        final List<Run.Worker> workers = new ArrayList<>();
        final List<Runnable> beforeEachRun = new ArrayList<>();
        private final String connectString;

        Workload(String connectString) {
            this.connectString = connectString;
        }

        CuratorFramework session() {
            CuratorFramework client = CuratorFrameworkFactory.builder()
                    .connectString(connectString)
                    .sessionTimeoutMs(20_000)           // the embedded server's cap
                    .connectionTimeoutMs(10_000)
                    .retryPolicy(new ExponentialBackoffRetry(20, 5, 500))
                    .ensembleTracker(false)             // its watch on /zookeeper/config is not lock traffic
                    .build();
            clients.add(client);
            client.start();
            try {
                if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("could not connect to " + connectString);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return client;
        }

        Run.Result run(int metricCount, long durationNanos) throws Exception {
            beforeEachRun.forEach(Runnable::run);
            return Run.forDuration(workers, metricCount, durationNanos);
        }

        @Override
        public void close() {
            clients.forEach(CuratorFramework::close);
        }
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("1", "raw floor: create+getChildren+delete, plain client (same workload both sides)",
                        List.of("cycle"), (r, cs, root) -> uncontended(Recipes.RAW, cs, root)),
                new Scenario("1b", "raw floor through background calls, replies via the event thread (same workload both sides)",
                        List.of("cycle"), (r, cs, root) -> uncontended(Recipes.RAW_ASYNC, cs, root)),
                new Scenario("2", "uncontended mutex acquire+release, two sessions taking turns (nobody waits)",
                        List.of("acquire+release"), Scenario::turns),
                new Scenario("2r", "uncontended mutex acquire+release, one client re-acquiring (nobody else touches it)",
                        List.of("acquire+release"), Scenario::uncontended),
                new Scenario("3", "contended mutex, 4 sessions x 2 threads",
                        List.of("acquire+release", "hand-off"), (r, cs, root) -> contended(r, cs, root, 4, 2)),
                new Scenario("4", "read-heavy: 8 readers over 4 sessions + 1 writer every ~20 ms",
                        List.of("read acquire+release", "write acquire+release"), Scenario::readHeavy),
                new Scenario("5", "semaphore maxLeases 3, 6 threads over 3 sessions, ~1 ms hold",
                        List.of("acquire+release (hold excluded)"), Scenario::semaphore),
                new Scenario("6", "multi-lock over 8 locks, uncontended",
                        List.of("acquire+release"), Scenario::multi),
                new Scenario("7a", "scale: contended mutex, 1 holder + 1 waiting session",
                        List.of("acquire+release", "hand-off"), (r, cs, root) -> contended(r, cs, root, 2, 1)),
                new Scenario("7b", "scale: contended mutex, 1 holder + 8 waiting sessions",
                        List.of("acquire+release", "hand-off"), (r, cs, root) -> contended(r, cs, root, 9, 1)),
                new Scenario("7c", "scale: contended mutex, 1 holder + 32 waiting sessions",
                        List.of("acquire+release", "hand-off"), (r, cs, root) -> contended(r, cs, root, 33, 1)),
                new Scenario("c1", "cached leases: scenario 2r with zklock caching on (Curator as in 2r)",
                        List.of("acquire+release"), (r, cs, root) -> uncontended(r.cached(), cs, root)),
                new Scenario("c2", "cached leases: scenario 4 with zklock's read lock caching on (Curator as in 4)",
                        List.of("read acquire+release", "write acquire+release"), (r, cs, root) -> readHeavy(r.cached(), cs, root)),
                new Scenario("c3", "cached leases: scenario 5 with zklock's permits caching on (Curator as in 5)",
                        List.of("acquire+release (hold excluded)"), (r, cs, root) -> semaphore(r.cached(), cs, root)));
    }

    private static Workload uncontended(Recipes recipes, String connectString, String root) {
        var w = new Workload(connectString);
        Lock lock = recipes.mutex(w.session(), root + "/lock");
        w.workers.add(m -> {
            long t0 = System.nanoTime();
            lock.acquire().release();
            m[0].add(System.nanoTime() - t0);
        });
        return w;
    }

    /**
     * One thread cycles on one mutex through two sessions in turn: never contended, but every
     * acquire follows a turn of the other session, so no client can infer its grant.
     */
    private static Workload turns(Recipes recipes, String connectString, String root) {
        var w = new Workload(connectString);
        Lock[] locks = {recipes.mutex(w.session(), root + "/lock"), recipes.mutex(w.session(), root + "/lock")};
        int[] turn = {0};
        w.workers.add(m -> {
            Lock lock = locks[turn[0]++ & 1];
            long t0 = System.nanoTime();
            lock.acquire().release();
            m[0].add(System.nanoTime() - t0);
        });
        return w;
    }

    /**
     * Every thread cycles on one mutex with an empty critical section. Hand-off is the time
     * from a holder starting its release to the next holder's acquire returning.
     */
    private static Workload contended(Recipes recipes, String connectString, String root, int sessions,
            int threadsPerSession) {
        var w = new Workload(connectString);
        var releaseStarted = new AtomicLong();
        w.beforeEachRun.add(() -> releaseStarted.set(0));
        for (int s = 0; s < sessions; s++) {
            Lock lock = recipes.mutex(w.session(), root + "/lock");
            for (int t = 0; t < threadsPerSession; t++) {
                w.workers.add(m -> {
                    long t0 = System.nanoTime();
                    Held held = lock.acquire();
                    long granted = System.nanoTime();
                    long previous = releaseStarted.getAndSet(0);
                    if (previous != 0) {
                        m[1].add(granted - previous);
                    }
                    releaseStarted.set(System.nanoTime());
                    held.release();
                    m[0].add(System.nanoTime() - t0);
                });
            }
        }
        return w;
    }

    private static Workload readHeavy(Recipes recipes, String connectString, String root) {
        var w = new Workload(connectString);
        for (int s = 0; s < 4; s++) {
            Lock read = recipes.readWrite(w.session(), root + "/rw")[0];
            for (int t = 0; t < 2; t++) {
                w.workers.add(m -> {
                    long t0 = System.nanoTime();
                    read.acquire().release();
                    m[0].add(System.nanoTime() - t0);
                });
            }
        }
        Lock write = recipes.readWrite(w.session(), root + "/rw")[1];
        w.workers.add(m -> {
            Thread.sleep(20);
            long t0 = System.nanoTime();
            write.acquire().release();
            m[1].add(System.nanoTime() - t0);
        });
        return w;
    }

    private static Workload semaphore(Recipes recipes, String connectString, String root) {
        var w = new Workload(connectString);
        for (int s = 0; s < 3; s++) {
            Lock permit = recipes.semaphore(w.session(), root + "/sem", 3);
            for (int t = 0; t < 2; t++) {
                w.workers.add(m -> {
                    long t0 = System.nanoTime();
                    Held held = permit.acquire();
                    long t1 = System.nanoTime();
                    Thread.sleep(1);
                    long t2 = System.nanoTime();
                    held.release();
                    m[0].add(t1 - t0 + System.nanoTime() - t2);
                });
            }
        }
        return w;
    }

    private static Workload multi(Recipes recipes, String connectString, String root) {
        var w = new Workload(connectString);
        var paths = new ArrayList<String>();
        for (int i = 0; i < 8; i++) {
            paths.add(root + "/m" + i);
        }
        Lock lock = recipes.multi(w.session(), paths);
        w.workers.add(m -> {
            long t0 = System.nanoTime();
            lock.acquire().release();
            m[0].add(System.nanoTime() - t0);
        });
        return w;
    }
}
