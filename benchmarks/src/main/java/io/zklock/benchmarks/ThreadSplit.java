package io.zklock.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.zklock.benchmarks.Recipes.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;

/**
 * Where one library's uncontended mutex cycle spends CPU, by thread: one thread cycles on one
 * mutex through two sessions taking turns (scenario 2) on an embedded server of its own, and
 * the CPU time of every thread of the JVM over the measured cycles is printed per cycle,
 * threads of the same name (numbers left out) summed: the caller, ZooKeeper's send and event
 * threads, the server's. Run alone, one library per JVM:
 * {@code java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
 * io.zklock.benchmarks.ThreadSplit zklock|Curator [CYCLES]}.
 */
public final class ThreadSplit {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private ThreadSplit() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || !(args[0].equals("zklock") || args[0].equals("Curator"))) {
            System.err.println("usage: ThreadSplit zklock|Curator [CYCLES]");
            System.exit(2);
        }
        run(args[0].equals("zklock") ? Recipes.ZKLOCK : Recipes.CURATOR,
                args.length > 1 ? Integer.parseInt(args[1]) : 3000, System.out);
        System.exit(0);
    }

    static void run(Recipes recipes, int cycles, PrintStream out) throws Exception {
        try (TestingServer server = new TestingServer(true)) {
            CuratorFramework[] clients = {Scenario.Workload.start(server.getConnectString()),
                    Scenario.Workload.start(server.getConnectString())};
            try {
                Lock[] turns = new Lock[2];
                for (int i = 0; i < 2; i++) {
                    Scenario.Workload.awaitConnected(clients[i], server.getConnectString());
                    turns[i] = recipes.mutex(clients[i], "/split");
                }
                for (int i = 0; i < cycles; i++) {             // warm-up
                    turns[i & 1].acquire().release();
                }
                Map<String, Long> before = cpuByName();
                long started = System.nanoTime();
                for (int i = 0; i < cycles; i++) {
                    turns[i & 1].acquire().release();
                }
                long wall = System.nanoTime() - started;
                Map<String, Long> after = cpuByName();
                out.printf(Locale.ROOT, "%s, %d cycles by turns: CPU us per cycle by thread%n", recipes.name(), cycles);
                after.forEach((name, nanos) -> {
                    double perCycle = (nanos - before.getOrDefault(name, 0L)) / 1e3 / cycles;
                    if (perCycle >= 0.5) {
                        out.printf(Locale.ROOT, "  %-40s %7.1f%n", name, perCycle);
                    }
                });
                out.printf(Locale.ROOT, "  wall %.1f us per cycle%n", wall / 1e3 / cycles);
            } finally {
                for (CuratorFramework client : clients) {
                    client.close();
                }
            }
        }
    }

    private static Map<String, Long> cpuByName() {
        Map<String, Long> byName = new TreeMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info != null) {
                long cpu = THREADS.getThreadCpuTime(info.getThreadId());
                if (cpu > 0) {
                    byName.merge(info.getThreadName().replaceAll("[0-9]+", "#"), cpu, Long::sum);
                }
            }
        }
        return byName;
    }
}
