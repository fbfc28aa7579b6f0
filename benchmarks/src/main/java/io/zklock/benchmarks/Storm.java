package io.zklock.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * A leader kill under many sessions ({@code --scenario storm}): S sessions hold M mutexes
 * (lock j is held by session j mod S) on a three-server ensemble in this JVM, and W of those
 * locks (the first W) each have a waiter from the next session. With everything held and
 * queued, the requests the servers receive are counted over a steady window; then the leader
 * is killed (and left down: two servers keep the quorum), and the run reads:
 * <ul>
 *   <li>leases that turn LOST although their session survived (zklock: a lease listener hears
 *       LOST; Curator, which has no lease: a session told LOST by its connection-state
 *       listener counts each lock it held), and sessions that did not survive;</li>
 *   <li>the request rate (the packets every server receives, counted by {@link RequestCounter},
 *       summed per 500 ms bucket) during recovery against the steady rate, its peak, and the time from
 *       the kill to the last session reconnected and to the rate being back under 1.5x steady;</li>
 *   <li>after recovery, the W held locks are released: whether every waiter is granted.</li>
 * </ul>
 * Both libraries run one after the other on the same ensemble (the killed server restarted
 * and a new leader elected between them), each with its own sessions and paths, and so do as
 * many sessions with no lock library ({@link Library#RAW}: the same clients holding one
 * ephemeral node per held lock and one data watch per waiter, ZooKeeper's own reconnection
 * cost); each round rotates the order. The servers count the requests by operation
 * ({@link RequestCounter}). Arguments: {@code --sessions 1000 --locks 10000 --waiters 1000}
 * (the target sizes), {@code --rounds 1}, {@code --steady-seconds 17} (three ping periods: an idle client pings a
 * second before a third of its session timeout, and sessions set up together ping together,
 * so a shorter window reads one ping per session or two), {@code --session-ms 20000}.
 */
final class Storm {
    private static final long BUCKET_MS = 500;

    private Storm() {
    }

    record Options(int sessions, int locks, int waiters, int rounds, int steadySeconds, int sessionMs) {
        static final String USAGE = "usage: --scenario storm [--sessions 1000] [--locks 10000] [--waiters 1000] "
                + "[--rounds 1] [--steady-seconds 17] [--session-ms 20000]";

        static Options parse(String... args) {
            int[] v = {1000, 10_000, 1000, 1, 17, 20_000};
            String[] names = {"--sessions", "--locks", "--waiters", "--rounds", "--steady-seconds", "--session-ms"};
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("--scenario")) {
                    i++;
                    continue;
                }
                int k = List.of(names).indexOf(args[i]);
                if (k < 0 || i + 1 >= args.length) {
                    throw new IllegalArgumentException("unknown argument '" + args[i] + "'; " + USAGE);
                }
                v[k] = Integer.parseInt(args[++i]);
            }
            if (v[2] > v[1] || v[0] < 2) {
                throw new IllegalArgumentException("waiters must be at most locks, sessions at least 2; " + USAGE);
            }
            return new Options(v[0], v[1], v[2], v[3], v[4], v[5]);
        }
    }

    static boolean selected(String... args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--scenario") && args[i + 1].equals("storm")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Who holds and waits: a lock library, or the same sessions with none ({@link #RAW}): each
     * holds one ephemeral node per lock it holds and keeps one data watch per waiter, set through
     * its ZooKeeper handle, which is the least a holder and a waiting acquirer keep on the server.
     */
    enum Library {
        ZKLOCK("zklock", "zklock"), CURATOR("Curator", "curator"), RAW("ZooKeeper, no library", "raw");

        final String label;
        final String dir;

        Library(String label, String dir) {
            this.label = label;
            this.dir = dir;
        }

        /** The order of round {@code round}: zklock, Curator, raw, rotated by one each round. */
        static List<Library> order(int round) {
            var all = new ArrayList<>(List.of(values()));
            java.util.Collections.rotate(all, -round);
            return all;
        }
    }

    /** One library's figures; {@code recoveryByType}: the requests from the kill to steady, by operation. */
    record Result(String library, int lostLeases, int lostSessions, int expiredSessions, double steadyRate,
            double steadyPeakRate, double peakRate, double recoveryRate, long reconnectedMs, long backToSteadyMs,
            int granted, int waiters, long recoveryPackets, Map<String, Long> recoveryByType) {
    }

    static List<Result> run(Options o, PrintStream out) throws Exception {
        var specs = new ArrayList<InstanceSpec>();
        for (int i = 0; i < 3; i++) {
            // tick 1 s: session timeouts up to 20 s; no cap on connections from one host
            specs.add(new InstanceSpec(null, -1, -1, -1, true, -1, 1_000, 0));
        }
        var results = new ArrayList<Result>();
        String previous = RequestCounter.install();
        try (TestingCluster cluster = new TestingCluster(specs)) {
            cluster.start();
            for (int round = 0; round < o.rounds(); round++) {
                for (Library library : Library.order(round)) {
                    results.add(new Phase(o, cluster, library, "/storm/r" + round + "/" + library.dir, out).run());
                }
            }
        } finally {
            RequestCounter.uninstall(previous);
        }
        out.printf(Locale.ROOT, "%nstorm: %d sessions, %d locks, %d waiters, session timeout %d ms; leader killed and left down%n",
                o.sessions(), o.locks(), o.waiters(), o.sessionMs());
        out.println("| library | LOST leases (session survived) | sessions told LOST | sessions expired | steady req/s "
                + "| steady peak req/s (500 ms) | peak req/s (500 ms) | peak / steady | mean req/s, kill to steady | all reconnected, ms | back under 1.5x steady, ms "
                + "| requests kill to steady, per session | the same, pings left out | waiters granted |");
        out.println("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        for (Result r : results) {
            long pings = r.recoveryByType().getOrDefault("ping", 0L);
            long requests = r.recoveryByType().values().stream().mapToLong(Long::longValue).sum();
            out.printf(Locale.ROOT, "| %s | %d | %d | %d | %.0f | %.0f | %.0f | %.2f | %.0f | %d | %d | %.2f | %.2f | %d / %d |%n",
                    r.library(), r.lostLeases(), r.lostSessions(), r.expiredSessions(), r.steadyRate(), r.steadyPeakRate(),
                    r.peakRate(),
                    r.peakRate() / Math.max(1, r.steadyRate()), r.recoveryRate(), r.reconnectedMs(), r.backToSteadyMs(),
                    (double) r.recoveryPackets() / o.sessions(), (requests - pings) / (double) o.sessions(), r.granted(),
                    r.waiters());
        }
        out.println();
        out.println("requests kill to steady per session, by operation (the servers' own counts):");
        for (Result r : results) {
            var parts = new ArrayList<String>();
            r.recoveryByType().forEach((op, n) -> parts.add(String.format(Locale.ROOT, "%s %.2f", op, n / (double) o.sessions())));
            out.println("  " + r.library() + ": " + String.join(", ", parts));
        }
        return results;
    }

    /** One library's run: set up, steady window, kill, recovery, waiters, tear down. */
    private static final class Phase {
        private final Options o;
        private final TestingCluster cluster;
        private final Library library;
        private final boolean zk;
        private final String root;
        private final PrintStream out;
        private final List<CuratorFramework> clients = new ArrayList<>();
        private final AtomicInteger lostLeases = new AtomicInteger();
        private final AtomicInteger lostSessions = new AtomicInteger();
        private final AtomicInteger suspended = new AtomicInteger();
        private final AtomicInteger granted = new AtomicInteger();
        private final List<int[]> lostSessionLocks = new ArrayList<>();
        private final CountDownLatch releaseWaited = new CountDownLatch(1);
        private final CountDownLatch releaseAll = new CountDownLatch(1);
        private final CountDownLatch holding;
        private final CountDownLatch released;
        private final List<Thread> threads = new ArrayList<>();
        private final List<Lease> zkLeases = new ArrayList<>();

        Phase(Options o, TestingCluster cluster, Library library, String root, PrintStream out) {
            this.o = o;
            this.cluster = cluster;
            this.library = library;
            this.zk = library == Library.ZKLOCK;
            this.root = root;
            this.out = out;
            this.holding = new CountDownLatch(o.sessions());
            this.released = new CountDownLatch(o.sessions());
        }

        private String name() {
            return library.label;
        }

        Result run() throws Exception {
            long t0 = System.nanoTime();
            for (int s = 0; s < o.sessions(); s++) {
                clients.add(client(s));
            }
            for (CuratorFramework c : clients) {
                if (!c.blockUntilConnected(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a session did not connect");
                }
            }
            long[] sessionIds = clients.stream().mapToLong(Storm::sessionId).toArray();
            if (library == Library.RAW) {
                clients.get(0).create().creatingParentsIfNeeded().forPath(root);
            }
            long connected = System.nanoTime();
            var holdPackets = new Packets();
            holdPackets.sample();
            long holdCpu = Run.Result.processCpuNanos();
            for (int s = 0; s < o.sessions(); s++) {
                hold(s);
            }
            if (!holding.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the holders did not acquire within 10 minutes");
            }
            long held = System.nanoTime();
            holdCpu = Run.Result.processCpuNanos() - holdCpu;
            long holdRequests = holdPackets.sample();
            for (int w = 0; w < o.waiters(); w++) {
                await(w);
            }
            settle();
            long settled = System.nanoTime();
            out.printf(Locale.ROOT, "# %s: %d locks held, %d waiters queued (%.0f s: sessions connected %.1f s, locks held %.1f s, "
                    + "waiters queued and traffic settled %.1f s); holding: %.2f requests and %.0f us of process CPU per lock%n",
                    name(), o.locks(), o.waiters(), (settled - t0) / 1e9, (connected - t0) / 1e9, (held - connected) / 1e9,
                    (settled - held) / 1e9, holdRequests / (double) o.locks(), holdCpu / 1e3 / o.locks());
            var packets = new Packets();
            long steadyPackets = 0;
            double steadyPeak = 0;
            long steadyStart = System.nanoTime();
            long bucketStart = steadyStart;
            while (System.nanoTime() - steadyStart < TimeUnit.SECONDS.toNanos(o.steadySeconds())) {
                Thread.sleep(BUCKET_MS);
                long n = packets.sample();
                long now = System.nanoTime();
                steadyPackets += n;
                steadyPeak = Math.max(steadyPeak, n * 1e9 / (now - bucketStart));
                bucketStart = now;
            }
            double steady = steadyPackets * 1e9 / (bucketStart - steadyStart);
            int lostBefore = lostLeases.get();
            InstanceSpec leader = leaderOf(cluster);
            var opsAtKill = RequestCounter.snapshot();
            var opsAtBack = opsAtKill;
            packets.sample();                      // from here: clients reconnect while the kill is still under way
            long kill = System.nanoTime();
            cluster.killServer(leader);
            var rates = new ArrayList<Double>();
            long reconnected = -1;
            long back = -1;
            long recoveryPackets = 0;
            int calm = 0;
            bucketStart = kill;
            while (System.nanoTime() - kill < TimeUnit.SECONDS.toNanos(120)) {
                Thread.sleep(BUCKET_MS);
                long n = packets.sample();
                long now = System.nanoTime();
                double rate = n * 1e9 / (now - bucketStart);   // a bucket is 500 ms or more (the first holds the kill)
                bucketStart = now;
                long at = TimeUnit.NANOSECONDS.toMillis(now - kill);
                rates.add(rate);
                if (reconnected < 0 && allConnected()) {
                    reconnected = at;
                }
                if (back < 0) {
                    recoveryPackets += n;
                }
                calm = rate <= 1.5 * steady ? calm + 1 : 0;
                if (back < 0 && reconnected >= 0 && calm >= 4) {
                    back = Math.max(reconnected, at - 3 * BUCKET_MS);   // the first of four calm buckets
                    opsAtBack = RequestCounter.snapshot();
                }
                if (back >= 0 && at > back + 5_000) {
                    break;
                }
            }
            double peak = rates.stream().mapToDouble(Double::doubleValue).max().orElse(0);
            double mean = back > 0 ? recoveryPackets * 1000.0 / (back + 3 * BUCKET_MS) : 0;
            int expired = 0;
            for (int s = 0; s < o.sessions(); s++) {
                if (sessionId(clients.get(s)) != sessionIds[s]) {
                    expired++;
                }
            }
            int lost = zk ? lostLeases.get() - lostBefore : lostSessionLocks();   // Curator and raw: every lock of a LOST session
            releaseWaited.countDown();
            if (library == Library.RAW) {
                releaseRaw(true);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (granted.get() < o.waiters() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            Result result = new Result(name(), lost, lostSessions.get(), expired, steady, steadyPeak, peak, mean, reconnected, back,
                    granted.get(), o.waiters(), recoveryPackets, RequestCounter.delta(opsAtKill, opsAtBack));
            out.printf(Locale.ROOT, "# %s: %s%n", name(), result);
            releaseAll.countDown();
            if (library == Library.RAW) {
                releaseRaw(false);
            }
            released.await(5, TimeUnit.MINUTES);
            for (Thread t : threads) {
                t.join(10_000);
            }
            clients.forEach(CuratorFramework::close);
            cluster.restartServer(leader);
            leaderOf(cluster);
            Thread.sleep(3_000);                   // the restarted server syncs before the next phase
            return result;
        }

        private CuratorFramework client(int s) {
            CuratorFramework c = CuratorFrameworkFactory.builder()
                    .connectString(cluster.getConnectString())
                    .sessionTimeoutMs(o.sessionMs())
                    .connectionTimeoutMs(15_000)
                    .retryPolicy(new ExponentialBackoffRetry(100, 10, 2_000))
                    .ensembleTracker(false)
                    .build();
            c.getConnectionStateListenable().addListener((client, state) -> {
                if (state == ConnectionState.SUSPENDED) {
                    suspended.incrementAndGet();
                } else if (state == ConnectionState.LOST) {
                    lostSessions.incrementAndGet();
                    synchronized (lostSessionLocks) {
                        lostSessionLocks.add(new int[] {s});
                    }
                }
            });
            c.start();
            return c;
        }

        /** Locks held by sessions told LOST (Curator: every lock of such a session must be taken as lost). */
        private int lostSessionLocks() {
            var sessions = new java.util.HashSet<Integer>();
            synchronized (lostSessionLocks) {
                lostSessionLocks.forEach(a -> sessions.add(a[0]));
            }
            int n = 0;
            for (int j = 0; j < o.locks(); j++) {
                if (sessions.contains(j % o.sessions())) {
                    n++;
                }
            }
            return n;
        }

        private boolean allConnected() {
            for (CuratorFramework c : clients) {
                if (!c.getZookeeperClient().isConnected()) {
                    return false;
                }
            }
            return true;
        }

        private String path(int lock) {
            return root + "/l" + lock;
        }

        /** Session s acquires locks s, s + S, ...; releases the waited ones (j < W) first, the rest at the end. */
        private void hold(int s) throws Exception {
            CuratorFramework c = clients.get(s);
            if (library == Library.RAW) {
                ZooKeeper handle = c.getZookeeperClient().getZooKeeper();
                var left = new AtomicInteger((o.locks() - s + o.sessions() - 1) / o.sessions());
                if (left.get() <= 0) {
                    holding.countDown();
                }
                for (int j = s; j < o.locks(); j += o.sessions()) {
                    handle.create(path(j), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL, (rc, p, ctx, name) -> {
                        if (rc != 0) {
                            out.println("# raw holder " + s + " failed: " + KeeperException.Code.get(rc) + " " + p);
                        } else if (left.decrementAndGet() == 0) {
                            holding.countDown();
                        }
                    }, null);
                }
                return;
            }
            if (zk) {
                var mine = new ArrayList<CompletableFuture<Lease>>();
                for (int j = s; j < o.locks(); j += o.sessions()) {
                    mine.add(new ZkMutex(c, path(j)).acquireAsync(Duration.ofMinutes(10)));
                }
                CompletableFuture.allOf(mine.toArray(CompletableFuture[]::new)).thenRun(() -> {
                    for (var f : mine) {
                        Lease lease = f.join();
                        lease.addListener((l, state) -> {
                            if (state == LeaseState.LOST) {
                                lostLeases.incrementAndGet();
                            }
                        });
                        synchronized (zkLeases) {
                            zkLeases.add(lease);
                        }
                    }
                    holding.countDown();
                    CompletableFuture.runAsync(() -> {
                        awaitQuietly(releaseWaited);
                        int j = s;
                        for (var f : mine) {
                            if (j < o.waiters()) {
                                f.join().close();
                            }
                            j += o.sessions();
                        }
                        awaitQuietly(releaseAll);
                        j = s;
                        for (var f : mine) {
                            if (j >= o.waiters()) {
                                f.join().close();
                            }
                            j += o.sessions();
                        }
                        released.countDown();
                    }, r -> start(r, "storm-release-" + s));
                });
                return;
            }
            start(() -> {
                var mine = new ArrayList<InterProcessMutex>();
                try {
                    for (int j = s; j < o.locks(); j += o.sessions()) {
                        var m = new InterProcessMutex(c, path(j));
                        if (!m.acquire(10, TimeUnit.MINUTES)) {
                            throw new IllegalStateException("holder not granted " + path(j));
                        }
                        mine.add(m);
                    }
                    holding.countDown();
                    releaseWaited.await();
                    int j = s;
                    for (var m : mine) {
                        if (j < o.waiters()) {
                            m.release();
                        }
                        j += o.sessions();
                    }
                    releaseAll.await();
                    j = s;
                    for (var m : mine) {
                        if (j >= o.waiters()) {
                            m.release();
                        }
                        j += o.sessions();
                    }
                } catch (Exception e) {
                    out.println("# Curator holder " + s + " failed: " + e);
                } finally {
                    released.countDown();
                }
            }, "storm-hold-" + s);
        }

        /** The waiter on lock w, from the next session: granted once its holder releases after the recovery. */
        private void await(int w) throws Exception {
            CuratorFramework c = clients.get((w % o.sessions() + 1) % o.sessions());
            if (library == Library.RAW) {
                // its own node in the queue, and one data watch on the holder's node: granted when that goes
                ZooKeeper handle = c.getZookeeperClient().getZooKeeper();
                handle.create(root + "/w" + w, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL,
                        (rc, p, ctx, name) -> { }, null);
                handle.exists(path(w), event -> {
                    if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                        granted.incrementAndGet();
                        handle.delete(root + "/w" + w, -1, (rc, p, ctx) -> { }, null);
                    }
                }, (rc, p, ctx, stat) -> {
                    if (stat == null) {
                        out.println("# raw waiter " + w + " found no holder: " + KeeperException.Code.get(rc));
                    }
                }, null);
                return;
            }
            if (zk) {
                new ZkMutex(c, path(w)).acquireAsync(Duration.ofMinutes(10)).thenAccept(lease -> {
                    granted.incrementAndGet();
                    lease.close();
                });
                return;
            }
            start(() -> {
                var m = new InterProcessMutex(c, path(w));
                try {
                    if (m.acquire(10, TimeUnit.MINUTES)) {
                        granted.incrementAndGet();
                        m.release();
                    }
                } catch (Exception e) {
                    out.println("# Curator waiter " + w + " failed: " + e);
                }
            }, "storm-wait-" + w);
        }

        /** Raw sessions: the holders delete the waited-on nodes ({@code waited}) or the rest; each counts down {@link #released}. */
        private void releaseRaw(boolean waited) throws Exception {
            for (int s = 0; s < o.sessions(); s++) {
                ZooKeeper handle = clients.get(s).getZookeeperClient().getZooKeeper();
                for (int j = s; j < o.locks(); j += o.sessions()) {
                    if (j < o.waiters() == waited) {
                        handle.delete(path(j), -1, (rc, p, ctx) -> { }, null);
                    }
                }
                if (!waited) {
                    handle.sync(root, (rc, p, ctx) -> released.countDown(), null);
                }
            }
        }

        private void start(Runnable r, String name) {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            synchronized (threads) {
                threads.add(t);
            }
            t.start();
        }

        /** Waits until the servers' request rate stops falling: every waiter has queued and listed. */
        private void settle() throws InterruptedException {
            var packets = new Packets();
            packets.sample();
            long last = Long.MAX_VALUE;
            for (int i = 0; i < 60; i++) {
                Thread.sleep(1_000);
                long n = packets.sample();
                if (n >= last / 2 && n < 2L * o.sessions()) {
                    return;
                }
                last = n;
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long sessionId(CuratorFramework c) {
        try {
            return c.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /**
     * Packets received by every server of the ensemble since the last sample: {@link RequestCounter}'s
     * total, which counts where each server's {@code PacketsReceived} does but survives a server
     * changing role (a follower's counters start again from zero under a new bean when it leads).
     */
    private static final class Packets {
        private long last = RequestCounter.packets();

        long sample() {
            long now = RequestCounter.packets();
            long n = now - last;
            last = now;
            return n;
        }
    }

    /** The instance that leads now (its Leader bean), waiting up to 30 s for an election. */
    static InstanceSpec leaderOf(TestingCluster cluster) throws Exception {
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            for (ObjectName name : mbeans.queryNames(new ObjectName("org.apache.ZooKeeperService:name2=Leader,*"), null)) {
                String replica = name.getKeyProperty("name1");
                int id = Integer.parseInt(replica.substring(replica.indexOf('.') + 1));
                for (InstanceSpec spec : cluster.getInstances()) {
                    if (spec.getServerId() == id) {
                        return spec;
                    }
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("no leader elected within 30 s");
    }
}
