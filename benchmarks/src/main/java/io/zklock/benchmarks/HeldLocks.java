package io.zklock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.zklock.benchmarks.Recipes.Held;
import io.zklock.benchmarks.Recipes.Lock;
import org.apache.curator.framework.CuratorFramework;

/**
 * Scenario 10: one client holds many distinct mutexes at once, then releases them.
 *
 * <p>The client runs in a JVM of its own (this class's {@link #main}), so that the heap it
 * measures is the client's alone: the embedded server, with a node and a directory per lock,
 * lives in the benchmark's JVM. The child talks to the parent by lines on its standard streams:
 * <pre>
 *   child  READY                  connected and warmed up (a few hundred cycles on other paths)
 *   child  HELD                   every lock acquired; the parent reads the server's watches
 *   parent release                the child releases every lock
 *   child  DONE acquireWall releaseWall heapBaseline heapHeld heapReleased cpuNanos
 *   child  ACQ n n n ...          acquire latencies, nanoseconds
 *   child  REL n n n ...          release latencies
 * </pre>
 * Heap is the used heap after full collections: before any lock object exists, with every
 * lock held, and after every release with the lock objects still reachable. So
 * (held - released) / N is the heap of a held lease, and (released - baseline) / N what a lock
 * object keeps once released. Requests and notifications count from READY to DONE.
 */
final class HeldLocks {
    private static final String MAIN = HeldLocks.class.getName();

    private HeldLocks() {
    }

    /** The scenario's workload for one library: each round is one child JVM. */
    static Scenario.Workload workload(Recipes recipes, String connectString, String root, Benchmarks.Options sizes) {
        var w = new Scenario.Workload(connectString);
        w.maxRounds = sizes.heldRounds();       // 2: each library once first, once second
        int[] round = {0};
        w.round = self -> child(self, recipes, root + "/r" + round[0]++, sizes.held(), sizes.heldThreads());
        return w;
    }

    private static Run.Result child(Scenario.Workload w, Recipes recipes, String root, int count, int threads)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var command = List.of(java, "-Xms256m", "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), MAIN,
                recipes.name(), w.connectString, root, Integer.toString(count), Integer.toString(threads));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (var in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                Writer out = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8)) {
            int watchesBefore = w.counters.watchCount();
            expect(in, "READY");
            long packets = w.counters.packetsReceived();
            long[] notified = NotificationCounter.snapshot();
            expect(in, "HELD");
            w.figure("server watches while held", w.counters.watchCount() - watchesBefore);
            out.write("release\n");
            out.flush();
            String[] done = expect(in, "DONE").split(" ");
            var result = new Run.Result(2);
            result.packets = w.counters.packetsReceived() - packets;
            result.notifications = NotificationCounter.delta(notified, NotificationCounter.snapshot());
            result.cpuNanos = Long.parseLong(done[6]);      // the client's; the runner adds the server's
            result.wallNanos = Long.parseLong(done[1]) + Long.parseLong(done[2]);
            long baseline = Long.parseLong(done[3]);
            long held = Long.parseLong(done[4]);
            long released = Long.parseLong(done[5]);
            w.figure("heap per held lease, bytes", (double) (held - released) / count);
            w.figure("heap per lock object after release, bytes", (double) (released - baseline) / count);
            parseSamples(expect(in, "ACQ"), result.metrics[0]);
            parseSamples(expect(in, "REL"), result.metrics[1]);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the held-locks client did not exit");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("the held-locks client exited with " + process.exitValue());
            }
            return result;
        } finally {
            process.destroyForcibly();
        }
    }

    private static String expect(BufferedReader in, String word) throws IOException {
        String line = in.readLine();
        if (line == null || !(line.equals(word) || line.startsWith(word + " "))) {
            throw new IllegalStateException("the held-locks client said '" + line + "', expected " + word);
        }
        return line;
    }

    private static void parseSamples(String line, Samples into) {
        String[] parts = line.split(" ");
        for (int i = 1; i < parts.length; i++) {
            into.add(Long.parseLong(parts[i]));
        }
    }

    /** The child: {@code <library> <connectString> <root> <count> <threads>}; see the class comment. */
    public static void main(String[] args) throws Exception {
        Recipes recipes = args[0].equals(Recipes.ZKLOCK.name()) ? Recipes.ZKLOCK : Recipes.CURATOR;
        String connectString = args[1];
        String root = args[2];
        int count = Integer.parseInt(args[3]);
        int threads = Integer.parseInt(args[4]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        CuratorFramework client = Scenario.Workload.start(connectString);
        Scenario.Workload.awaitConnected(client, connectString);
        var stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

        // warm-up on other paths, the same number of cycles on both sides
        Lock[] warm = new Lock[Math.min(count, 500)];
        for (int i = 0; i < warm.length; i++) {
            warm[i] = recipes.mutex(client, root + "-warm/w" + i);
        }
        inThreads(threads, warm.length, (t, i) -> warm[i].acquire().release());
        long baseline = usedHeapAfterGc();
        out.println("READY");

        Lock[] locks = new Lock[count];
        Held[] held = new Held[count];
        long[] acquireNanos = new long[count];
        long[] releaseNanos = new long[count];
        for (int i = 0; i < count; i++) {
            locks[i] = recipes.mutex(client, root + "/h" + i);
        }
        long cpu = Run.Result.processCpuNanos();       // the acquires' and releases', not the collections'
        long t0 = System.nanoTime();
        var allHeld = new CountDownLatch(threads);
        var release = new CountDownLatch(1);
        long[] releaseStart = new long[1];
        var failure = new AtomicReference<Throwable>();
        var workers = new ArrayList<Thread>();
        for (int t = 0; t < threads; t++) {
            int first = t;
            Thread worker = new Thread(() -> {
                try {
                    for (int i = first; i < count; i += threads) {
                        long s = System.nanoTime();
                        held[i] = locks[i].acquire();
                        acquireNanos[i] = System.nanoTime() - s;
                    }
                    allHeld.countDown();
                    release.await();
                    // Curator's mutex is released by the thread that took it
                    for (int i = first; i < count; i += threads) {
                        long s = System.nanoTime();
                        held[i].release();
                        held[i] = null;
                        releaseNanos[i] = System.nanoTime() - s;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    allHeld.countDown();
                }
            }, "held-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        allHeld.await();
        long acquireWall = System.nanoTime() - t0;
        cpu = Run.Result.processCpuNanos() - cpu;
        check(failure);
        long heldHeap = usedHeapAfterGc();
        out.println("HELD");
        if (!"release".equals(stdin.readLine())) {
            throw new IllegalStateException("the parent did not ask for the release");
        }
        long releaseCpu = Run.Result.processCpuNanos();
        releaseStart[0] = System.nanoTime();
        release.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long releaseWall = System.nanoTime() - releaseStart[0];
        check(failure);
        cpu += Run.Result.processCpuNanos() - releaseCpu;
        long releasedHeap = usedHeapAfterGc();
        Reference.reachabilityFence(locks);
        out.println("DONE " + acquireWall + " " + releaseWall + " " + baseline + " " + heldHeap + " " + releasedHeap
                + " " + cpu);
        out.println("ACQ " + join(acquireNanos));
        out.println("REL " + join(releaseNanos));
        client.close();
        System.exit(0);
    }

    @FunctionalInterface
    private interface Step {
        void run(int thread, int index) throws Exception;
    }

    private static void inThreads(int threads, int count, Step step) throws InterruptedException {
        var failure = new AtomicReference<Throwable>();
        var all = new ArrayList<Thread>();
        for (int t = 0; t < threads; t++) {
            int first = t;
            Thread thread = new Thread(() -> {
                try {
                    for (int i = first; i < count; i += threads) {
                        step.run(first, i);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            thread.setDaemon(true);
            all.add(thread);
            thread.start();
        }
        for (Thread thread : all) {
            thread.join();
        }
        check(failure);
    }

    private static void check(AtomicReference<Throwable> failure) {
        if (failure.get() != null) {
            throw new IllegalStateException("a held-locks worker failed", failure.get());
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        var memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    private static String join(long[] values) {
        var sb = new StringBuilder(values.length * 8);
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(values[i]);
        }
        return sb.toString();
    }
}
