package io.zklock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs workers on threads of their own until a deadline, each worker doing whole operations
 * and timing them itself; an operation in flight at the deadline is finished, not cut. The
 * result is per-metric samples (metric 0 counts the operations), the wall time from the
 * common start to the last worker's end, and nothing else: the caller counts requests.
 */
final class Run {
    /** One thread's loop body: one operation, timed into {@code metrics}. */
    @FunctionalInterface
    interface Worker {
        void op(Samples[] metrics) throws Exception;
    }

    /** Samples per metric, merged over threads and rounds, and the wall time they took. */
    static final class Result {
        final Samples[] metrics;
        long wallNanos;
        /**
         * Server requests and notifications (by {@link NotificationCounter.Kind}) of a round
         * that counted its own, because the caller's before/after would include set-up it does
         * not measure; -1 and null when the caller counts.
         */
        long packets = -1;
        long[] notifications;
        /** Client CPU time of a round whose client ran in a JVM of its own; -1 when the caller counts. */
        long cpuNanos = -1;

        /** CPU time this JVM has used so far, all threads (the clients' and the embedded server's). */
        static long processCpuNanos() {
            return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                    .getOperatingSystemMXBean()).getProcessCpuTime();
        }

        Result(int metricCount) {
            metrics = new Samples[metricCount];
            for (int i = 0; i < metricCount; i++) {
                metrics[i] = new Samples();
            }
        }

        long ops() {
            return metrics[0].size();
        }

        void add(Result other) {
            for (int i = 0; i < metrics.length; i++) {
                metrics[i].addAll(other.metrics[i]);
            }
            wallNanos += other.wallNanos;
        }
    }

    private Run() {
    }

    /** Runs every worker in its own thread, starting together, for {@code durationNanos}. */
    static Result forDuration(List<Worker> workers, int metricCount, long durationNanos) throws Exception {
        var start = new CountDownLatch(1);
        var failure = new AtomicReference<Throwable>();
        var perThread = new ArrayList<Samples[]>();
        var threads = new ArrayList<Thread>();
        long[] deadline = new long[1];
        for (int i = 0; i < workers.size(); i++) {
            Worker worker = workers.get(i);
            Samples[] mine = new Result(metricCount).metrics;
            perThread.add(mine);
            Thread t = new Thread(() -> {
                long[] cost = null;
                try {
                    start.await();
                    cost = ClientCost.workerStarted();
                    while (System.nanoTime() < deadline[0] && failure.get() == null) {
                        worker.op(mine);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    if (cost != null) {
                        ClientCost.workerStopped(cost);
                    }
                }
            }, "bench-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        long begin = System.nanoTime();
        deadline[0] = begin + durationNanos;     // published to the workers by the latch
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        var result = new Result(metricCount);
        result.wallNanos = System.nanoTime() - begin;
        if (failure.get() != null) {
            throw new IllegalStateException("a benchmark worker failed", failure.get());
        }
        for (Samples[] mine : perThread) {
            for (int m = 0; m < metricCount; m++) {
                result.metrics[m].addAll(mine[m]);
            }
        }
        return result;
    }
}
