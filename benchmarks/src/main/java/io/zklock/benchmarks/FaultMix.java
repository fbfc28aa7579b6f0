package io.zklock.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.Sessions;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.client.ZKClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault mix: zklock and Curator's recipes, the same seeded fault timeline, one server.
 *
 * <pre>
 * Overview.
 *
 *   5 clients, each its own CuratorFramework through its own FaultProxy (ensembleTracker off),
 *   loop on one lock: timed acquire -> hold with 3 check-and-writes, 1 ms apart (--hold-ms
 *   spreads them over a longer hold) -> release.
 *   A timeline drawn from the seed (the same for both libraries) hits one client at a time:
 *   pause, fault, heal, pause, fault, ... Faults start at the same planned offsets in every
 *   round, so both libraries see the same faults at the same moments.
 *   Rounds alternate: zklock, Curator, zklock, Curator, ... each with fresh clients and a fresh
 *   lock directory.
 *
 * Belief and violations. A holder believes it holds
 *   zklock:  while its lease says HELD;
 *   Curator, the careful view: from acquire's return until release, unless its client's
 *            connection state went SUSPENDED or LOST meanwhile (a careful user stops writing
 *            at SUSPENDED);
 *   Curator, the careless view: from acquire's return until release, whatever the connection
 *            did.
 *   A zklock holder makes a check-and-write only while it believes, on a resource fenced for
 *   its exclusive holders (a token below the highest admitted is refused and ends the hold,
 *   counted as fenced, not completed). Curator gives no token; its holders make all their
 *   writes, as a careless user would, and each write is judged in both views: in the careful
 *   view only a write made while the writer believes counts, against the others that believe;
 *   in the careless view every write counts, against every other holder between acquire's
 *   return and release. At a judged write, more conflicting holders than the lock admits (one
 *   writer; readers share; the semaphore's permits) is a violation of that view.
 *   An operation counts as completed when all its writes were made while its holder believed
 *   (for Curator, in the careful view).
 *
 * Figures per fault kind: operations completed from that fault's start to the next fault's
 *   start; acquires timed out in that window; time from the fault's heal to the faulted
 *   client's next grant and to any client's next grant (median, max); violations.
 * </pre>
 *
 * A 3-server ensemble by default ({@code --servers 1}: one embedded server, where a server or
 * leader kill is a restart). A process pause (SHORT_PAUSE, LONG_PAUSE) freezes the client as a
 * whole, as near as one JVM can: its proxy holds every frame both ways and its worker does
 * nothing until the pause ends (the library's own threads and timers run on, as the monotonic
 * clock of a paused process would).
 */
final class FaultMix {
    private static final Logger LOG = LoggerFactory.getLogger(FaultMix.class);
    private static final int HOLD_WRITES = 3;
    private static final int WAITING = 1;
    private static final int HOLDING = 2;

    /** The fault kinds of the timeline. */
    enum Kind {
        SHORT_CUT, LONG_CUT, FREEZE, DEAFEN, LOST_CREATE_REPLY, LOST_DELETE_REPLY, EXPIRE_HOLDER,
        EXPIRE_WAITER, SERVER_RESTART,
        /** A process pause shorter than the session timeout: the client's connection frozen and its worker stopped. */
        SHORT_PAUSE,
        /** A process pause past the session timeout. */
        LONG_PAUSE,
        /** One server of the ensemble killed and restarted 1 s later (on one server: a restart). */
        SERVER_KILL,
        /** The ensemble's leader killed and restarted 1 s later (on one server: a restart). */
        LEADER_KILL
    }

    /**
     * Options of the fault mix.
     *
     * @param seconds the length of one round
     * @param seed the timeline's seed
     * @param recipe mutex, write (write lock with readers), semaphore, multi
     * @param rounds measured rounds per library
     * @param clients clients (sessions)
     * @param sessionTimeoutMs the clients' session timeout
     * @param acquireTimeoutMs the timed acquire's timeout
     * @param kinds the fault kinds the timeline draws from (empty: no fault, a baseline)
     * @param only null for both libraries; "zklock" or "curator" for one alone (to study it, no ratio)
     * @param warmupSeconds an unmeasured round without faults per library and recipe, first (0: none)
     * @param servers 1 (one embedded server) or 3 (an ensemble)
     * @param together both libraries' rounds at once (each its own clients, proxies and lock), a server fault
     *     hitting both: what the machine's load does falls on both alike
     * @param holdMs how long a holder holds: its writes are spread over it, one every holdMs / 3 ms
     *        (at least 1 ms apart)
     * @param clientSocket the ZooKeeper clients' socket, "nio" (ZooKeeper's default) or "netty": the
     *        NIO socket reports a dropped connection 100 ms after it sees it, the Netty one at once
     */
    record Options(int seconds, long seed, List<String> recipes, int rounds, int clients, int sessionTimeoutMs,
            int acquireTimeoutMs, List<Kind> kinds, String only, int warmupSeconds, int servers, boolean together,
            int holdMs, String clientSocket) {
        static final String USAGE = "fault mix: --scenario faults [--seconds 60] [--seed 21] "
                + "[--recipe mutex,write,semaphore,multi] [--rounds 2] [--clients 5] [--session-timeout-ms 4000] "
                + "[--acquire-timeout-ms 3000] [--kinds all|none|KIND,KIND...] [--only zklock|curator] [--warmup 5] "
                + "[--servers 3|1] [--together] [--hold-ms 3] [--client-socket nio|netty]";
    }

    /**
     * One planned fault: where in the round it starts, its kind, the client it aims at and the
     * role that client must be in when it is hit (1 waiting, 2 holding, 0 any): the injector
     * waits up to a second for the first client from {@code client} on in that role, so that
     * both libraries see each fault land on the same role, not on whatever phase of its loop the
     * client happens to be in.
     */
    record Planned(long atMs, Kind kind, int client, int role) {
    }

    /** What happened to one planned fault in one round. */
    static final class Window {
        final Planned planned;
        volatile int client = -1;          // the client hit (-1: skipped, e.g. no holder to expire)
        volatile long startNanos;
        volatile long healNanos;
        volatile long endNanos;
        int ops;
        int timedOut;
        int violations;
        int carelessViolations;
        long faultedGrantMs = -1;
        long anyGrantMs = -1;

        Window(Planned planned) {
            this.planned = planned;
        }
    }

    /**
     * One library's round. {@code violations} is zklock's, or Curator's in the careful view;
     * {@code carelessViolations} Curator's in the careless view (zklock's holders stop at the
     * first write their lease no longer says HELD: 0 for them).
     */
    record Round(String library, List<Window> windows, int ops, int timedOut, int failed, int violations,
            int fenced, String example, int readOps, int carelessViolations) {
    }

    private FaultMix() {
    }

    /** The timeline of one round, drawn from {@code seed}: the kinds in turn, each once per turn, in a seeded order. */
    static List<Planned> timeline(long seed, int seconds, int clients, int sessionTimeoutMs, List<Kind> from) {
        Random random = new Random(seed);
        List<Planned> plan = new ArrayList<>();
        long at = 1_500;
        List<Kind> bag = new ArrayList<>();
        while (!from.isEmpty()) {
            if (bag.isEmpty()) {
                bag.addAll(from);                  // every kind once, in a seeded order, then again
                Collections.shuffle(bag, random);
            }
            Kind kind = bag.remove(bag.size() - 1);
            int client = random.nextInt(clients);
            long pause = 1_500 + random.nextInt(1_500);
            if (at + nominalMs(kind, sessionTimeoutMs) + 1_000 > seconds * 1000L) {
                return plan;
            }
            int role = switch (kind) {
                case SHORT_CUT, LONG_CUT, FREEZE, DEAFEN, SHORT_PAUSE, LONG_PAUSE ->
                        random.nextBoolean() ? HOLDING : WAITING;
                case EXPIRE_HOLDER -> HOLDING;
                case EXPIRE_WAITER -> WAITING;
                default -> 0;
            };
            plan.add(new Planned(at, kind, client, role));
            at += nominalMs(kind, sessionTimeoutMs) + pause;
        }
        return plan;
    }

    /** How long a fault lasts before its heal (or at most, for the lost replies). */
    static long nominalMs(Kind kind, int sessionTimeoutMs) {
        return switch (kind) {
            case SHORT_CUT, SHORT_PAUSE -> 1_000;
            case LONG_CUT, LONG_PAUSE -> sessionTimeoutMs + 2_000L;
            case FREEZE, DEAFEN -> 3_000;
            case LOST_CREATE_REPLY, LOST_DELETE_REPLY -> 2_000;
            case EXPIRE_HOLDER, EXPIRE_WAITER -> 200;
            case SERVER_RESTART, SERVER_KILL, LEADER_KILL -> 1_000;
        };
    }

    static Options parse(String... args) {
        int seconds = 60;
        long seed = 21;
        List<String> recipes = List.of("mutex", "write", "semaphore", "multi");
        int rounds = 2;
        int clients = 5;
        int sessionTimeout = 4_000;
        int acquireTimeout = 3_000;
        List<Kind> kinds = List.of(Kind.values());
        String only = null;
        int warmup = 5;
        int servers = 3;
        boolean together = false;
        int holdMs = HOLD_WRITES;
        String clientSocket = "nio";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "", "--quick" -> { }
                case "--scenario" -> i++;
                case "--seconds" -> seconds = positive(args, i++);
                case "--seed" -> seed = Long.parseLong(value(args, i++));
                case "--recipe" -> {
                    recipes = List.of(value(args, i++).split(","));
                    for (String r : recipes) {
                        if (!List.of("mutex", "write", "semaphore", "multi").contains(r)) {
                            throw new IllegalArgumentException("--recipe '" + r + "': mutex, write, semaphore or multi; "
                                    + Options.USAGE);
                        }
                    }
                }
                case "--rounds" -> rounds = positive(args, i++);
                case "--clients" -> clients = positive(args, i++);
                case "--together" -> together = true;
                case "--servers" -> {
                    servers = positive(args, i++);
                    if (servers != 1 && servers != 3) {
                        throw new IllegalArgumentException("--servers " + servers + ": 1 or 3");
                    }
                }
                case "--session-timeout-ms" -> sessionTimeout = positive(args, i++);
                case "--acquire-timeout-ms" -> acquireTimeout = positive(args, i++);
                case "--hold-ms" -> holdMs = positive(args, i++);
                case "--warmup" -> {
                    String text = value(args, i++);
                    try {
                        warmup = Integer.parseInt(text);
                    } catch (NumberFormatException e) {
                        warmup = -1;
                    }
                    if (warmup < 0) {
                        throw new IllegalArgumentException("--warmup '" + text + "': seconds, 0 or more");
                    }
                }
                case "--client-socket" -> {
                    clientSocket = value(args, i++).toLowerCase(Locale.ROOT);
                    if (!clientSocket.equals("nio") && !clientSocket.equals("netty")) {
                        throw new IllegalArgumentException("--client-socket '" + clientSocket + "': nio or netty");
                    }
                }
                case "--only" -> {
                    only = value(args, i++).toLowerCase(Locale.ROOT);
                    if (!only.equals("zklock") && !only.equals("curator")) {
                        throw new IllegalArgumentException("--only '" + only + "': zklock or curator");
                    }
                }
                case "--kinds" -> {
                    String text = value(args, i++);
                    if (text.equals("none")) {
                        kinds = List.of();
                    } else if (!text.equals("all")) {
                        List<Kind> chosen = new ArrayList<>();
                        for (String k : text.split(",")) {
                            try {
                                chosen.add(Kind.valueOf(k.trim().toUpperCase(Locale.ROOT)));
                            } catch (IllegalArgumentException e) {
                                throw new IllegalArgumentException("--kinds '" + k + "': one of "
                                        + List.of(Kind.values()) + ", all or none", e);
                            }
                        }
                        kinds = List.copyOf(chosen);
                    }
                }
                default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; " + Options.USAGE);
            }
        }
        if (clients < 2) {
            throw new IllegalArgumentException("--clients " + clients + ": at least 2 (a holder and a waiter)");
        }
        return new Options(seconds, seed, recipes, rounds, clients, sessionTimeout, acquireTimeout, kinds, only, warmup, servers,
                together && only == null, holdMs, clientSocket);
    }

    /** The ZooKeeper client's configuration: its socket as {@code --client-socket} chose. */
    static ZKClientConfig clientConfig(Options options) {
        ZKClientConfig config = new ZKClientConfig();
        if (options.clientSocket().equals("netty")) {
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        }
        return config;
    }

    private static String value(String[] args, int i) {
        if (i + 1 == args.length) {
            throw new IllegalArgumentException(args[i] + " needs a value; " + Options.USAGE);
        }
        return args[i + 1];
    }

    private static int positive(String[] args, int i) {
        String text = value(args, i);
        int v;
        try {
            v = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            v = 0;
        }
        if (v < 1) {
            throw new IllegalArgumentException(args[i] + " '" + text + "' is not a positive number");
        }
        return v;
    }

    /** Runs every selected recipe, alternating libraries round by round, and prints the tables. */
    static Map<String, List<Round>> run(Options options, PrintStream out) throws Exception {
        Map<String, List<Round>> results = new java.util.LinkedHashMap<>();
        List<Planned> plan = timeline(options.seed(), options.seconds(), options.clients(), options.sessionTimeoutMs(),
                options.kinds());
        try (var server = new Servers(options.servers())) {
            for (String recipe : options.recipes()) {
                List<Round> rounds = new ArrayList<>();
                if (options.warmupSeconds() > 0) {
                    for (boolean zk : new boolean[] {true, false}) {
                        if (options.only() == null || zk == options.only().equals("zklock")) {
                            new RoundRun(options, server, recipe, zk, List.of(), -1, options.warmupSeconds()).run();
                        }
                    }
                }
                for (int r = 0; options.together() && r < options.rounds(); r++) {
                    // both libraries at once, on the same ensemble, faults at the same moments: the
                    // machine's load (other processes) falls on both alike
                    server.newRound();
                    RoundRun z = new RoundRun(options, server, recipe, true, plan, r, options.seconds());
                    RoundRun c = new RoundRun(options, server, recipe, false, plan, r, options.seconds());
                    var other = CompletableFuture.supplyAsync(() -> {
                        try {
                            return c.run();
                        } catch (Exception e) {
                            throw new CompletionException(e);
                        }
                    });
                    Round zr = z.run();
                    Round cr = other.join();
                    for (Round last : List.of(zr, cr)) {
                        rounds.add(last);
                        out.printf(Locale.ROOT, "# faults %s %s round %d (together): %d ops, %d timed out, %d violations%s%n",
                                recipe, last.library(), r + 1, last.ops(), last.timedOut(), last.violations(), careless(last));
                    }
                }
                for (int r = 0; !options.together() && r < 2 * options.rounds(); r++) {
                    boolean zk = (r % 2 == 0) != (r / 2 % 2 == 1);     // zklock first in even pairs, Curator in odd
                    if (options.only() != null && zk != options.only().equals("zklock")) {
                        continue;
                    }
                    server.newRound();
                    rounds.add(new RoundRun(options, server, recipe, zk, plan, r / 2, options.seconds()).run());
                    Round last = rounds.get(rounds.size() - 1);
                    out.printf(Locale.ROOT, "# faults %s %s round %d: %d ops, %d timed out, %d violations%s%n",
                            recipe, last.library(), r / 2 + 1, last.ops(), last.timedOut(), last.violations(), careless(last));
                }
                results.put(recipe, rounds);
            }
        }
        print(options, plan, results, out);
        return results;
    }

    /** One embedded server, or a 3-server ensemble, with the kills the faults need. */
    static final class Servers implements AutoCloseable {
        private final TestingServer single;
        private final TestingCluster cluster;
        /** Server faults of the current round by planned offset: done once when two rounds run together. */
        private final Map<Long, CompletableFuture<Void>> bounces = new ConcurrentHashMap<>();

        void newRound() {
            bounces.clear();
        }

        /** {@link #bounce} once for the fault planned at {@code atMs}, however many rounds ask for it. */
        void bounceOnce(long atMs, boolean leader, int index, long downMs) throws Exception {
            var mine = new CompletableFuture<Void>();
            var done = bounces.putIfAbsent(atMs, mine);
            if (done != null) {
                done.join();
                return;
            }
            try {
                bounce(leader, index, downMs);
                mine.complete(null);
            } catch (Exception | Error e) {
                mine.completeExceptionally(e);
                throw e;
            }
        }

        Servers(int count) throws Exception {
            if (count == 1) {
                single = new TestingServer(true);
                cluster = null;
            } else {
                single = null;
                cluster = new TestingCluster(count);
                cluster.start();
            }
        }

        String getConnectString() {
            return single != null ? single.getConnectString() : cluster.getConnectString();
        }

        /** Kills the ensemble's leader ({@code leader}) or one server drawn by {@code index}, and restarts it after {@code downMs}. */
        void bounce(boolean leader, int index, long downMs) throws Exception {
            if (single != null) {
                single.restart();
                return;
            }
            InstanceSpec victim = leader ? leaderOf(cluster) : List.copyOf(cluster.getInstances()).get(index % 3);
            LOG.debug("killing server {}{}", victim.getServerId(), leader ? " (the leader)" : "");
            cluster.killServer(victim);
            Thread.sleep(downMs);
            cluster.restartServer(victim);
        }

        /** The server leading the ensemble now, read from the servers' JMX beans. */
        private static InstanceSpec leaderOf(TestingCluster cluster) throws Exception {
            MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() - deadline < 0) {
                for (ObjectName name : mbeans.queryNames(new ObjectName("org.apache.ZooKeeperService:name2=Leader,*"), null)) {
                    String replica = name.getKeyProperty("name1");            // "replica.<id>"
                    int id = Integer.parseInt(replica.substring(replica.indexOf('.') + 1));
                    for (InstanceSpec spec : cluster.getInstances()) {
                        if (spec.getServerId() == id) {
                            return spec;
                        }
                    }
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException("no leader elected within 10 s");
        }

        @Override
        public void close() throws Exception {
            if (single != null) {
                single.close();
            } else {
                cluster.close();
            }
        }
    }

    // ---- one round -----------------------------------------------------------------------------

    /** A holder's belief, registered on the board while it holds. */
    private record Holding(int client, boolean exclusive, BooleanSupplier believes, long token) {
    }

    /** The lock under test for one client: timed acquire returning a holding's release, or null on timeout. */
    private interface Locker {
        Held tryAcquire(Duration timeout) throws Exception;
    }

    @FunctionalInterface
    private interface Release {
        void release() throws Exception;
    }

    private interface Held extends Release {
        boolean believes();

        /** The fencing token the holder writes with; -1 when the library gives none (Curator). */
        default long token() {
            return -1;
        }

        void release() throws Exception;
    }

    private static final class RoundRun {
        private final Options options;
        private final Servers server;
        private final String recipe;
        private final boolean zk;
        private final List<Window> windows = new ArrayList<>();
        private final List<long[]> grants = Collections.synchronizedList(new ArrayList<>());   // {nanos, client}
        private final List<Long> completions = Collections.synchronizedList(new ArrayList<>());
        private final List<Long> timeouts = Collections.synchronizedList(new ArrayList<>());
        private final List<Long> violationTimes = Collections.synchronizedList(new ArrayList<>());
        private final List<Long> readCompletions = Collections.synchronizedList(new ArrayList<>());
        private final List<Long> carelessTimes = Collections.synchronizedList(new ArrayList<>());
        private final List<String> examples = new CopyOnWriteArrayList<>();
        private final Set<Holding> holdings = new HashSet<>();      // guarded by itself
        private final AtomicInteger failed = new AtomicInteger();
        private final AtomicInteger fenced = new AtomicInteger();
        private long highestToken = Long.MIN_VALUE;                   // guarded by holdings
        private final int capacity;
        private final String base;
        private final List<CuratorFramework> clients = new ArrayList<>();
        private final List<FaultProxy> proxies = new ArrayList<>();
        private final List<AtomicLong> trouble = new ArrayList<>();      // per client: SUSPENDED/LOST count
        private final java.util.concurrent.atomic.AtomicIntegerArray state;   // per client: 0 idle, 1 waiting, 2 holding
        private final java.util.concurrent.atomic.AtomicLongArray waitingSince;
        private final java.util.concurrent.atomic.AtomicLongArray pausedUntil;   // per client: its process pause's end
        private volatile boolean running = true;

        private final int seconds;

        RoundRun(Options options, Servers server, String recipe, boolean zk, List<Planned> plan, int round,
                int seconds) {
            this.options = options;
            this.seconds = seconds;
            this.server = server;
            this.recipe = recipe;
            this.zk = zk;
            this.capacity = recipe.equals("semaphore") ? 2 : 1;
            this.base = "/faultmix/" + recipe + "/" + (zk ? "zklock" : "curator") + "-" + (round < 0 ? "warmup" : round);
            this.state = new java.util.concurrent.atomic.AtomicIntegerArray(options.clients());
            this.waitingSince = new java.util.concurrent.atomic.AtomicLongArray(options.clients());
            this.pausedUntil = new java.util.concurrent.atomic.AtomicLongArray(options.clients());
            plan.forEach(p -> windows.add(new Window(p)));
        }

        Round run() throws Exception {
            List<Thread> workers = new ArrayList<>();
            try {
                for (int i = 0; i < options.clients(); i++) {
                    FaultProxy proxy = FaultProxy.to(server.getConnectString());
                    proxies.add(proxy);
                    CuratorFramework client = CuratorFrameworkFactory.builder()
                            .zkClientConfig(clientConfig(options))
                            .connectString(proxy.connectString())
                            .ensembleTracker(false)
                            .sessionTimeoutMs(options.sessionTimeoutMs())
                            .connectionTimeoutMs(options.sessionTimeoutMs() / 2)
                            .retryPolicy(new ExponentialBackoffRetry(50, 4, 500))
                            .build();
                    AtomicLong t = new AtomicLong();
                    trouble.add(t);
                    client.getConnectionStateListenable().addListener((c, s) -> {
                        if (s == ConnectionState.SUSPENDED || s == ConnectionState.LOST) {
                            t.incrementAndGet();
                        }
                    });
                    client.start();
                    if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("client " + i + " did not connect");
                    }
                    clients.add(client);
                }
                long start = System.nanoTime();
                for (int i = 0; i < options.clients(); i++) {
                    int index = i;
                    Locker locker = locker(index);
                    Thread w = new Thread(() -> work(index, locker), "faultmix-" + (zk ? "zklock" : "curator") + "-c" + i);
                    w.setDaemon(true);
                    w.start();
                    workers.add(w);
                }
                for (Window w : windows) {
                    sleepUntil(start + TimeUnit.MILLISECONDS.toNanos(w.planned.atMs()));
                    inject(w);
                }
                sleepUntil(start + TimeUnit.SECONDS.toNanos(seconds));
                long end = System.nanoTime();
                running = false;
                for (Thread w : workers) {
                    w.join(options.acquireTimeoutMs() + 5_000L);
                }
                return judge(start, end);
            } finally {
                running = false;
                for (FaultProxy p : proxies) {
                    p.heal();
                }
                for (CuratorFramework c : clients) {
                    c.close();
                }
                for (FaultProxy p : proxies) {
                    p.close();
                }
            }
        }

        private static void sleepUntil(long nanos) throws InterruptedException {
            long left = nanos - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.sleep(left);
            }
        }

        // ---- the workers ----

        private Locker locker(int i) {
            CuratorFramework c = clients.get(i);
            String path = base + "/lock";
            boolean reader = recipe.equals("write") && i < 2;     // clients 0 and 1 read, the rest write
            if (zk) {
                DistributedLock lock = switch (recipe) {
                    case "mutex" -> new ZkMutex(c, path);
                    case "write" -> reader ? new ZkReadWriteLock(c, path).readLock() : new ZkReadWriteLock(c, path).writeLock();
                    case "semaphore" -> new ZkSemaphore(c, path, capacity);
                    default -> new ZkMultiLock(List.of(new ZkMutex(c, base + "/m1"), new ZkMutex(c, base + "/m2"),
                            new ZkMutex(c, base + "/m3")));
                };
                return timeout -> {
                    Optional<Lease> lease = lock.tryAcquire(timeout);
                    if (lease.isEmpty()) {
                        return null;
                    }
                    Lease l = lease.get();
                    return new Held() {
                        @Override
                        public boolean believes() {
                            return l.state() == LeaseState.HELD;
                        }

                        @Override
                        public long token() {
                            return l.fencingToken();
                        }

                        @Override
                        public void release() {
                            l.close();
                        }
                    };
                };
            }
            AtomicLong t = trouble.get(i);
            if (recipe.equals("semaphore")) {
                var semaphore = new InterProcessSemaphoreV2(c, path, capacity);
                return timeout -> {
                    long before = t.get();
                    var lease = semaphore.acquire(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    if (lease == null) {
                        return null;
                    }
                    return curatorHeld(t, before, () -> semaphore.returnLease(lease));
                };
            }
            InterProcessLock lock = switch (recipe) {
                case "mutex" -> new InterProcessMutex(c, path);
                case "write" -> reader ? new InterProcessReadWriteLock(c, path).readLock()
                        : new InterProcessReadWriteLock(c, path).writeLock();
                default -> new InterProcessMultiLock(List.of(new InterProcessMutex(c, base + "/m1"),
                        new InterProcessMutex(c, base + "/m2"), new InterProcessMutex(c, base + "/m3")));
            };
            return timeout -> {
                long before = t.get();
                if (!lock.acquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    return null;
                }
                return curatorHeld(t, before, lock::release);
            };
        }

        /** Curator's holder believes from acquire's return until release, unless SUSPENDED or LOST came between. */
        private static Held curatorHeld(AtomicLong trouble, long before, Release release) {
            return new Held() {
                @Override
                public boolean believes() {
                    return trouble.get() == before;
                }

                @Override
                public void release() throws Exception {
                    release.release();
                }
            };
        }

        private void work(int i, Locker locker) {
            boolean exclusive = !(recipe.equals("write") && i < 2);
            Duration timeout = Duration.ofMillis(options.acquireTimeoutMs());
            while (running) {
                Held held;
                awaitPause(i);
                waitingSince.set(i, System.nanoTime());
                state.set(i, 1);
                try {
                    held = locker.tryAcquire(timeout);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    state.set(i, 0);
                    failed.incrementAndGet();
                    LOG.debug("c{} acquire failed: {}", i, e.toString());
                    pause(20);
                    continue;
                }
                awaitPause(i);         // a paused process handles its acquire's outcome when it runs again
                if (held == null) {
                    LOG.debug("c{} timed out", i);
                    state.set(i, 0);
                    timeouts.add(System.nanoTime());
                    continue;
                }
                state.set(i, 2);
                LOG.debug("c{} granted", i);
                grants.add(new long[] {System.nanoTime(), i});
                Holding holding = new Holding(i, exclusive, held::believes, held.token());
                synchronized (holdings) {
                    holdings.add(holding);
                }
                boolean complete = true;
                for (int k = 0; k < HOLD_WRITES && (complete || !zk); k++) {   // Curator's holders write on: the careless view
                    pause(Math.max(1, options.holdMs() / HOLD_WRITES));
                    awaitPause(i);
                    complete &= checkAndWrite(holding);
                }
                awaitPause(i);
                synchronized (holdings) {
                    holdings.remove(holding);
                }
                state.set(i, 0);
                try {
                    held.release();
                } catch (Exception e) {
                    LOG.debug("c{} release failed: {}", i, e.toString());
                }
                LOG.debug("c{} released{}", i, complete ? "" : " (stopped writing: no longer believed it held)");
                if (complete) {
                    long now = System.nanoTime();
                    completions.add(now);
                    if (!exclusive) {
                        readCompletions.add(now);
                    }
                }
            }
        }

        /** While client {@code i}'s process is paused (a PAUSE fault), its worker does nothing. */
        private void awaitPause(int i) {
            long left = pausedUntil.get(i) - System.nanoTime();
            if (left > 0) {
                pause(TimeUnit.NANOSECONDS.toMillis(left) + 1);
            }
        }

        /**
         * A write by {@code h}: judged in the careless view against every other holder (Curator
         * only), and, if {@code h} believes it holds, in the careful view against every other
         * believer at that moment; false if it does not believe, or its token was refused.
         */
        private boolean checkAndWrite(Holding h) {
            synchronized (holdings) {
                if (!zk && overCapacity(h, o -> true)) {
                    carelessTimes.add(System.nanoTime());
                }
                if (!h.believes().getAsBoolean()) {
                    return false;
                }
                // the resource is fenced for exclusive holders that carry a token (zklock's: a czxid,
                // ordered across directories): a write with a token below the highest admitted is refused
                if (h.exclusive() && h.token() >= 0 && !recipe.equals("semaphore")) {
                    if (h.token() < highestToken) {
                        fenced.incrementAndGet();
                        return false;
                    }
                    highestToken = h.token();
                }
                if (overCapacity(h, o -> o.believes().getAsBoolean())) {
                    violationTimes.add(System.nanoTime());
                    if (examples.size() < 3) {
                        examples.add("c" + h.client() + " wrote while other holder(s) believed they held");
                    }
                }
                return true;
            }
        }

        /** Whether {@code h} and the other holders that {@code count} are more conflicting holders than the lock admits. */
        private boolean overCapacity(Holding h, Predicate<Holding> count) {
            int others = 0;
            int conflicting = 0;
            for (Holding o : holdings) {
                if (o != h && count.test(o)) {
                    others++;
                    if (o.exclusive() || h.exclusive()) {
                        conflicting++;
                    }
                }
            }
            return recipe.equals("semaphore") ? others + 1 > capacity : conflicting > 0;
        }

        private static void pause(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        // ---- the faults ----

        private void inject(Window w) throws Exception {
            Planned p = w.planned;
            int target = p.role() == 0 ? p.client() : find(p.client(), p.role());
            for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1); target < 0 && System.nanoTime() < until; ) {
                Thread.sleep(1);
                target = find(p.client(), p.role());
            }
            if (target < 0 && p.kind() != Kind.EXPIRE_HOLDER && p.kind() != Kind.EXPIRE_WAITER) {
                target = p.client();            // nobody in that role for a second: hit the drawn client anyway
            }
            w.startNanos = System.nanoTime();
            LOG.debug("fault {} on c{}", p.kind(), target);
            if (target < 0) {
                w.healNanos = w.startNanos;
                return;
            }
            w.client = target;
            FaultProxy proxy = proxies.get(target);
            long nominal = nominalMs(p.kind(), options.sessionTimeoutMs());
            String lockBase = base + "/";
            try {
                switch (p.kind()) {
                    case SHORT_CUT, LONG_CUT -> {
                        proxy.cut();
                        Thread.sleep(nominal);
                    }
                    case FREEZE -> {
                        proxy.freeze();
                        Thread.sleep(nominal);
                    }
                    case DEAFEN -> {
                        proxy.deafen();
                        Thread.sleep(nominal);
                    }
                    case LOST_CREATE_REPLY, LOST_DELETE_REPLY -> {
                        int before = proxy.repliesDropped();
                        // a create is create2 (Curator, zklock's plain create) or multi (zklock's
                        // transaction: its first op is on the lock's directory); a delete is delete
                        java.util.function.IntPredicate ops = p.kind() == Kind.LOST_CREATE_REPLY
                                ? op -> op == OpCode.create2 || op == OpCode.multi : op -> op == OpCode.delete;
                        proxy.dropReplyTo(ops, path -> path != null && path.startsWith(lockBase));
                        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(nominal);
                        while (proxy.repliesDropped() == before && System.nanoTime() < until) {
                            Thread.sleep(5);
                        }
                        proxy.dropReplyTo(OpCode.create2, path -> false);      // disarms
                        if (proxy.repliesDropped() == before) {
                            w.client = -1;      // nothing to drop: no fault happened
                        }
                    }
                    case EXPIRE_HOLDER, EXPIRE_WAITER -> {
                        try {
                            Sessions.expire(clients.get(target), server.getConnectString());
                        } catch (IllegalStateException e) {
                            w.client = -1;      // its session was ending already (an earlier fault): not injected
                            LOG.warn("{} on c{} not injected: {}", p.kind(), target, e.getMessage());
                        }
                    }
                    case SERVER_RESTART -> {
                        w.client = -2;          // every client
                        server.bounceOnce(p.atMs(), false, 0, 0);
                    }
                    case SERVER_KILL, LEADER_KILL -> {
                        w.client = -2;
                        server.bounceOnce(p.atMs(), p.kind() == Kind.LEADER_KILL, p.client(), nominal);
                    }
                    case SHORT_PAUSE, LONG_PAUSE -> {
                        pausedUntil.set(target, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(nominal));
                        proxy.freeze();
                        Thread.sleep(nominal);
                    }
                }
            } finally {
                proxy.heal();
                w.healNanos = System.nanoTime();
                LOG.debug("healed {} on c{}", p.kind(), target);
            }
        }

        /**
         * The first client from {@code from} on (round robin) in {@code wanted} state, or -1. A
         * waiter counts once it has waited 20 ms, so that its node is surely queued with either
         * library (a fault before the create reaches the server would stall nobody).
         */
        private int find(int from, int wanted) {
            long queuedBefore = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(20);
            for (int k = 0; k < state.length(); k++) {
                int i = (from + k) % state.length();
                if (state.get(i) == wanted && (wanted != WAITING || waitingSince.get(i) - queuedBefore < 0)) {
                    return i;
                }
            }
            return -1;
        }

        // ---- the figures ----

        private Round judge(long start, long end) {
            for (int k = 0; k < windows.size(); k++) {
                Window w = windows.get(k);
                w.endNanos = k + 1 < windows.size() ? windows.get(k + 1).startNanos : end;
                w.ops = count(completions, w.startNanos, w.endNanos);
                w.timedOut = count(timeouts, w.startNanos, w.endNanos);
                w.violations = count(violationTimes, w.startNanos, w.endNanos);
                w.carelessViolations = count(carelessTimes, w.startNanos, w.endNanos);
                long faulted = Long.MAX_VALUE;
                long any = Long.MAX_VALUE;
                synchronized (grants) {
                    for (long[] g : grants) {
                        if (g[0] >= w.healNanos) {
                            any = Math.min(any, g[0]);
                            if (g[1] == w.client || w.client == -2) {
                                faulted = Math.min(faulted, g[0]);
                            }
                        }
                    }
                }
                w.anyGrantMs = any == Long.MAX_VALUE ? -1 : TimeUnit.NANOSECONDS.toMillis(any - w.healNanos);
                w.faultedGrantMs = faulted == Long.MAX_VALUE ? -1 : TimeUnit.NANOSECONDS.toMillis(faulted - w.healNanos);
            }
            int ops = count(completions, start, end);
            return new Round(zk ? "zklock" : "Curator", windows, ops, count(timeouts, start, end), failed.get(),
                    count(violationTimes, start, end), fenced.get(), examples.isEmpty() ? "" : examples.get(0),
                    count(readCompletions, start, end), count(carelessTimes, start, end));
        }

        private static int count(List<Long> times, long from, long to) {
            synchronized (times) {
                return (int) times.stream().filter(t -> t >= from && t < to).count();
            }
        }
    }

    // ---- printing ----

    private static void print(Options options, List<Planned> plan, Map<String, List<Round>> results, PrintStream out) {
        out.println();
        out.printf(Locale.ROOT, "Fault mix: %d clients, each through its own proxy; session timeout %d ms; acquire "
                        + "timeout %d ms; holds of %d ms (%d writes); seed %d; %d faults in each %d s round; "
                        + "%d round(s) per library, %s; %s; the ZooKeeper clients' %s socket.%n",
                options.clients(), options.sessionTimeoutMs(), options.acquireTimeoutMs(),
                HOLD_WRITES * Math.max(1, options.holdMs() / HOLD_WRITES), HOLD_WRITES, options.seed(), plan.size(),
                options.seconds(), options.rounds(), options.together() ? "both libraries at once" : "alternating",
                options.servers() == 1
                        ? "one embedded server (a kill or leader kill is a restart)" : "a " + options.servers() + "-server ensemble",
                options.clientSocket().equals("netty") ? "Netty" : "NIO");
        Map<Kind, Integer> planned = new EnumMap<>(Kind.class);
        plan.forEach(p -> planned.merge(p.kind(), 1, Integer::sum));
        out.println("Timeline per round: " + planned);
        out.println();
        out.println("Violations: zklock's (a write while more conflicting holders' leases said HELD than the lock admits), "
                + "Curator's careful view (holders stop at SUSPENDED or LOST) and careless view (acquire's return until release).");
        out.println();
        out.println("| recipe | library | ops | of which reads | timed out | failed | violations | careless violations "
                + "| stale writes fenced | ratio (ops zklock / Curator) | ratio, writes / reads |");
        out.println("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        for (var e : results.entrySet()) {
            int[] ops = new int[2];
            int[] reads = new int[2];
            for (Round r : e.getValue()) {
                ops[r.library().equals("zklock") ? 0 : 1] += r.ops();
                reads[r.library().equals("zklock") ? 0 : 1] += r.readOps();
            }
            for (String lib : List.of("zklock", "Curator")) {
                var rs = e.getValue().stream().filter(r -> r.library().equals(lib)).toList();
                boolean z = lib.equals("zklock");
                out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", e.getKey(), lib,
                        join(rs, Round::ops), join(rs, Round::readOps), join(rs, Round::timedOut), join(rs, Round::failed),
                        join(rs, Round::violations), z ? "(same)" : join(rs, Round::carelessViolations),
                        join(rs, Round::fenced), z ? ratio(ops[0], ops[1]) : "",
                        z && reads[0] + reads[1] > 0 ? ratio(ops[0] - reads[0], ops[1] - reads[1]) + " / "
                                + ratio(reads[0], reads[1]) : "");
            }
        }
        out.println();
        out.println("Per fault kind, all rounds pooled: ops = operations completed from the fault's start to the next "
                + "fault's; heal->grant = ms from the heal to the faulted client's next grant (restart: any) and to any "
                + "client's next grant, median / max; n = faults injected (skipped: no holder/waiter or no reply to drop).");
        out.println();
        out.println("| recipe | fault | n | zklock ops | Curator ops | ratio | zklock t/o | Curator t/o "
                + "| zklock faulted->grant | Curator faulted->grant | zklock any->grant | Curator any->grant "
                + "| violations z/C careful/C careless |");
        out.println("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        for (var e : results.entrySet()) {
            for (Kind kind : Kind.values()) {
                List<Window> z = windows(e.getValue(), "zklock", kind);
                List<Window> c = windows(e.getValue(), "Curator", kind);
                if (z.isEmpty() && c.isEmpty()) {
                    continue;
                }
                int zo = z.stream().mapToInt(w -> w.ops).sum();
                int co = c.stream().mapToInt(w -> w.ops).sum();
                out.printf(Locale.ROOT, "| %s | %s | %d/%d | %d | %d | %s | %d | %d | %s | %s | %s | %s | %d/%d/%d |%n",
                        e.getKey(), kind, z.stream().filter(w -> w.client != -1).count(), z.size(), zo, co,
                        co == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) zo / co),
                        z.stream().mapToInt(w -> w.timedOut).sum(), c.stream().mapToInt(w -> w.timedOut).sum(),
                        medMax(z, true), medMax(c, true), medMax(z, false), medMax(c, false),
                        z.stream().mapToInt(w -> w.violations).sum(), c.stream().mapToInt(w -> w.violations).sum(),
                        c.stream().mapToInt(w -> w.carelessViolations).sum());
            }
        }
    }

    /** Curator's careless-view count for a round's progress line (none for zklock: one view). */
    private static String careless(Round r) {
        return r.library().equals("zklock") ? "" : " careful, " + r.carelessViolations() + " careless";
    }

    private static String ratio(int zklock, int curator) {
        return String.format(Locale.ROOT, "%.2f", curator == 0 ? 0.0 : (double) zklock / curator);
    }

    private static List<Window> windows(List<Round> rounds, String library, Kind kind) {
        List<Window> out = new ArrayList<>();
        for (Round r : rounds) {
            if (r.library().equals(library)) {
                r.windows().stream().filter(w -> w.planned.kind() == kind).forEach(out::add);
            }
        }
        return out;
    }

    private static String medMax(List<Window> windows, boolean faulted) {
        List<Long> values = new ArrayList<>();
        for (Window w : windows) {
            if (w.client == -1) {
                continue;
            }
            long v = faulted ? w.faultedGrantMs : w.anyGrantMs;
            if (v >= 0) {
                values.add(v);
            }
        }
        if (values.isEmpty()) {
            return "-";
        }
        Collections.sort(values);
        return values.get((values.size() - 1) / 2) + " / " + values.get(values.size() - 1);
    }

    private static String join(List<Round> rounds, java.util.function.ToIntFunction<Round> f) {
        return String.join(" + ", rounds.stream().map(r -> String.valueOf(f.applyAsInt(r))).toList());
    }
}
