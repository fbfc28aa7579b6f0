package io.zklock.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * The client side's cost per operation, from a JFR recording made by {@code --jfr FILE}:
 * split by the benchmark's {@link RoundEvent}s into each library's rounds, it prints per
 * scenario and library the exact counts the rounds carry (bytes allocated, thread waits), the
 * waits JFR saw by thread and by where the thread waited, and the top allocation sites
 * ({@code jdk.ObjectAllocationSample}, weighted). Run as
 * {@code java -cp <benchmarks' classpath> io.zklock.benchmarks.JfrCost FILE [SITES]} (see README).
 */
public final class JfrCost {
    private static final String PARK = "jdk.ThreadPark";
    private static final String WAIT = "jdk.JavaMonitorWait";
    private static final String ALLOCATION = "jdk.ObjectAllocationSample";

    private JfrCost() {
    }

    /** A recording to {@code file} (null: none) with every park and wait and dense allocation samples; closing it writes the file. */
    static AutoCloseable start(String file) throws IOException, java.text.ParseException {
        if (file == null) {
            return null;
        }
        var recording = new Recording(Configuration.getConfiguration("profile"));
        recording.enable(PARK).withThreshold(Duration.ZERO).withStackTrace();
        recording.enable(WAIT).withThreshold(Duration.ZERO).withStackTrace();
        recording.enable(ALLOCATION).with("throttle", "10000/s").withStackTrace();
        recording.enable(RoundEvent.NAME);
        recording.setDestination(Path.of(file));
        recording.start();
        return () -> {
            recording.stop();           // writes the destination
            recording.close();
        };
    }

    /** One library's measured round, from its {@link RoundEvent}. */
    record Round(String scenario, String library, Instant start, Instant end, long ops, long requests, long bytes,
            long waits) {
    }

    /** What one scenario's rounds of one library add up to. */
    static final class Tally {
        long ops;
        long requests;
        long bytes;
        long waits;
        long sampledBytes;
        final Map<String, Long> sites = new HashMap<>();
        final Map<String, Long> layers = new HashMap<>();
        final Map<String, Long> callers = new HashMap<>();
        final Map<String, Long> waitsByThread = new HashMap<>();
        final Map<String, Long> waitSites = new HashMap<>();
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: JfrCost RECORDING.jfr [TOP_SITES]");
            System.exit(2);
        }
        int top = args.length == 2 ? Integer.parseInt(args[1]) : 12;
        print(analyse(Path.of(args[0])), top, System.out);
    }

    /** The recording's rounds, tallied per scenario and library, in the order the rounds ran. */
    static Map<String, Tally> analyse(Path file) throws IOException {
        var rounds = new ArrayList<Round>();
        try (var in = new RecordingFile(file)) {
            while (in.hasMoreEvents()) {
                RecordedEvent e = in.readEvent();
                if (e.getEventType().getName().equals(RoundEvent.NAME)) {
                    rounds.add(new Round(e.getString("scenario"), e.getString("library"), e.getStartTime(),
                            e.getEndTime(), e.getLong("ops"), e.getLong("requests"), e.getLong("clientBytes"),
                            e.getLong("clientWaits")));
                }
            }
        }
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException(file + " has no benchmark rounds: was it recorded with --jfr?");
        }
        rounds.sort(Comparator.comparing(Round::start));
        var tallies = new LinkedHashMap<String, Tally>();
        for (Round r : rounds) {
            Tally t = tallies.computeIfAbsent(key(r), k -> new Tally());
            t.ops += r.ops();
            t.requests += r.requests();
            t.bytes += r.bytes();
            t.waits += r.waits();
        }
        try (var in = new RecordingFile(file)) {
            while (in.hasMoreEvents()) {
                RecordedEvent e = in.readEvent();
                String type = e.getEventType().getName();
                if (!type.equals(PARK) && !type.equals(WAIT) && !type.equals(ALLOCATION)) {
                    continue;
                }
                RecordedThread thread = e.getThread();
                String name = thread == null ? null : thread.getJavaName();
                if (name == null || name.equals("main") || !ClientCost.clientThreadName(name)) {
                    continue;
                }
                Round r = roundAt(rounds, e.getStartTime());
                if (r == null) {
                    continue;
                }
                Tally t = tallies.get(key(r));
                if (type.equals(ALLOCATION)) {
                    long weight = e.getLong("weight");
                    t.sampledBytes += weight;
                    String allocated = e.getClass("objectClass").getName();
                    t.sites.merge(allocated + " " + site(e.getStackTrace()), weight, Long::sum);
                    t.layers.merge(layer(e.getStackTrace()), weight, Long::sum);
                    t.callers.merge(recipeFrame(e.getStackTrace()), weight, Long::sum);
                } else {
                    t.waitsByThread.merge(group(name), 1L, Long::sum);
                    t.waitSites.merge(group(name) + ": " + waitSite(e.getStackTrace()), 1L, Long::sum);
                }
            }
        }
        return tallies;
    }

    private static String key(Round r) {
        return r.scenario() + " " + r.library();
    }

    private static Round roundAt(List<Round> rounds, Instant at) {
        for (Round r : rounds) {
            if (!at.isBefore(r.start()) && at.isBefore(r.end())) {
                return r;
            }
        }
        return null;
    }

    /** The thread's role: the benchmark's callers, ZooKeeper's event and send threads, a library's pool. */
    static String group(String thread) {
        if (thread.startsWith("bench-worker")) {
            return "caller";
        }
        if (thread.endsWith("-EventThread")) {
            return "zk-event";
        }
        if (thread.contains("-SendThread")) {
            return "zk-send";
        }
        return thread.replaceAll("-?\\d+$", "");
    }

    private static boolean jdk(RecordedFrame f) {
        String c = f.getMethod().getType().getName();
        return c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.");
    }

    private static String frame(RecordedFrame f) {
        String c = f.getMethod().getType().getName();
        return c.substring(c.lastIndexOf('.') + 1) + "." + f.getMethod().getName() + ":" + f.getLineNumber();
    }

    /** The allocating frame, and the first frame outside the JDK if that is not it. */
    private static String site(RecordedStackTrace stack) {
        if (stack == null || stack.getFrames().isEmpty()) {
            return "(no stack)";
        }
        List<RecordedFrame> frames = stack.getFrames();
        String first = frame(frames.get(0));
        for (RecordedFrame f : frames) {
            if (!jdk(f)) {
                return f == frames.get(0) ? "at " + first : "at " + first + " <- " + frame(f);
            }
        }
        return "at " + first;
    }

    /**
     * The lock library's own frame nearest the allocation (zklock's, or Curator's recipes'):
     * which of its calls made the allocation, in whatever layer below it happened.
     */
    private static String recipeFrame(RecordedStackTrace stack) {
        if (stack == null) {
            return "(no stack)";
        }
        for (RecordedFrame f : stack.getFrames()) {
            String c = f.getMethod().getType().getName();
            if ((c.startsWith("io.zklock") && !c.startsWith("io.zklock.benchmarks"))
                    || c.startsWith("org.apache.curator.framework.recipes")) {
                return frame(f);
            }
        }
        return "(no lock library frame: ZooKeeper's or Curator's threads on their own)";
    }

    /** Which code asked for the allocation: the first frame outside the JDK, by library. */
    private static String layer(RecordedStackTrace stack) {
        if (stack == null) {
            return "(no stack)";
        }
        for (RecordedFrame f : stack.getFrames()) {
            if (!jdk(f)) {
                String c = f.getMethod().getType().getName();
                if (c.startsWith("io.zklock.benchmarks")) {
                    return "benchmark";
                }
                if (c.startsWith("io.zklock")) {
                    return "zklock";
                }
                if (c.startsWith("org.apache.curator.framework.recipes")) {
                    return "curator-recipes";
                }
                if (c.startsWith("org.apache.curator")) {
                    return "curator-framework";
                }
                if (c.startsWith("org.apache.zookeeper")) {
                    return "zookeeper-client";
                }
                return c.substring(0, Math.max(0, c.lastIndexOf('.')));
            }
        }
        return "jdk";
    }

    /** Where a thread waited: the first frame outside the JDK, and the JDK call it waited in. */
    private static String waitSite(RecordedStackTrace stack) {
        if (stack == null || stack.getFrames().isEmpty()) {
            return "(no stack)";
        }
        String inJdk = null;
        for (RecordedFrame f : stack.getFrames()) {
            if (jdk(f)) {
                String c = f.getMethod().getType().getName();
                if (!c.startsWith("jdk.internal") && !c.equals("java.util.concurrent.locks.LockSupport")) {
                    inJdk = inJdk == null ? frame(f).replaceAll(":\\d+$", "") : inJdk;
                }
            } else {
                return frame(f) + (inJdk == null ? "" : " (" + inJdk + ")");
            }
        }
        return inJdk == null ? "jdk" : inJdk;
    }

    static void print(Map<String, Tally> tallies, int top, PrintStream out) {
        out.println("Client cost per operation (of the scenario's first metric), from the benchmark's rounds.");
        out.println("bytes/op and waits/op are exact (ThreadMXBean over the client threads, per round); the rest "
                + "is JFR's: sampled allocation weight, and parks + monitor waits by thread (each a wake-up: a hop).");
        out.println();
        out.println("| scenario | library | ops | req/op | bytes/op | waits/op | JFR sampled bytes/op | JFR waits/op by thread |");
        out.println("|---|---|--:|--:|--:|--:|--:|---|");
        tallies.forEach((key, t) -> {
            String[] parts = key.split(" ", 2);
            out.printf(Locale.ROOT, "| %s | %s | %d | %.2f | %.0f | %.2f | %.0f | %s |%n", parts[0], parts[1], t.ops,
                    (double) t.requests / t.ops, (double) t.bytes / t.ops, (double) t.waits / t.ops,
                    (double) t.sampledBytes / t.ops, perOp(t.waitsByThread, t.ops, "%.2f"));
        });
        tallies.forEach((key, t) -> {
            out.println();
            out.printf(Locale.ROOT, "## %s: allocation by layer (first frame outside the JDK), bytes/op: %s%n", key,
                    perOp(t.layers, t.ops, "%.0f"));
            out.printf("top %d allocation sites (sampled bytes/op, share):%n", top);
            t.sites.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                    .forEach(s -> out.printf(Locale.ROOT, "  %7.0f  %4.1f%%  %s%n", (double) s.getValue() / t.ops,
                            100.0 * s.getValue() / Math.max(1, t.sampledBytes), s.getKey()));
            out.printf("top %d lock library frames nearest the allocation (sampled bytes/op, share):%n", top);
            t.callers.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                    .forEach(s -> out.printf(Locale.ROOT, "  %7.0f  %4.1f%%  %s%n", (double) s.getValue() / t.ops,
                            100.0 * s.getValue() / Math.max(1, t.sampledBytes), s.getKey()));
            out.println("where threads waited (waits/op):");
            t.waitSites.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                    .forEach(s -> out.printf(Locale.ROOT, "  %6.2f  %s%n", (double) s.getValue() / t.ops, s.getKey()));
        });
    }

    private static String perOp(Map<String, Long> counts, long ops, String format) {
        return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + String.format(Locale.ROOT, format, (double) e.getValue() / ops))
                .collect(Collectors.joining(", "));
    }
}
