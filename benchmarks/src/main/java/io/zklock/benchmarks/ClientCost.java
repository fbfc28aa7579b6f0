package io.zklock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client side's cost of a round, exact and cheap: bytes the client threads allocated
 * ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}), how often they waited
 * ({@link ThreadInfo#getWaitedCount()}: parks, {@code Object.wait}, sleeps) and the CPU time
 * they used ({@code getThreadCpuTime}: time on a core, so less sensitive than wall time to
 * other work on the machine; garbage collection and compilation run in no Java thread and are
 * not in it). A thread that
 * waits and is woken is one hop of a reply between threads (the ZooKeeper send thread's own
 * selector waits are native and not counted; they are the same for both libraries, one per
 * reply batch).
 *
 * <p>Client threads are every live thread that is neither the embedded server's (alive when
 * {@link ServerCounters} was made, or named like one of the server's lazily started pools),
 * nor JFR's, nor the benchmark's main thread. The workers of a round end with it, so each
 * worker adds its own figures when it stops ({@link #workerStarted()}, {@link #workerStopped}).
 * The other library's sessions idle during a round (a ping at most) and count with it.
 */
final class ClientCost {
    /** Name prefixes of the embedded server's threads that start after the server (lazily). */
    private static final String[] SERVER_THREADS = {"NIOWorkerThread", "NIOServerCxnFactory", "SyncThread",
            "ProcessThread", "SessionTracker", "ConnnectionExpirer", "RequestThrottler", "CommitProcWorkThread",
            "CommitProcessor", "ContainerManagerTask", "PurgeTask", "JFR ", "Attach Listener", "Common-Cleaner",
            "Reference Handler", "Finalizer", "Signal Dispatcher", "Notification Thread"};

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final LongAdder WORKER_BYTES = new LongAdder();
    private static final LongAdder WORKER_WAITS = new LongAdder();
    private static final LongAdder WORKER_CPU = new LongAdder();

    private final Set<Long> excluded;
    private Map<Long, long[]> before;

    /** @param serverThreads ids of threads that are not the clients' (the server's, the main thread) */
    ClientCost(Set<Long> serverThreads) {
        this.excluded = serverThreads;
    }

    /** Whether a thread named {@code name} may be a client's (not one of the server's or the JVM's). */
    static boolean clientThreadName(String name) {
        for (String prefix : SERVER_THREADS) {
            if (name.startsWith(prefix)) {
                return false;
            }
        }
        return true;
    }

    /** Marks the start of a round. */
    void begin() {
        before = snapshot();
        WORKER_BYTES.reset();
        WORKER_WAITS.reset();
        WORKER_CPU.reset();
    }

    /** {@return bytes allocated, waits and CPU nanoseconds of client threads since {@link #begin()}, index 0, 1 and 2} */
    long[] end() {
        long bytes = WORKER_BYTES.sum();
        long waits = WORKER_WAITS.sum();
        long cpu = WORKER_CPU.sum();
        for (Map.Entry<Long, long[]> now : snapshot().entrySet()) {
            long[] then = before.getOrDefault(now.getKey(), new long[3]);
            bytes += now.getValue()[0] - then[0];
            waits += now.getValue()[1] - then[1];
            cpu += now.getValue()[2] - then[2];
        }
        return new long[] {bytes, waits, cpu};
    }

    private Map<Long, long[]> snapshot() {
        var figures = new HashMap<Long, long[]>();
        ThreadInfo[] infos = THREADS.getThreadInfo(THREADS.getAllThreadIds());
        for (ThreadInfo info : infos) {
            if (info == null || excluded.contains(info.getThreadId()) || !clientThreadName(info.getThreadName())
                    || info.getThreadName().startsWith("bench-worker")) {
                continue;                       // gone, the server's, or a worker (which counts itself)
            }
            long bytes = THREADS.getThreadAllocatedBytes(info.getThreadId());
            long cpu = THREADS.getThreadCpuTime(info.getThreadId());
            if (bytes >= 0) {
                figures.put(info.getThreadId(), new long[] {bytes, info.getWaitedCount(), Math.max(0, cpu)});
            }
        }
        return figures;
    }

    /** A worker's figures now, taken on the worker thread after it was told to start. */
    static long[] workerStarted() {
        return new long[] {THREADS.getCurrentThreadAllocatedBytes(), waitedCount(), THREADS.getCurrentThreadCpuTime()};
    }

    /** Adds the worker's figures since {@code started} to the round's. */
    static void workerStopped(long[] started) {
        WORKER_BYTES.add(THREADS.getCurrentThreadAllocatedBytes() - started[0]);
        WORKER_WAITS.add(waitedCount() - started[1]);
        WORKER_CPU.add(THREADS.getCurrentThreadCpuTime() - started[2]);
    }

    private static long waitedCount() {
        ThreadInfo info = THREADS.getThreadInfo(Thread.currentThread().getId());
        return info == null ? 0 : info.getWaitedCount();
    }
}
