package io.zklock.benchmarks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * zklock against Curator's recipes on one embedded ZooKeeper server, in one JVM run.
 *
 * <p>For each scenario both libraries open their own sessions and lock objects; each runs an
 * unmeasured warm-up, long enough for the JIT to be done with the scenario's code (see
 * {@link #warmUp}), twice in turn (one side's warm-up deoptimises code both run: the client,
 * the server, the JDK), then they alternate measured rounds (zklock first in even rounds,
 * Curator first in odd ones, so neither always runs on a warmer or cooler machine). A worker
 * times each operation with {@code System.nanoTime}; samples of all rounds are pooled for the
 * median and p99. Throughput is operations over wall time. Requests per operation are the
 * server's {@code PacketsReceived} delta over the measured rounds divided by the operations;
 * wake-ups per operation are the watch notifications the server sent to clients (counted by
 * {@link NotificationCounter}) over the same operations.
 *
 * <p>Arguments: {@code --quick} (short rounds and tiny scale sizes: a smoke run, its timings
 * mean nothing), {@code --scenario N[,N...]} (only scenario N and those named N plus letters,
 * e.g. {@code 7} for 7a-7c), the sizes of the scale scenarios 8-11 ({@link Options#USAGE}) and
 * {@code --warmup SECONDS}: each side's warm-up before the JIT is watched (1 s; code that a
 * scenario runs once per conflict, such as {@code c2p}'s writer cycle, is still being compiled
 * a minute in: see docs/benchmarks.md); {@code --jfr FILE}: a JFR recording of the run with a
 * {@link RoundEvent} per measured round, which {@link JfrCost} reads; {@code --baseline DIR}: the second column is not Curator but an
 * earlier commit's zklock ({@link BaselineRecipes}), alternating with this commit's in the same
 * way, on the same server (scenarios 1-9, 11 and the cached c1-c5, c2p, each side with its own
 * cached leases; not the floors). Each round also counts the client threads' allocated bytes and
 * waits ({@link ClientCost}), printed per operation under the table with or without JFR.
 */
public final class Benchmarks {
    /** A slice of the warm-up past its first {@link Options#warmupNanos()}: see {@link #warmUp}. */
    private static final long WARMUP_SLICE_MS = 500;
    private static final int WARMUP_MAX_SLICES = 40;

    /**
     * Command-line options: the run's length, which scenarios, and the sizes of the scale
     * scenarios (8-11), whose defaults are the and whose quick sizes are tiny.
     */
    record Options(boolean quick, String scenario, List<Integer> queues, int queueSessions, int[] herd,
            int held, int heldThreads, int heldRounds, int[] crowd, String jfr, String baseline, int warmupSeconds) {
        static final String USAGE = "usage: [--quick] [--scenario N[,N...]] [--queue 1,8,64,256] [--queue-sessions 16] "
                + "[--herd READERS,SESSIONS,WRITERS] [--held 10000] [--held-threads 4] [--held-rounds 1] [--crowd SESSIONS,LOCKS] "
                + "[--jfr FILE] [--baseline DIR] [--warmup SECONDS]";

        static Options parse(String... args) {
            boolean quick = List.of(args).contains("--quick");
            String scenario = null;
            List<Integer> queues = quick ? List.of(1, 4) : List.of(1, 8, 64, 256);
            int queueSessions = quick ? 2 : 16;
            int[] herd = quick ? new int[] {4, 2, 1} : new int[] {32, 16, 4};
            int held = quick ? 50 : 10_000;
            int heldThreads = quick ? 2 : 4;
            int heldRounds = 1;
            int[] crowd = quick ? new int[] {6, 2} : new int[] {200, 20};
            String jfr = null;
            String baseline = null;
            int warmupSeconds = quick ? 0 : 1;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "", "--quick" -> { }                  // "": an empty -Dbench.args
                    case "--scenario" -> scenario = value(args, i++);
                    case "--queue" -> queues = List.of(boxed(positives(args[i], value(args, i++), 0)));
                    case "--queue-sessions" -> queueSessions = positives(args[i], value(args, i++), 1)[0];
                    case "--herd" -> herd = positives(args[i], value(args, i++), 3);
                    case "--held" -> held = positives(args[i], value(args, i++), 1)[0];
                    case "--held-threads" -> heldThreads = positives(args[i], value(args, i++), 1)[0];
                    case "--held-rounds" -> heldRounds = positives(args[i], value(args, i++), 1)[0];
                    case "--crowd" -> crowd = positives(args[i], value(args, i++), 2);
                    case "--jfr" -> jfr = value(args, i++);
                    case "--baseline" -> baseline = value(args, i++);
                    case "--warmup" -> warmupSeconds = positives(args[i], value(args, i++), 1)[0];
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; " + USAGE);
                }
            }
            if (herd[1] > herd[0]) {
                throw new IllegalArgumentException("--herd " + herd[0] + "," + herd[1] + "," + herd[2]
                        + ": more reader sessions than readers");
            }
            return new Options(quick, scenario, queues, queueSessions, herd, held, heldThreads, heldRounds, crowd, jfr,
                    baseline, warmupSeconds);
        }

        private static String value(String[] args, int i) {
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value; " + USAGE);
            }
            return args[i + 1];
        }

        /** {@code text} as comma-separated positive integers, exactly {@code count} of them (0: any number). */
        private static int[] positives(String flag, String text, int count) {
            String[] parts = text.split(",", -1);
            if (count > 0 && parts.length != count) {
                throw new IllegalArgumentException(flag + " '" + text + "': expected " + count + " number(s)");
            }
            int[] values = new int[parts.length];
            for (int i = 0; i < parts.length; i++) {
                try {
                    values[i] = Integer.parseInt(parts[i].trim());
                } catch (NumberFormatException e) {
                    values[i] = 0;
                }
                if (values[i] < 1) {
                    throw new IllegalArgumentException(flag + " '" + text + "': '" + parts[i] + "' is not a positive number");
                }
            }
            return values;
        }

        private static Integer[] boxed(int[] values) {
            return java.util.Arrays.stream(values).boxed().toArray(Integer[]::new);
        }

        /**
         * Whether scenario {@code id} is selected: all, or for each N of the comma-separated
         * list N itself and N followed by letters (7: 7a-7c, not 70).
         */
        boolean selects(String id) {
            if (scenario == null) {
                return true;
            }
            for (String n : scenario.split(",")) {
                if (id.equals(n) || (id.startsWith(n) && id.substring(n.length()).chars().allMatch(Character::isLetter))) {
                    return true;
                }
            }
            return false;
        }

        /** Each side's warm-up before the JIT is watched: 0.1 s in a quick run, else {@code --warmup} (1 s unless given). */
        long warmupNanos() {
            return quick ? TimeUnit.MILLISECONDS.toNanos(100) : TimeUnit.SECONDS.toNanos(warmupSeconds);
        }

        long roundNanos() {
            return TimeUnit.MILLISECONDS.toNanos(quick ? 150 : 1500);
        }

        int rounds() {
            return quick ? 1 : 3;
        }

        /** The two columns: this commit's zklock, and Curator or (with {@code --baseline}) an earlier commit's zklock. */
        String[] sides() {
            return new String[] {"zklock", baseline == null ? "Curator" : "baseline"};
        }

        /**
         * Whether a scenario runs against the baseline: scenario 10's own JVM is this commit's
         * zklock and Curator only (the floors are left out by the caller: their ceiling is against Curator).
         */
        boolean baselineRuns(String id) {
            return baseline == null || !id.equals("10");
        }
    }

    /**
     * One library's pooled result for a scenario: samples, server requests, the server's watch
     * notifications by {@link NotificationCounter.Kind}, and the figures its rounds reported.
     */
    record Side(Run.Result result, long packets, long[] notifications, long cpuNanos, long serverCpuNanos,
            long clientBytes, long clientWaits, long clientThreadCpuNanos, Map<String, List<Double>> figures) {
        double opsPerSecond() {
            return result.ops() / (result.wallNanos / 1e9);
        }

        double requestsPerOp() {
            return (double) packets / result.ops();
        }

        /** CPU time per operation of the first metric, microseconds: the clients' (the rest of the process). */
        double clientCpuMicrosPerOp() {
            return (cpuNanos - serverCpuNanos) / 1e3 / result.ops();
        }

        /** Bytes the client threads allocated per operation of the first metric (see {@link ClientCost}). */
        double clientBytesPerOp() {
            return (double) clientBytes / result.ops();
        }

        /** CPU time of the client threads (no GC, no compilation) per operation of the first metric, microseconds. */
        double clientThreadCpuMicrosPerOp() {
            return clientThreadCpuNanos / 1e3 / result.ops();
        }

        /** Client thread waits (each a hop between threads) per operation of the first metric. */
        double clientWaitsPerOp() {
            return (double) clientWaits / result.ops();
        }

        /** CPU time of the embedded server's threads per operation of the first metric, microseconds. */
        double serverCpuMicrosPerOp() {
            return serverCpuNanos / 1e3 / result.ops();
        }

        long notificationsTotal() {
            return java.util.Arrays.stream(notifications, 0, NotificationCounter.PREMATURE_AT).sum();
        }

        long prematureTotal() {
            return java.util.Arrays.stream(notifications, NotificationCounter.PREMATURE_AT, notifications.length).sum();
        }

        /** Premature wake-ups (see {@link NotificationCounter}) per operation of the first metric. */
        double prematurePerOp() {
            return (double) prematureTotal() / result.ops();
        }

        /** Premature notifications about nodes of {@code kind} per operation of {@code metric}. */
        double prematurePer(NotificationCounter.Kind kind, int metric) {
            return (double) notifications[NotificationCounter.PREMATURE_AT + kind.ordinal()]
                    / result.metrics[metric].size();
        }

        /** Watch notifications (clients woken over the network) per operation of the first metric. */
        double wakeUpsPerOp() {
            return (double) notificationsTotal() / result.ops();
        }

        /** Notifications about nodes of {@code kind} per operation of {@code metric}. */
        double wakeUpsPer(NotificationCounter.Kind kind, int metric) {
            return (double) notifications[kind.ordinal()] / result.metrics[metric].size();
        }

        double medianMs(int metric) {
            return result.metrics[metric].quantile(0.50) / 1e6;
        }

        double p99Ms(int metric) {
            return result.metrics[metric].quantile(0.99) / 1e6;
        }
    }

    /** A scenario's outcome: index 0 zklock, 1 Curator. */
    record Outcome(Scenario scenario, Side zklock, Side curator) {
        double throughputRatio() {
            return zklock.opsPerSecond() / curator.opsPerSecond();
        }

        double medianRatio(int metric) {
            return curator.medianMs(metric) / zklock.medianMs(metric);
        }
    }

    private Benchmarks() {
    }

    public static void main(String[] args) throws Exception {
        if (ElectionBench.selected(args)) {
            ElectionBench.run(ElectionBench.Options.of(List.of(args).contains("--quick")), System.out);
            System.exit(0);
            return;
        }
        if (isFaultMix(args)) {
            try {
                FaultMix.run(FaultMix.parse(args), System.out);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                System.exit(2);
            }
            System.exit(0);
            return;
        }
        if (Storm.selected(args)) {
            try {
                Storm.run(Storm.Options.parse(args), System.out);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                System.exit(2);
            }
            System.exit(0);
            return;
        }
        if (LockDelayCost.selected(args)) {
            try {
                LockDelayCost.run(LockDelayCost.Options.parse(args), System.out);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                System.exit(2);
            }
            System.exit(0);
            return;
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        run(options, System.out);
        System.exit(0);     // the server's and clients' stray threads must not keep the JVM alive
    }

    /** Whether the arguments select the fault mix ({@code --scenario faults}), which has options of its own. */
    static boolean isFaultMix(String... args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--scenario") && args[i + 1].equals("faults")) {
                return true;
            }
        }
        return false;
    }

    /** Runs the selected scenarios, prints the table and the targets, returns the outcomes. */
    static List<Outcome> run(Options options, PrintStream out) throws Exception {
        long started = System.nanoTime();
        var outcomes = new ArrayList<Outcome>();
        // 33 sessions per library at once in scenario 7c: above ZooKeeper's default of 60 per host
        // and 2 x 200 in scenario 11 at its default size
        var spec = new InstanceSpec(null, -1, -1, -1, true, -1, -1, 1000);
        String previousFactory = NotificationCounter.install();
        TestingServer embedded;
        try {
            embedded = new TestingServer(spec, true);
        } finally {
            NotificationCounter.uninstall(previousFactory);
        }
        try (var server = embedded; var recording = JfrCost.start(options.jfr())) {
            var counter = new ServerCounters(server.getPort());
            Recipes against = options.baseline() == null ? Recipes.CURATOR
                    : BaselineRecipes.load(java.nio.file.Path.of(options.baseline()));
            if (options.baseline() != null) {
                out.println("# this commit's zklock against " + against.name() + " (" + options.baseline() + ")");
            }
            for (Scenario scenario : Scenario.all(options)) {
                if (options.selects(scenario.id()) && options.baselineRuns(scenario.id())
                        && (options.baseline() == null || !scenario.floor())) {     // a floor's ceiling is against Curator
                    outcomes.add(measure(scenario, options, server.getConnectString(), counter, against, out));
                    out.printf(Locale.ROOT, "# scenario %s done (%.0f s elapsed)%n", scenario.id(),
                            (System.nanoTime() - started) / 1e9);
                }
            }
        }
        if (outcomes.isEmpty()) {
            throw new IllegalArgumentException("no scenario " + options.scenario() + "; scenarios are 1-11 (with 1b, 2r, 5w"
                    + " and the floors 2w, 2p, 2pb, 3f, 4f, 4fb, 5f, 5wf, 6f), c1-c5, c2p and the floors c2f, c5f; storm, faults, lockdelay, election"
                    + (options.baseline() == null ? "" : " (with --baseline: 1-9, 11, c1-c5 and c2p)"));
        }
        printTable(outcomes, options, out);
        printScale(outcomes, options, out);
        if (options.baseline() == null) {
            printTargets(outcomes, out);
        }
        out.printf(Locale.ROOT, "%nTotal run time %.0f s.%n", (System.nanoTime() - started) / 1e9);
        return outcomes;
    }

    /**
     * One side's unmeasured warm-up: {@link Options#warmupNanos()}, then (in a full run) on in
     * slices of {@link #WARMUP_SLICE_MS} until the JIT compiled for less than a tenth of a
     * slice, at most {@link #WARMUP_MAX_SLICES} of them; returns its length in milliseconds. A
     * measured round during compilation measures the compiler: its threads take the cores that
     * the client and the server share here, and the library with more code to compile pays more.
     */
    private static long warmUp(Scenario.Workload workload, int metricCount, Options options) throws Exception {
        long start = System.nanoTime();
        workload.run(metricCount, options.warmupNanos());
        for (int slice = 0; slice < (options.quick() ? 0 : WARMUP_MAX_SLICES); slice++) {
            long compiledBefore = compiledMillis();
            workload.run(metricCount, TimeUnit.MILLISECONDS.toNanos(WARMUP_SLICE_MS));
            if (compiledMillis() - compiledBefore < WARMUP_SLICE_MS / 10) {
                break;
            }
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static String warmedUp(Scenario.Workload workload, long millis) {
        return workload.round == null ? millis + " ms" : "in its own round";
    }

    /** The JIT's compilation time so far, summed over its threads (0 where the JVM does not tell). */
    private static long compiledMillis() {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    private static Outcome measure(Scenario scenario, Options options, String connectString, ServerCounters counter,
            Recipes against, PrintStream out) throws Exception {
        int metricCount = scenario.metrics().size();
        Recipes[] recipes = {Recipes.ZKLOCK, against};
        String[] sides = options.sides();
        var workloads = new Scenario.Workload[2];
        var pooled = new Run.Result[] {new Run.Result(metricCount), new Run.Result(metricCount)};
        long[] packets = new long[2];
        long[][] notifications = new long[2][NotificationCounter.snapshot().length];
        long[] cpu = new long[2];
        long[] serverCpu = new long[2];
        long[][] clientCost = new long[2][3];
        var cost = new ClientCost(counter.nonClientThreads());
        try {
            for (int s = 0; s < 2; s++) {
                workloads[s] = scenario.opener().open(recipes[s], connectString,
                        "/bench/" + scenario.id() + "/" + sides[s]);
                workloads[s].counters = counter;
            }
            long[] warmedMillis = new long[2];
            for (int pass = 0; pass < (options.quick() ? 1 : 2); pass++) {   // again: one side's warm-up deoptimises code the other runs too
                for (int s = 0; s < 2; s++) {
                    if (workloads[s].round == null) {   // a round of its own warms itself up
                        warmedMillis[s] += warmUp(workloads[s], metricCount, options);
                    }
                }
            }
            out.printf(Locale.ROOT, "# scenario %s warmed up: %s %s, %s %s%n", scenario.id(), sides[0],
                    warmedUp(workloads[0], warmedMillis[0]), sides[1], warmedUp(workloads[1], warmedMillis[1]));
            int rounds = Math.min(options.rounds(), Math.min(workloads[0].maxRounds, workloads[1].maxRounds));
            long[] jitMillis = new long[2];
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < 2; k++) {
                    int s = (round + k) % 2;
                    long before = counter.packetsReceived();
                    long[] notifiedBefore = NotificationCounter.snapshot();
                    long cpuBefore = Run.Result.processCpuNanos();
                    long compiledBefore = compiledMillis();
                    long serverCpuBefore = counter.serverCpuNanos();
                    var event = new RoundEvent();
                    cost.begin();
                    event.begin();
                    Run.Result result = workloads[s].run(metricCount, options.roundNanos());
                    event.end();
                    long[] used = cost.end();
                    jitMillis[s] += compiledMillis() - compiledBefore;
                    clientCost[s][0] += used[0];
                    clientCost[s][1] += used[1];
                    clientCost[s][2] += used[2];
                    long serverCpuUsed = counter.serverCpuNanos() - serverCpuBefore;
                    serverCpu[s] += serverCpuUsed;
                    cpu[s] += result.cpuNanos >= 0 ? result.cpuNanos + serverCpuUsed
                            : Run.Result.processCpuNanos() - cpuBefore;
                    pooled[s].add(result);
                    long requests = result.packets >= 0 ? result.packets : counter.packetsReceived() - before;
                    packets[s] += requests;
                    if (event.shouldCommit()) {
                        event.scenario = scenario.id();
                        event.library = sides[s];
                        event.round = round;
                        event.ops = result.ops();
                        event.requests = requests;
                        event.clientBytes = used[0];
                        event.clientWaits = used[1];
                        event.commit();
                    }
                    long[] notified = result.notifications != null ? result.notifications
                            : NotificationCounter.delta(notifiedBefore, NotificationCounter.snapshot());
                    for (int n = 0; n < notified.length; n++) {
                        notifications[s][n] += notified[n];
                    }
                }
            }
            out.printf(Locale.ROOT, "# scenario %s JIT compilation during the measured rounds: %s %d ms, %s %d ms%n",
                    scenario.id(), sides[0], jitMillis[0], sides[1], jitMillis[1]);
        } finally {
            for (var w : workloads) {
                if (w != null) {
                    w.close();
                }
            }
        }
        return new Outcome(scenario, new Side(pooled[0], packets[0], notifications[0], cpu[0], serverCpu[0],
                clientCost[0][0], clientCost[0][1], clientCost[0][2], workloads[0].figures),
                new Side(pooled[1], packets[1], notifications[1], cpu[1], serverCpu[1],
                        clientCost[1][0], clientCost[1][1], clientCost[1][2], workloads[1].figures));
    }

    private static void printTable(List<Outcome> outcomes, Options options, PrintStream out) {
        String other = options.sides()[1];
        out.println();
        out.printf(Locale.ROOT, "zklock vs " + (options.baseline() == null ? "Curator" : "baseline zklock ("
                        + options.baseline() + "), both on Curator") + " %s, %s: %d measured round(s) of %d ms per library "
                        + "after a warm-up of at least %d ms each, on until the JIT is quiet (see '# warmed up' above), "
                        + "alternating.%n",
                org.apache.curator.framework.CuratorFramework.class.getPackage().getImplementationVersion() == null
                        ? "5.9" : org.apache.curator.framework.CuratorFramework.class.getPackage()
                                .getImplementationVersion(),
                options.quick() ? "QUICK smoke run (timings meaningless)" : "full run",
                options.rounds(), options.roundNanos() / 1_000_000, options.warmupNanos() / 1_000_000);
        out.println("Latencies in ms (median / p99). Ratios are " + other + " time / zklock time, so > 1 means zklock "
                + "is faster: 'med ratio' = " + other + " median / zklock median; 'tput ratio' = zklock ops/s / "
                + other + " ops/s. req/op = server packets received / operations of the scenario's first metric; "
                + "wake/op = watch notifications the server sent / the same operations.");
        out.println();
        out.println("| # | metric | zklock med | zklock p99 | " + other + " med | " + other + " p99 | med ratio "
                + "| zklock ops/s | " + other + " ops/s | tput ratio | zklock req/op | " + other + " req/op "
                + "| zklock wake/op | " + other + " wake/op |");
        out.println("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        for (Outcome o : outcomes) {
            List<String> metrics = o.scenario().metrics();
            for (int m = 0; m < metrics.size(); m++) {
                boolean first = m == 0;
                out.printf(Locale.ROOT, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.2f | %s | %s | %s | %s | %s | %s | %s |%n",
                        first ? o.scenario().id() : "", metrics.get(m),
                        o.zklock().medianMs(m), o.zklock().p99Ms(m), o.curator().medianMs(m), o.curator().p99Ms(m),
                        o.medianRatio(m),
                        first ? String.format(Locale.ROOT, "%.0f", o.zklock().opsPerSecond()) : "",
                        first ? String.format(Locale.ROOT, "%.0f", o.curator().opsPerSecond()) : "",
                        first ? String.format(Locale.ROOT, "%.2f", o.throughputRatio()) : "",
                        first ? String.format(Locale.ROOT, "%.2f", o.zklock().requestsPerOp()) : "",
                        first ? String.format(Locale.ROOT, "%.2f", o.curator().requestsPerOp()) : "",
                        first ? String.format(Locale.ROOT, "%.2f", o.zklock().wakeUpsPerOp()) : "",
                        first ? String.format(Locale.ROOT, "%.2f", o.curator().wakeUpsPerOp()) : "");
            }
        }
        out.println();
        for (Outcome o : outcomes) {
            out.printf("%s: %s%n", o.scenario().id(), o.scenario().title());
        }
        out.println();
        out.println("CPU per operation of the first metric, microseconds, zklock / " + other + ": less sensitive to other "
                + "work on the machine than the timings. Clients: the process less the server's threads (both "
                + "libraries' clients, the other one idle, with garbage collection and compilation; scenario 10: "
                + "its client JVM); server: the embedded server's threads.");
        out.println("  clients: " + String.join("; ", outcomes.stream().map(o -> String.format(Locale.ROOT,
                "%s %.0f / %.0f", o.scenario().id(), o.zklock().clientCpuMicrosPerOp(),
                o.curator().clientCpuMicrosPerOp())).toList()));
        out.println("  server:  " + String.join("; ", outcomes.stream().map(o -> String.format(Locale.ROOT,
                "%s %.0f / %.0f", o.scenario().id(), o.zklock().serverCpuMicrosPerOp(),
                o.curator().serverCpuMicrosPerOp())).toList()));
        out.println();
        out.println("Client cost per operation of the first metric, zklock / " + other + ": bytes allocated by the client "
                + "threads (ThreadMXBean, exact) and their waits (parks, Object.wait, sleeps: each wake-up is a hop "
                + "between threads). Both libraries' client threads count (the other library's idle); "
                + "scenario 10's client runs in a JVM of its own and is not counted here. --jfr FILE records a "
                + "JFR file for JfrCost (allocation sites, who waits where).");
        out.println("  bytes/op: " + String.join("; ", outcomes.stream().map(o -> String.format(Locale.ROOT,
                "%s %.0f / %.0f", o.scenario().id(), o.zklock().clientBytesPerOp(),
                o.curator().clientBytesPerOp())).toList()));
        out.println("  waits/op: " + String.join("; ", outcomes.stream().map(o -> String.format(Locale.ROOT,
                "%s %.2f / %.2f", o.scenario().id(), o.zklock().clientWaitsPerOp(),
                o.curator().clientWaitsPerOp())).toList()));
        out.println("  thread CPU us/op (the client threads' own CPU time: no GC or compilation; less sensitive to "
                + "the machine's load than the timings): " + String.join("; ", outcomes.stream().map(o -> String.format(
                        Locale.ROOT, "%s %.0f / %.0f", o.scenario().id(), o.zklock().clientThreadCpuMicrosPerOp(),
                        o.curator().clientThreadCpuMicrosPerOp())).toList()));
    }

    /** The scale scenarios' own figures: the queue's flatness, the herd's wake-ups by release, held locks. */
    private static void printScale(List<Outcome> outcomes, Options options, PrintStream out) {
        var queues = outcomes.stream().filter(o -> o.scenario().id().startsWith("8")).toList();
        if (!queues.isEmpty()) {
            out.println();
            out.println("Queue (8): per hand-off (one acquire+release cycle of the queue), by queue length. "
                    + "Wake-ups: watch notifications the server sent; premature: those that freed none of the "
                    + "woken session's nodes.");
            out.println();
            out.println("| # | waiters | library | req/hand-off | wake-ups/hand-off | premature/hand-off "
                    + "| hand-off med ms | hand-off p99 ms | hand-offs/s |");
            out.println("|---|--:|---|--:|--:|--:|--:|--:|--:|");
            for (Outcome o : queues) {
                int waiters = options.queues().get(o.scenario().id().charAt(1) - 'a');
                for (int s = 0; s < 2; s++) {
                    Side side = s == 0 ? o.zklock() : o.curator();
                    out.printf(Locale.ROOT, "| %s | %d | %s | %.2f | %.2f | %.2f | %.3f | %.3f | %.0f |%n",
                            o.scenario().id(), waiters, options.sides()[s], side.requestsPerOp(), side.wakeUpsPerOp(),
                            side.prematurePerOp(), side.medianMs(1),
                            side.p99Ms(1), side.opsPerSecond());
                }
            }
            out.println();
            for (int s = 0; s < 2; s++) {
                int side = s;
                out.printf(Locale.ROOT, "  %-8s by queue length %s: req/hand-off %s; wake-ups/hand-off %s "
                                + "(premature %s); hand-off median ms %s; p99 ms %s%n", options.sides()[s],
                        series(queues, o -> (double) options.queues().get(o.scenario().id().charAt(1) - 'a'), "%.0f"),
                        series(queues, o -> pick(o, side).requestsPerOp(), "%.2f"),
                        series(queues, o -> pick(o, side).wakeUpsPerOp(), "%.2f"),
                        series(queues, o -> pick(o, side).prematurePerOp(), "%.2f"),
                        series(queues, o -> pick(o, side).medianMs(1), "%.3f"),
                        series(queues, o -> pick(o, side).p99Ms(1), "%.3f"));
            }
        }
        find(outcomes, "9").ifPresent(o -> {
            out.println();
            out.println("Herd (9): wake-ups (notifications about deleted nodes of that kind) per release of that kind, "
                    + "and how many of them were premature (freed none of the woken session's nodes).");
            var write = NotificationCounter.Kind.WRITE;
            var read = NotificationCounter.Kind.READ;
            for (int s = 0; s < 2; s++) {
                Side side = s == 0 ? o.zklock() : o.curator();
                out.printf(Locale.ROOT, "  %-8s per writer release %.2f (premature %.2f), per reader release %.2f "
                                + "(premature %.2f), other notifications %d (%d write and %d read releases)%n", options.sides()[s],
                        side.wakeUpsPer(write, 1), side.prematurePer(write, 1),
                        side.wakeUpsPer(read, 0), side.prematurePer(read, 0),
                        side.notifications()[NotificationCounter.Kind.OTHER.ordinal()],
                        side.result().metrics[1].size(), side.result().ops());
            }
        });
        for (Outcome o : outcomes) {
            if (!o.zklock().figures().isEmpty()) {
                out.println();
                out.println(o.scenario().id() + ": figures per round (rounds in order)");
                for (String figure : o.zklock().figures().keySet()) {
                    out.printf(Locale.ROOT, "  %-45s zklock %s   " + options.sides()[1] + " %s%n", figure,
                            values(o.zklock().figures().get(figure)), values(o.curator().figures().get(figure)));
                }
            }
        }
    }

    private static Side pick(Outcome o, int side) {
        return side == 0 ? o.zklock() : o.curator();
    }

    private static String series(List<Outcome> outcomes, java.util.function.ToDoubleFunction<Outcome> value,
            String format) {
        return String.join(" > ", outcomes.stream().map(o -> String.format(Locale.ROOT, format, value.applyAsDouble(o)))
                .toList());
    }

    private static String values(List<Double> values) {
        if (values == null) {
            return "-";
        }
        return String.join(" / ", values.stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList());
    }

    private static void printTargets(List<Outcome> outcomes, PrintStream out) {
        out.println();
        out.println("Targets (zklock / Curator as tput ratio). Ceiling: a FLOOR row's tput ratio (the raw floor against "
                + "Curator, alternating in the same run): the ratio a library sending no more than that floor's requests, "
                + "at no client cost, would reach; zklock's share of the floor = its ratio / the ceiling. The same on "
                + "median ratios: on a loaded machine a few long stalls move the throughput more than the median.");
        find(outcomes, "2").ifPresent(o -> {
            target(out, "uncontended mutex (2)", o.throughputRatio(), 1.2, ceilings(outcomes, o, "2w", "2p", "2pb"));
            find(outcomes, "1").ifPresent(raw -> {
                double floor = (raw.zklock().medianMs(0) + raw.curator().medianMs(0)) / 2;
                double overFloor = o.zklock().medianMs(0) / floor;
                out.printf(Locale.ROOT, "  %-52s %6.2f  (target <= 1.10)  %s%n",
                        "uncontended zklock median / raw floor median", overFloor, overFloor <= 1.10 ? "met" : "MISSED");
            });
        });
        find(outcomes, "2r").ifPresent(o -> target(out, "re-acquire by one client (2r)", o.throughputRatio(), 1.2,
                ceilings(outcomes, o, "2w")));
        find(outcomes, "3").ifPresent(o -> target(out, "contended mutex (3)", o.throughputRatio(), 1.1,
                ceilings(outcomes, o, "3f")));
        find(outcomes, "4").ifPresent(o -> target(out, "read-heavy readers (4)", o.throughputRatio(), 1.1,
                ceilings(outcomes, o, "4f", "4fb")));
        find(outcomes, "5").ifPresent(o -> target(out, "semaphore (5)", o.throughputRatio(), 2.5,
                ceilings(outcomes, o, "5f")));
        find(outcomes, "6").ifPresent(o -> target(out, "multi-lock over 8 (6)", o.throughputRatio(), 4.0,
                ceilings(outcomes, o, "6f")));
        find(outcomes, "c2p").ifPresent(o -> {
            double median = writerOver(o, 0.50);
            double p99 = writerOver(o, 0.99);
            out.printf(Locale.ROOT, "  %-52s %+6.2f / %+.2f ms  (target <= +1.00 at both)  %-6s %s%n",
                    "writer behind cached readers (c2p), median / p99", median, p99,
                    median <= 1.0 && p99 <= 1.0 ? "met" : "MISSED", writerFloor(outcomes, "c2f"));
        });
        find(outcomes, "c5").ifPresent(cached -> find(outcomes, "5w").ifPresent(uncached -> {
            Side with = cached.zklock();
            Side without = uncached.zklock();
            double median = with.medianMs(1) - without.medianMs(1);
            double p99 = with.p99Ms(1) - without.p99Ms(1);
            out.printf(Locale.ROOT, "  %-52s %+6.2f / %+.2f ms  (target <= +1.00 at both)  %-6s zklock's waiter %.2f / %.2f ms"
                    + " behind cached permits, %.2f / %.2f ms without caching (median / p99)%n",
                    "semaphore waiter behind cached permits (c5 vs 5w)", median, p99, median <= 1.0 && p99 <= 1.0 ? "met" : "MISSED",
                    with.medianMs(1), with.p99Ms(1), without.medianMs(1), without.p99Ms(1));
        }));
        find(outcomes, "c5f").ifPresent(cached -> find(outcomes, "5wf").ifPresent(uncached -> {
            Side with = cached.zklock();
            Side without = uncached.zklock();
            out.printf(Locale.ROOT, "  %-52s %+6.2f / %+.2f ms  the floors' waiter %.2f / %.2f ms behind cached permits,"
                    + " %.2f / %.2f ms without caching (median / p99): what a minimal semaphore whose holders keep their"
                    + " nodes adds%n", "floor of the waiter behind cached permits (c5f vs 5wf)",
                    with.medianMs(1) - without.medianMs(1), with.p99Ms(1) - without.p99Ms(1),
                    with.medianMs(1), with.p99Ms(1), without.medianMs(1), without.p99Ms(1));
        }));
        if (find(outcomes, "c2p").isEmpty()) {
            String floor = writerFloor(outcomes, "c2f");
            if (!floor.isEmpty()) {
                out.printf(Locale.ROOT, "  %-52s %s%n", "writer behind cached readers (c2p not run)", floor);
            }
        }
    }

    /** How far the first column's writer (metric 1) is above the second column's at quantile {@code q}, in ms. */
    private static double writerOver(Outcome o, double q) {
        return (o.zklock().result().metrics[1].quantile(q) - o.curator().result().metrics[1].quantile(q)) / 1e6;
    }

    /**
     * The floor's writer over Curator's writer in the same run ({@code floor}'s row): the least a
     * writer behind readers that keep a node between reads waits beyond Curator's.
     */
    private static String writerFloor(List<Outcome> outcomes, String floor) {
        return find(outcomes, floor).map(f -> String.format(Locale.ROOT,
                "floor %s: its writer %+.2f / %+.2f ms over Curator's (median / p99; writer medians, floor / Curator: %.2f / %.2f ms)",
                floor, writerOver(f, 0.50), writerOver(f, 0.99), f.zklock().medianMs(1), f.curator().medianMs(1)))
                .orElse("");
    }

    private static void target(PrintStream out, String what, double value, double atLeast, String ceilings) {
        out.printf(Locale.ROOT, "  %-52s %6.2f  (target >= %.2f)  %-6s %s%n", what, value, atLeast,
                value >= atLeast ? "met" : "MISSED", ceilings);
    }

    /** For each FLOOR row: its tput ratio (the ceiling), and zklock's ratio in {@code o} as a share of it. */
    private static String ceilings(List<Outcome> outcomes, Outcome o, String... floors) {
        var parts = new ArrayList<String>();
        for (String id : floors) {
            find(outcomes, id).ifPresent(f -> parts.add(String.format(Locale.ROOT,
                    "ceiling %.2f by floor %s (zklock at %.2f of the floor; on medians: ceiling %.2f, zklock at %.2f)",
                    f.throughputRatio(), id, o.throughputRatio() / f.throughputRatio(), f.medianRatio(0),
                    o.medianRatio(0) / f.medianRatio(0))));
        }
        return String.join("; ", parts);
    }

    private static java.util.Optional<Outcome> find(List<Outcome> outcomes, String id) {
        return outcomes.stream().filter(o -> o.scenario().id().equals(id)).findFirst();
    }
}
