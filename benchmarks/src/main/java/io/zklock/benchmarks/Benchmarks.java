package io.zklock.benchmarks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * zklock against Curator's recipes on one embedded ZooKeeper server, in one JVM run.
 *
 * <p>For each scenario both libraries open their own sessions and lock objects; each runs one
 * unmeasured warm-up round, then they alternate measured rounds (zklock first in even rounds,
 * Curator first in odd ones, so neither always runs on a warmer or cooler machine). A worker
 * times each operation with {@code System.nanoTime}; samples of all rounds are pooled for the
 * median and p99. Throughput is operations over wall time. Requests per operation are the
 * server's {@code PacketsReceived} delta over the measured rounds divided by the operations.
 *
 * <p>Arguments: {@code --quick} (short rounds: a smoke run, its timings mean nothing) and
 * {@code --scenario N} (only scenarios whose id starts with N, e.g. {@code 7} for 7a-7c).
 */
public final class Benchmarks {
    private static final String[] SIDES = {"zklock", "Curator"};

    /** Command-line options. */
    record Options(boolean quick, String scenario) {
        static Options parse(String... args) {
            boolean quick = false;
            String scenario = null;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "" -> { }                  // an empty -Dbench.args
                    case "--quick" -> quick = true;
                    case "--scenario" -> {
                        if (i + 1 == args.length) {
                            throw new IllegalArgumentException("--scenario needs a number, e.g. --scenario 3");
                        }
                        scenario = args[++i];
                    }
                    default -> throw new IllegalArgumentException(
                            "unknown argument '" + args[i] + "'; usage: [--quick] [--scenario N]");
                }
            }
            return new Options(quick, scenario);
        }

        long warmupNanos() {
            return TimeUnit.MILLISECONDS.toNanos(quick ? 100 : 1000);
        }

        long roundNanos() {
            return TimeUnit.MILLISECONDS.toNanos(quick ? 150 : 1500);
        }

        int rounds() {
            return quick ? 1 : 3;
        }
    }

    /** One library's pooled result for a scenario. */
    record Side(Run.Result result, long packets) {
        double opsPerSecond() {
            return result.ops() / (result.wallNanos / 1e9);
        }

        double requestsPerOp() {
            return (double) packets / result.ops();
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

    /** Runs the selected scenarios, prints the table and the targets, returns the outcomes. */
    static List<Outcome> run(Options options, PrintStream out) throws Exception {
        long started = System.nanoTime();
        var outcomes = new ArrayList<Outcome>();
        // 33 sessions per library at once in scenario 7c: above ZooKeeper's default of 60 per host
        var spec = new InstanceSpec(null, -1, -1, -1, true, -1, -1, 500);
        try (var server = new TestingServer(spec, true)) {
            var counter = new PacketCounter(server.getPort());
            for (Scenario scenario : Scenario.all()) {
                if (options.scenario() == null || scenario.id().startsWith(options.scenario())) {
                    outcomes.add(measure(scenario, options, server.getConnectString(), counter));
                    out.printf(Locale.ROOT, "# scenario %s done (%.0f s elapsed)%n", scenario.id(),
                            (System.nanoTime() - started) / 1e9);
                }
            }
        }
        if (outcomes.isEmpty()) {
            throw new IllegalArgumentException("no scenario " + options.scenario() + "; scenarios are 1-7 and c1-c3");
        }
        printTable(outcomes, options, out);
        printTargets(outcomes, out);
        out.printf(Locale.ROOT, "%nTotal run time %.0f s.%n", (System.nanoTime() - started) / 1e9);
        return outcomes;
    }

    private static Outcome measure(Scenario scenario, Options options, String connectString, PacketCounter counter)
            throws Exception {
        int metricCount = scenario.metrics().size();
        Recipes[] recipes = {Recipes.ZKLOCK, Recipes.CURATOR};
        var workloads = new Scenario.Workload[2];
        var pooled = new Run.Result[] {new Run.Result(metricCount), new Run.Result(metricCount)};
        long[] packets = new long[2];
        try {
            for (int s = 0; s < 2; s++) {
                workloads[s] = scenario.opener().open(recipes[s], connectString,
                        "/bench/" + scenario.id() + "/" + SIDES[s]);
            }
            for (int s = 0; s < 2; s++) {
                workloads[s].run(metricCount, options.warmupNanos());
            }
            for (int round = 0; round < options.rounds(); round++) {
                for (int k = 0; k < 2; k++) {
                    int s = (round + k) % 2;
                    long before = counter.packetsReceived();
                    pooled[s].add(workloads[s].run(metricCount, options.roundNanos()));
                    packets[s] += counter.packetsReceived() - before;
                }
            }
        } finally {
            for (var w : workloads) {
                if (w != null) {
                    w.close();
                }
            }
        }
        return new Outcome(scenario, new Side(pooled[0], packets[0]), new Side(pooled[1], packets[1]));
    }

    private static void printTable(List<Outcome> outcomes, Options options, PrintStream out) {
        out.println();
        out.printf(Locale.ROOT, "zklock vs Curator %s, %s: %d measured round(s) of %d ms per library "
                        + "after a %d ms warm-up, alternating.%n",
                org.apache.curator.framework.CuratorFramework.class.getPackage().getImplementationVersion() == null
                        ? "5.9" : org.apache.curator.framework.CuratorFramework.class.getPackage()
                                .getImplementationVersion(),
                options.quick() ? "QUICK smoke run (timings meaningless)" : "full run",
                options.rounds(), options.roundNanos() / 1_000_000, options.warmupNanos() / 1_000_000);
        out.println("Latencies in ms (median / p99). Ratios are Curator time / zklock time, so > 1 means zklock "
                + "is faster: 'med ratio' = Curator median / zklock median; 'tput ratio' = zklock ops/s / "
                + "Curator ops/s. req/op = server packets received / operations of the scenario's first metric.");
        out.println();
        out.println("| # | metric | zklock med | zklock p99 | Curator med | Curator p99 | med ratio "
                + "| zklock ops/s | Curator ops/s | tput ratio | zklock req/op | Curator req/op |");
        out.println("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        for (Outcome o : outcomes) {
            List<String> metrics = o.scenario().metrics();
            for (int m = 0; m < metrics.size(); m++) {
                boolean first = m == 0;
                out.printf(Locale.ROOT, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.2f | %s | %s | %s | %s | %s |%n",
                        first ? o.scenario().id() : "", metrics.get(m),
                        o.zklock().medianMs(m), o.zklock().p99Ms(m), o.curator().medianMs(m), o.curator().p99Ms(m),
                        o.medianRatio(m),
                        first ? String.format(Locale.ROOT, "%.0f", o.zklock().opsPerSecond()) : "",
                        first ? String.format(Locale.ROOT, "%.0f", o.curator().opsPerSecond()) : "",
                        first ? String.format(Locale.ROOT, "%.2f", o.throughputRatio()) : "",
                        first ? String.format(Locale.ROOT, "%.2f", o.zklock().requestsPerOp()) : "",
                        first ? String.format(Locale.ROOT, "%.2f", o.curator().requestsPerOp()) : "");
            }
        }
        out.println();
        for (Outcome o : outcomes) {
            out.printf("%s: %s%n", o.scenario().id(), o.scenario().title());
        }
    }

    private static void printTargets(List<Outcome> outcomes, PrintStream out) {
        out.println();
        out.println("Targets (zklock / Curator as tput ratio unless stated):");
        find(outcomes, "2").ifPresent(o -> {
            target(out, "uncontended mutex", o.throughputRatio(), 1.0);
            find(outcomes, "1").ifPresent(raw -> {
                double floor = (raw.zklock().medianMs(0) + raw.curator().medianMs(0)) / 2;
                double overFloor = o.zklock().medianMs(0) / floor;
                out.printf(Locale.ROOT, "  %-52s %6.2f  (target <= 1.10)  %s%n",
                        "uncontended zklock median / raw floor median", overFloor, overFloor <= 1.10 ? "met" : "MISSED");
            });
        });
        find(outcomes, "2r").ifPresent(o -> target(out, "re-acquire by one client", o.throughputRatio(), 1.1));
        find(outcomes, "3").ifPresent(o -> target(out, "contended mutex", o.throughputRatio(), 1.15));
        find(outcomes, "4").ifPresent(o -> target(out, "read-heavy readers", o.throughputRatio(), 1.2));
        find(outcomes, "5").ifPresent(o -> target(out, "semaphore", o.throughputRatio(), 2.5));
        find(outcomes, "6").ifPresent(o -> target(out, "multi-lock over 8", o.throughputRatio(), 4.0));
    }

    private static void target(PrintStream out, String what, double value, double atLeast) {
        out.printf(Locale.ROOT, "  %-52s %6.2f  (target >= %.2f)  %s%n", what, value, atLeast,
                value >= atLeast ? "met" : "MISSED");
    }

    private static java.util.Optional<Outcome> find(List<Outcome> outcomes, String id) {
        return outcomes.stream().filter(o -> o.scenario().id().equals(id)).findFirst();
    }
}
