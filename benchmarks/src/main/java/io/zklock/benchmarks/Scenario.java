package io.zklock.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
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

    /** Whether this is a floor row: a raw lock ({@link RawFloor}) in the first column, Curator's recipe in the second. */
    boolean floor() {
        return metrics.get(0).startsWith("FLOOR");
    }

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
        /** Figures a round reports beside latencies and counts (e.g. heap per lease), one value per round. */
        final Map<String, List<Double>> figures = new LinkedHashMap<>();
        /** Set by the runner before the first round: the server's counters, for rounds that read them. */
        ServerCounters counters;
        /** A round of its own instead of the workers until a deadline (then it warms itself up). */
        Round round;
        /** At most this many measured rounds (a round of its own may be long). */
        int maxRounds = Integer.MAX_VALUE;
        final String connectString;

        Workload(String connectString) {
            this.connectString = connectString;
        }

        CuratorFramework session() {
            return sessions(1).get(0);
        }

        /** Opens {@code n} sessions at once (connecting them one after another takes long at 200). */
        List<CuratorFramework> sessions(int n) {
            var opened = new ArrayList<CuratorFramework>();
            for (int i = 0; i < n; i++) {
                opened.add(start(connectString));
                clients.add(opened.get(i));
            }
            for (CuratorFramework client : opened) {
                awaitConnected(client, connectString);
            }
            return opened;
        }

        static CuratorFramework start(String connectString) {
            CuratorFramework client = CuratorFrameworkFactory.builder()
                    .connectString(connectString)
                    .sessionTimeoutMs(20_000)           // the embedded server's cap
                    .connectionTimeoutMs(10_000)
                    .retryPolicy(new ExponentialBackoffRetry(20, 5, 500))
                    .ensembleTracker(false)             // its watch on /zookeeper/config is not lock traffic
                    .build();
            client.start();
            return client;
        }

        static void awaitConnected(CuratorFramework client, String connectString) {
            try {
                if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("could not connect to " + connectString);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        Run.Result run(int metricCount, long durationNanos) throws Exception {
            beforeEachRun.forEach(Runnable::run);
            return round != null ? round.run(this) : Run.forDuration(workers, metricCount, durationNanos);
        }

        void figure(String name, double value) {
            figures.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }

        @Override
        public void close() {
            clients.forEach(CuratorFramework::close);
        }
    }

    /** A round that is not workers until a deadline. */
    @FunctionalInterface
    interface Round {
        Run.Result run(Workload workload) throws Exception;
    }

    /** Every scenario, the scale ones (8-11) at the sizes {@code sizes} gives. */
    static List<Scenario> all(Benchmarks.Options sizes) {
        var all = new ArrayList<>(List.of(
                new Scenario("1", "raw floor: create+getChildren+delete, plain client (same workload both sides)",
                        List.of("cycle"), (r, cs, root) -> uncontended(Recipes.RAW, cs, root)),
                new Scenario("1b", "raw floor through background calls, replies via the event thread (same workload both sides)",
                        List.of("cycle"), (r, cs, root) -> uncontended(Recipes.RAW_ASYNC, cs, root)),
                new Scenario("2", "uncontended mutex acquire+release, two sessions taking turns (nobody waits)",
                        List.of("acquire+release"), Scenario::turns),
                new Scenario("2r", "uncontended mutex acquire+release, one client re-acquiring (nobody else touches it)",
                        List.of("acquire+release"), Scenario::uncontended),
                new Scenario("2w", "FLOOR vs Curator's 2: the first column runs no lock but create+delete of an ephemeral"
                        + " sequential node, no listing (the two commits any lock that writes a node pays)",
                        List.of("FLOOR create+delete"), (r, cs, root) -> turns(floorFirst(r, RawFloor.WRITES), cs, root)),
                new Scenario("2p", "FLOOR vs Curator's 2: the first column runs a raw mutex cycle, create with the listing"
                        + " sent right behind it (one round trip), then delete: scenario 2's 3 requests with nothing else",
                        List.of("FLOOR acquire+release"), (r, cs, root) -> turns(floorFirst(r, RawFloor.RECIPES), cs, root)),
                new Scenario("2pb", "FLOOR vs Curator's 2: 2p with every call in the background, the caller waiting on a future"
                        + " (as a client must that never waits in synchronized + wait(): each reply passes the event thread)",
                        List.of("FLOOR acquire+release"), (r, cs, root) -> turns(floorFirst(r, RawFloor.BACKGROUND), cs, root)),
                new Scenario("3", "contended mutex, 4 sessions x 2 threads",
                        List.of("acquire+release", "hand-off"), (r, cs, root) -> contended(r, cs, root, 4, 2)),
                new Scenario("3f", "FLOOR vs Curator's 3: the first column's threads each run a minimal raw mutex (create"
                        + " with the listing, watch the predecessor, list again)", List.of("FLOOR acquire+release",
                        "FLOOR hand-off"), (r, cs, root) -> contended(floorFirst(r, RawFloor.RECIPES), cs, root, 4, 2)),
                new Scenario("4", "read-heavy: 8 readers over 4 sessions + 1 writer every ~20 ms",
                        List.of("read acquire+release", "write acquire+release"), Scenario::readHeavy),
                new Scenario("4f", "FLOOR vs Curator's 4: the first column's readers and writer each run a raw cycle"
                        + " (create with the listing, delete; nobody waits)", List.of("FLOOR read acquire+release",
                        "FLOOR write acquire+release"), (r, cs, root) -> readHeavy(floorFirst(r, RawFloor.RECIPES), cs, root)),
                new Scenario("4fb", "FLOOR vs Curator's 4: 4f with every call in the background, the caller waiting on a future"
                        + " (as a client must that never waits in synchronized + wait(): each reply passes the event thread)",
                        List.of("FLOOR read acquire+release", "FLOOR write acquire+release"),
                        (r, cs, root) -> readHeavy(floorFirst(r, RawFloor.BACKGROUND), cs, root)),
                new Scenario("5", "semaphore maxLeases 3, 6 threads over 3 sessions, ~1 ms hold",
                        List.of("acquire+release (hold excluded)"), Scenario::semaphore),
                new Scenario("5f", "FLOOR vs Curator's 5: the first column's threads each run a minimal raw semaphore of 3"
                        + " (create with the listing watching the directory; not among the first 3: wait for a change,"
                        + " list again)", List.of("FLOOR acquire+release (hold excluded)"),
                        (r, cs, root) -> semaphore(floorFirst(r, RawFloor.RECIPES), cs, root)),
                new Scenario("5w", "semaphore of 2: 2 sessions taking a permit for 1 ms, 200 us apart, + a waiter session"
                        + " taking one every ~20 ms", List.of("acquire+release (hold excluded)", "waiter's acquire"),
                        Scenario::semaphoreWaiter),
                new Scenario("5wf", "FLOOR vs Curator's 5w: the first column's sessions each run 5f's minimal raw semaphore (of 2)",
                        List.of("FLOOR acquire+release (hold excluded)", "FLOOR waiter's acquire"),
                        (r, cs, root) -> semaphoreWaiter(floorFirst(r, RawFloor.RECIPES), cs, root)),
                new Scenario("6", "multi-lock over 8 locks, uncontended",
                        List.of("acquire+release"), Scenario::multi),
                new Scenario("6f", "FLOOR vs Curator's 6: the first column runs a raw multi-lock cycle (one transaction"
                        + " creates the 8 nodes, the 8 listings sent right behind it, one transaction deletes them; nobody waits)",
                        List.of("FLOOR acquire+release"), (r, cs, root) -> multi(floorFirst(r, RawFloor.RECIPES), cs, root)),
                new Scenario("7a", "scale: contended mutex, 1 holder + 1 waiting session",
                        List.of("acquire+release", "hand-off"), (r, cs, root) -> contended(r, cs, root, 2, 1)),
                new Scenario("7b", "scale: contended mutex, 1 holder + 8 waiting sessions",
                        List.of("acquire+release", "hand-off"), (r, cs, root) -> contended(r, cs, root, 9, 1)),
                new Scenario("7c", "scale: contended mutex, 1 holder + 32 waiting sessions",
                        List.of("acquire+release", "hand-off"), (r, cs, root) -> contended(r, cs, root, 33, 1))));
        List<Integer> queues = sizes.queues();
        for (int i = 0; i < queues.size(); i++) {
            int waiters = queues.get(i);
            int sessions = Math.min(waiters + 1, sizes.queueSessions());
            all.add(new Scenario("8" + (char) ('a' + i),
                    "queue: 1 holder + " + waiters + " waiting threads on one mutex, over " + sessions + " sessions",
                    List.of("acquire+release", "hand-off"), (r, cs, root) -> queue(r, cs, root, waiters + 1, sessions)));
        }
        int[] herd = sizes.herd();
        all.add(new Scenario("9", "herd: " + herd[0] + " readers over " + herd[1] + " sessions + " + herd[2]
                        + " writers (a session each) on one read-write lock",
                List.of("read acquire+release", "write acquire+release"),
                (r, cs, root) -> herd(r, cs, root, herd[0], herd[1], herd[2])));
        all.add(new Scenario("10", sizes.held() + " distinct mutexes held at once by one client ("
                        + sizes.heldThreads() + " threads), then released; client in a JVM of its own",
                List.of("acquire", "release"), (r, cs, root) -> HeldLocks.workload(r, cs, root, sizes)));
        int[] crowd = sizes.crowd();
        all.add(new Scenario("11", crowd[0] + " sessions (a thread each) contending on " + crowd[1]
                        + " mutexes, a random one per operation",
                List.of("acquire+release", "hand-off"), (r, cs, root) -> crowd(r, cs, root, crowd[0], crowd[1])));
        all.add(new Scenario("c1", "cached leases: scenario 2r with zklock caching on (Curator as in 2r)",
                List.of("acquire+release"), (r, cs, root) -> uncontended(r.cached(), cs, root)));
        all.add(new Scenario("c2", "cached leases: scenario 4 with zklock's read lock caching on (Curator as in 4)",
                List.of("read acquire+release", "write acquire+release"), (r, cs, root) -> readHeavy(r.cached(), cs, root)));
        all.add(new Scenario("c2p", "cached leases: c2 with each reader pausing 200 us between reads, both sides (8 cached readers"
                        + " spinning on 2 cores starve the client's and the embedded server's threads in c2)",
                cachedReadHeavyMetrics(false), (r, cs, root) -> readHeavy(r.cached(), cs, root, 200)));
        all.add(new Scenario("c2f", "FLOOR vs Curator's c2p: the first column runs a minimal raw cached read-write lock"
                        + " (a read node kept per reader session and re-granted locally; a persistent watch hears the writer's"
                        + " create, the session deletes its node at 0 local holders; the writer creates with the listing and"
                        + " waits to hear the nodes ahead deleted)", cachedReadHeavyMetrics(true),
                (r, cs, root) -> readHeavy(floorFirst(r, RawCachedReadWrite.RECIPES), cs, root, 200)));
        all.add(new Scenario("c3", "cached leases: scenario 5 with zklock's permits caching on (Curator as in 5)",
                List.of("acquire+release (hold excluded)"), (r, cs, root) -> semaphore(r.cached(), cs, root)));
        all.add(new Scenario("c5", "cached leases: scenario 5w with zklock's permits caching on (Curator as in 5w): a waiter"
                        + " behind cached permits", List.of("acquire+release (hold excluded)", "waiter's acquire"),
                (r, cs, root) -> semaphoreWaiter(r.cached(), cs, root)));
        all.add(new Scenario("c5f", "FLOOR vs Curator's 5w: the first column runs a minimal raw cached semaphore (of 2: each"
                        + " session keeps its node and re-grants it locally; a persistent watch hears a waiter's create, and"
                        + " every holder deletes its node at its next release, so the first release frees the waiter's permit)",
                List.of("FLOOR acquire+release (hold excluded)", "FLOOR waiter's acquire"),
                (r, cs, root) -> semaphoreWaiter(floorFirst(r, RawCachedSemaphore.RECIPES), cs, root)));
        all.add(new Scenario("c4", "cached leases: scenario 3 with zklock's mutex caching on (Curator as in 3): the hand-off"
                        + " of a cached node to a waiter of another session",
                List.of("acquire+release", "hand-off", "hand-off across sessions"),
                (r, cs, root) -> contendedAcross(r.cached(), cs, root, 4, 2)));
        return all;
    }

    /**
     * A floor scenario's recipes: {@code floor} in the first column (where zklock runs elsewhere),
     * the second column's own library (Curator, or the baseline) in the second, so that the floor
     * and the library alternate round by round and their ratio is the ceiling any library doing
     * the floor's requests could reach, robust to the machine's load drifting over the run.
     */
    private static Recipes floorFirst(Recipes recipes, Recipes floor) {
        return recipes == Recipes.ZKLOCK ? floor : recipes;
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

    /**
     * Scenario 3, with a third metric: the hand-offs from a holder of one session to a thread of
     * another (what a cached node costs a waiter of another process; the others can be local).
     */
    private static Workload contendedAcross(Recipes recipes, String connectString, String root, int sessions,
            int threadsPerSession) {
        var w = new Workload(connectString);
        var releaseStarted = new AtomicLong();
        var releasedBy = new java.util.concurrent.atomic.AtomicInteger(-1);
        w.beforeEachRun.add(() -> releaseStarted.set(0));
        for (int s = 0; s < sessions; s++) {
            Lock lock = recipes.mutex(w.session(), root + "/lock");
            int session = s;
            for (int t = 0; t < threadsPerSession; t++) {
                w.workers.add(m -> {
                    long t0 = System.nanoTime();
                    Held held = lock.acquire();
                    long granted = System.nanoTime();
                    long previous = releaseStarted.getAndSet(0);
                    if (previous != 0) {
                        m[1].add(granted - previous);
                        if (releasedBy.get() != session) {
                            m[2].add(granted - previous);
                        }
                    }
                    releasedBy.set(session);
                    releaseStarted.set(System.nanoTime());
                    held.release();
                    m[0].add(System.nanoTime() - t0);
                });
            }
        }
        return w;
    }

    /** The metric of a read-heavy scenario's writer's acquire alone, its release excluded. */
    private static final int WRITE_ACQUIRES = 2;
    /** The metric of a read-heavy scenario's reads that took over {@link #SLOW_READ_NANOS}. */
    private static final int SLOW_READS = 3;
    /** A cached read re-granted locally takes microseconds; one that waited, a round trip or more. */
    private static final long SLOW_READ_NANOS = 100_000L;

    /** The metrics of a cached read-heavy scenario and of its floor ({@code floor}: the floor's names). */
    private static List<String> cachedReadHeavyMetrics(boolean floor) {
        String prefix = floor ? "FLOOR " : "";
        return List.of(prefix + "read acquire+release", prefix + "write acquire+release",
                prefix + "write acquire (release excluded)", prefix + "read over 0.1 ms (cached: one that waited)");
    }

    private static Workload readHeavy(Recipes recipes, String connectString, String root) {
        return readHeavy(recipes, connectString, root, 0);
    }

    /**
     * Scenario 4; each reader pauses {@code pauseMicros} between reads (0: none). A scenario that
     * names four metrics also gets the writer's acquire alone ({@link #WRITE_ACQUIRES}) and the
     * reads that took over {@link #SLOW_READ_NANOS} ({@link #SLOW_READS}: with caching, the reads
     * that waited, mostly behind a writer).
     */
    private static Workload readHeavy(Recipes recipes, String connectString, String root, int pauseMicros) {
        var w = new Workload(connectString);
        for (int s = 0; s < 4; s++) {
            Lock read = recipes.readWrite(w.session(), root + "/rw")[0];
            for (int t = 0; t < 2; t++) {
                w.workers.add(m -> {
                    long t0 = System.nanoTime();
                    read.acquire().release();
                    long took = System.nanoTime() - t0;
                    m[0].add(took);
                    if (m.length > SLOW_READS && took > SLOW_READ_NANOS) {
                        m[SLOW_READS].add(took);
                    }
                    if (pauseMicros > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(pauseMicros * 1_000L);
                    }
                });
            }
        }
        Lock write = recipes.readWrite(w.session(), root + "/rw")[1];
        w.workers.add(m -> {
            Thread.sleep(20);
            long t0 = System.nanoTime();
            Held held = write.acquire();
            long granted = System.nanoTime();
            held.release();
            m[1].add(System.nanoTime() - t0);
            if (m.length > WRITE_ACQUIRES) {
                m[WRITE_ACQUIRES].add(granted - t0);
            }
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

    /**
     * A semaphore of 2 kept busy by two sessions (a thread each) that hold a permit for 1 ms and
     * pause 200 us between holds, and a third session's thread that takes a permit every ~20 ms:
     * its wait for a permit (acquire until granted) is the second metric. With caching on, the
     * holders' permits are cached nodes, idle between holds, that the waiter must ask back.
     */
    private static Workload semaphoreWaiter(Recipes recipes, String connectString, String root) {
        var w = new Workload(connectString);
        for (int s = 0; s < 2; s++) {
            Lock permit = recipes.semaphore(w.session(), root + "/sem", 2);
            w.workers.add(m -> {
                long t0 = System.nanoTime();
                Held held = permit.acquire();
                long t1 = System.nanoTime();
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                long t2 = System.nanoTime();
                held.release();
                m[0].add(t1 - t0 + System.nanoTime() - t2);
                java.util.concurrent.locks.LockSupport.parkNanos(200_000L);
            });
        }
        Lock waiter = recipes.semaphore(w.session(), root + "/sem", 2);
        w.workers.add(m -> {
            Thread.sleep(20);
            long t0 = System.nanoTime();
            Held held = waiter.acquire();
            m[1].add(System.nanoTime() - t0);
            held.release();
        });
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

    /**
     * {@code threads} threads over {@code sessions} sessions (round robin; one lock object per
     * session, shared by its threads, as in scenario 3) cycle on one mutex with an empty
     * critical section, so all but one of them wait at any moment: a queue of threads - 1.
     */
    private static Workload queue(Recipes recipes, String connectString, String root, int threads, int sessions) {
        var w = new Workload(connectString);
        var releaseStarted = new AtomicLong();
        w.beforeEachRun.add(() -> releaseStarted.set(0));
        var locks = new ArrayList<Lock>();
        for (CuratorFramework client : w.sessions(sessions)) {
            locks.add(recipes.mutex(client, root + "/lock"));
        }
        for (int t = 0; t < threads; t++) {
            w.workers.add(handOffs(locks.get(t % sessions), releaseStarted));
        }
        return w;
    }

    /** A cycle on {@code lock}, timing the hand-off from the previous holder's release on {@code releaseStarted}. */
    private static Run.Worker handOffs(Lock lock, AtomicLong releaseStarted) {
        return m -> {
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
        };
    }

    /**
     * Readers (two threads per session, one read-lock object per session) and writers (one
     * session each) cycle on one read-write lock with empty critical sections. The server's
     * notifications about read nodes and write nodes, over read and write releases, are the
     * wake-ups per release of each kind.
     */
    private static Workload herd(Recipes recipes, String connectString, String root, int readers, int readerSessions,
            int writers) {
        var w = new Workload(connectString);
        List<CuratorFramework> sessions = w.sessions(readerSessions + writers);
        var reads = new ArrayList<Lock>();
        for (int s = 0; s < readerSessions; s++) {
            reads.add(recipes.readWrite(sessions.get(s), root + "/rw")[0]);
        }
        for (int t = 0; t < readers; t++) {
            Lock read = reads.get(t % readerSessions);
            w.workers.add(m -> {
                long t0 = System.nanoTime();
                read.acquire().release();
                m[0].add(System.nanoTime() - t0);
            });
        }
        for (int t = 0; t < writers; t++) {
            Lock write = recipes.readWrite(sessions.get(readerSessions + t), root + "/rw")[1];
            w.workers.add(m -> {
                long t0 = System.nanoTime();
                write.acquire().release();
                m[1].add(System.nanoTime() - t0);
            });
        }
        return w;
    }

    /**
     * {@code sessions} sessions, a thread each, with a lock object per session and lock; each
     * operation takes a lock drawn at random (the same seeded draws for both libraries). The
     * hand-off is timed per lock.
     */
    private static Workload crowd(Recipes recipes, String connectString, String root, int sessions, int lockCount) {
        var w = new Workload(connectString);
        var releaseStarted = new AtomicLong[lockCount];
        for (int l = 0; l < lockCount; l++) {
            releaseStarted[l] = new AtomicLong();
        }
        w.beforeEachRun.add(() -> {
            for (AtomicLong r : releaseStarted) {
                r.set(0);
            }
        });
        List<CuratorFramework> clients = w.sessions(sessions);
        for (int s = 0; s < sessions; s++) {
            var mine = new ArrayList<Run.Worker>();
            for (int l = 0; l < lockCount; l++) {
                mine.add(handOffs(recipes.mutex(clients.get(s), root + "/lock" + l), releaseStarted[l]));
            }
            var random = new SplittableRandom(s);
            w.workers.add(m -> mine.get(random.nextInt(lockCount)).op(m));
        }
        return w;
    }
}
