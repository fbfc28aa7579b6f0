package io.zklock.benchmarks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.leader.Leadership;
import io.zklock.leader.ZkLeaderElection;
import io.zklock.spring.integration.ZkLockRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/*
 * Overview.
 *
 * Leader election, zklock's ZkLeaderElection against Curator's LeaderLatch and LeaderSelector, on
 * one embedded server in one run (--scenario election). Each trial has two fresh sessions: a
 * leader, and a standby queued behind it with its watch set. Measured, per library:
 *   - failover: the leader's session is closed on the server (a second handle attached to it
 *     closes it, as the server's expiry of a dead process's session does), timed from just before
 *     that close to the standby's grant callback. After a process dies the server first waits out
 *     the session timeout (and up to a tick); what is measured is what comes after it;
 *   - hand-off: the leader steps down (zklock: close the leadership; LeaderLatch: close;
 *     LeaderSelector: takeLeadership returns), timed to the standby's grant callback;
 *   - requests per idle standby per minute: one leader and one standby stay idle; the server's
 *     per-connection packet count of the standby's session over a window shorter than the ping
 *     interval (each session sends a request just before it), scaled to a minute. Also for Spring
 *     Integration's LockRegistryLeaderInitiator over zklock's ZkLockRegistry (its default 500 ms
 *     heartbeat), the polling initiator the issue compares.
 * First each library runs 200 hand-offs that are not counted: the JIT compiles what a running
 * service has compiled (cold, a library's code runs interpreted, and the longer path pays for
 * it: before this warm-up zklock's hand-off median read 0.2 ms above LeaderSelector's, with
 * every class compiled ahead (-Xcomp) 0.4 ms below it). Libraries run their trials in turn,
 * alternating which goes first, so none always meets a warmer machine. Grant callbacks: zklock's future completion, LeaderLatchListener.isLeader,
 * LeaderSelectorListener.takeLeadership.
 */
/** The leader-election scenario; see the Overview at the top of the class. */
final class ElectionBench {
    private static final int SESSION_MS = 60_000;               // pings every 20 s: the idle window stays under that
    private static final String[] LIBRARIES = {"zklock", "LeaderLatch", "LeaderSelector"};

    /** The scenario's sizes; {@code warmups} hand-offs per library run first and are not counted. */
    record Options(int warmups, int failovers, int handoffs, long idleWindowMs) {
        static Options of(boolean quick) {
            return quick ? new Options(0, 1, 1, 300) : new Options(200, 25, 60, 15_000);
        }
    }

    /** One library's figures: failover and hand-off samples (ns), and its idle standby's requests per minute (-1 if not measured). */
    record Result(String library, Samples failover, Samples handoff, double idleRequestsPerMinute) {
    }

    /** One leader-election implementation, behind one shape. */
    private interface Candidate extends AutoCloseable {
        /** A future completed with the nanoTime of the grant callback. */
        CompletableFuture<Long> granted();

        /** Steps down (voluntarily). */
        void stepDown() throws Exception;

        @Override
        void close() throws Exception;
    }

    private ElectionBench() {
    }

    static boolean selected(String... args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--scenario") && args[i + 1].equals("election")) {
                return true;
            }
        }
        return false;
    }

    static Map<String, Result> run(Options options, PrintStream out) throws Exception {
        try (TestingServer server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 3_000, -1), true)) {
            ServerCounters counters = new ServerCounters(server.getPort());
            Map<String, Samples> failover = new LinkedHashMap<>();
            Map<String, Samples> handoff = new LinkedHashMap<>();
            for (String library : LIBRARIES) {
                failover.put(library, new Samples());
                handoff.put(library, new Samples());
            }
            int trial = 0;
            for (int i = 0; i < options.warmups(); i++) {
                for (int k = 0; k < LIBRARIES.length; k++) {
                    trial(server, LIBRARIES[(k + i) % LIBRARIES.length], "/bench/election/w" + trial++, false);
                }
            }
            for (int i = 0; i < Math.max(options.failovers(), options.handoffs()); i++) {
                for (int k = 0; k < LIBRARIES.length; k++) {
                    String library = LIBRARIES[(k + i) % LIBRARIES.length];   // each goes first in turn
                    if (i < options.failovers()) {
                        failover.get(library).add(trial(server, library, "/bench/election/f" + trial++, true));
                    }
                    if (i < options.handoffs()) {
                        handoff.get(library).add(trial(server, library, "/bench/election/h" + trial++, false));
                    }
                }
            }
            Map<String, Result> results = new LinkedHashMap<>();
            for (String library : LIBRARIES) {
                results.put(library, new Result(library, failover.get(library), handoff.get(library),
                        idle(server, counters, library, "/bench/election/idle-" + library, options.idleWindowMs())));
            }
            results.put("LockRegistryLeaderInitiator", new Result("LockRegistryLeaderInitiator", new Samples(), new Samples(),
                    idle(server, counters, "LockRegistryLeaderInitiator", "/bench/election/idle-lrli", options.idleWindowMs())));
            print(results, options, out);
            return results;
        }
    }

    // ---- one trial --------------------------------------------------------------------------

    /** One failover or hand-off: a leader and a queued standby on fresh sessions; returns the nanoseconds to the standby's grant. */
    private static long trial(TestingServer server, String library, String path, boolean failover) throws Exception {
        try (CuratorFramework leaderClient = client(server); CuratorFramework standbyClient = client(server)) {
            Candidate leader = candidate(library, leaderClient, path, "leader");
            leader.granted().get(30, TimeUnit.SECONDS);
            try (Candidate standby = candidate(library, standbyClient, path, "standby")) {
                awaitQueued(standbyClient, path, standby);
                long start = System.nanoTime();
                if (failover) {
                    closeSessionOnServer(leaderClient, server.getConnectString(), () -> { });
                } else {
                    leader.stepDown();
                }
                long granted;
                try {
                    granted = standby.granted().get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new IllegalStateException(library + (failover ? " failover" : " hand-off") + " on " + path
                            + ": the standby was not granted within 30 s; queue " + standbyClient.getChildren().forPath(path), e);
                }
                return granted - start;
            } finally {
                try {
                    leader.close();
                } catch (Exception | Error ignored) {
                    // its session may be gone (failover): nothing to step down from
                }
            }
        }
    }

    /** Waits until the standby's node is in the queue behind the leader's and it had time to set its watch. */
    private static void awaitQueued(CuratorFramework client, String path, Candidate standby) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (client.getChildren().forPath(path).size() < 2) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the standby never queued on " + path);
            }
            Thread.sleep(2);
        }
        Thread.sleep(50);                      // its listing and watch follow its create
        if (standby.granted().isDone()) {
            throw new IllegalStateException("the standby leads beside the leader on " + path);
        }
    }

    /** The server closes {@code client}'s session now: a second handle attaches to it and closes it. */
    private static void closeSessionOnServer(CuratorFramework client, String connect, Runnable justBefore) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connect, SESSION_MS, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        if (!connected.await(20, TimeUnit.SECONDS)) {
            twin.close();
            throw new IllegalStateException("could not attach to the leader's session");
        }
        justBefore.run();
        twin.close();
    }

    // ---- idle standbys ----------------------------------------------------------------------

    private static double idle(TestingServer server, ServerCounters counters, String library, String path, long windowMs)
            throws Exception {
        try (CuratorFramework leaderClient = client(server); CuratorFramework standbyClient = client(server)) {
            AutoCloseable leader;
            AutoCloseable standby;
            if (library.equals("LockRegistryLeaderInitiator")) {
                LockRegistryLeaderInitiator first = new LockRegistryLeaderInitiator(new ZkLockRegistry(leaderClient, path),
                        new DefaultCandidate("leader", "bench"));
                first.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!first.getContext().isLeader() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                LockRegistryLeaderInitiator second = new LockRegistryLeaderInitiator(new ZkLockRegistry(standbyClient, path),
                        new DefaultCandidate("standby", "bench"));
                second.start();
                leader = first::destroy;
                standby = second::destroy;
            } else {
                Candidate first = candidate(library, leaderClient, path, "leader");
                first.granted().get(30, TimeUnit.SECONDS);
                Candidate second = candidate(library, standbyClient, path, "standby");
                awaitQueued(standbyClient, path, second);
                leader = first;
                standby = second;
            }
            try {
                Thread.sleep(Math.min(500, windowMs));   // settle: the standby's first requests are not idle ones
                long session = standbyClient.getZookeeperClient().getZooKeeper().getSessionId();
                standbyClient.checkExists().forPath("/");   // traffic now: no ping within the window
                long before = counters.packetsBySession().getOrDefault(session, 0L);
                Thread.sleep(windowMs);
                long after = counters.packetsBySession().getOrDefault(session, 0L);
                return (after - before) * 60_000.0 / windowMs;
            } finally {
                standby.close();
                leader.close();
            }
        }
    }

    // ---- the libraries ----------------------------------------------------------------------

    private static Candidate candidate(String library, CuratorFramework client, String path, String id) throws Exception {
        return switch (library) {
            case "zklock" -> zklock(client, path, id);
            case "LeaderLatch" -> latch(client, path, id);
            case "LeaderSelector" -> selector(client, path, id);
            default -> throw new IllegalArgumentException(library);
        };
    }

    private static Candidate zklock(CuratorFramework client, String path, String id) {
        ZkLeaderElection election = new ZkLeaderElection(client, path, id);
        CompletableFuture<Long> granted = new CompletableFuture<>();
        CompletableFuture<Leadership> leadership = election.leadershipAsync();
        leadership.thenAccept(l -> granted.complete(System.nanoTime()));
        return new Candidate() {
            @Override
            public CompletableFuture<Long> granted() {
                return granted;
            }

            @Override
            public void stepDown() {
                leadership.join().close();
            }

            @Override
            public void close() {
                election.close();
            }
        };
    }

    private static Candidate latch(CuratorFramework client, String path, String id) throws Exception {
        LeaderLatch latch = new LeaderLatch(client, path, id);
        CompletableFuture<Long> granted = new CompletableFuture<>();
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                granted.complete(System.nanoTime());
            }

            @Override
            public void notLeader() {
            }
        });
        latch.start();
        return new Candidate() {
            @Override
            public CompletableFuture<Long> granted() {
                return granted;
            }

            @Override
            public void stepDown() throws Exception {
                latch.close();
            }

            @Override
            public void close() throws Exception {
                if (latch.getState() == LeaderLatch.State.STARTED) {
                    latch.close();
                }
            }
        };
    }

    private static Candidate selector(CuratorFramework client, String path, String id) {
        CompletableFuture<Long> granted = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework c) throws Exception {
                granted.complete(System.nanoTime());
                release.await();
            }
        });
        selector.setId(id);
        selector.start();
        return new Candidate() {
            @Override
            public CompletableFuture<Long> granted() {
                return granted;
            }

            @Override
            public void stepDown() {
                release.countDown();
            }

            @Override
            public void close() {
                release.countDown();
                selector.close();
            }
        };
    }

    private static CuratorFramework client(TestingServer server) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(SESSION_MS).connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(20, 3, 200))
                .ensembleTracker(false).build();
        client.start();
        if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("could not connect to " + server.getConnectString());
        }
        return client;
    }

    // ---- the table --------------------------------------------------------------------------

    private static void print(Map<String, Result> results, Options options, PrintStream out) {
        out.printf(Locale.ROOT, "%nleader election: %d failovers and %d hand-offs per library after %d uncounted warm-up hand-offs each,"
                + " idle window %d ms (server-counted)%n", options.failovers(), options.handoffs(), options.warmups(), options.idleWindowMs());
        out.println("| library | failover median | failover p99 | hand-off median | hand-off p99 | requests per idle standby per minute |");
        out.println("| --- | --- | --- | --- | --- | --- |");
        List<String> rows = new ArrayList<>();
        for (Result r : results.values()) {
            rows.add(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %.0f |", r.library(), ms(r.failover(), 0.5),
                    ms(r.failover(), 0.99), ms(r.handoff(), 0.5), ms(r.handoff(), 0.99), r.idleRequestsPerMinute()));
        }
        rows.forEach(out::println);
        out.println("failover: from the server's close of the leader's session to the standby's grant callback; after a process"
                + " dies the server first waits out the session timeout. hand-off: from the step-down call to the standby's grant.");
    }

    private static String ms(Samples samples, double q) {
        return samples.size() == 0 ? "-" : String.format(Locale.ROOT, "%.1f ms", samples.quantile(q) / 1e6);
    }
}
