package io.zklock.core.internal.zk;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** The engine's two shared daemon pools, and its one wait that rides out interrupts. */
public final class Threads {
    private Threads() {
    }

    /** Deadlines and connection-loss back-off; its tasks only issue background calls. */
    public static final ScheduledThreadPoolExecutor TIMER = timer();

    /**
     * Completes the futures handed to users, so that a continuation that blocks never blocks
     * a ZooKeeper event thread (which would stall every lock on that client).
     */
    public static final ExecutorService COMPLETION = new ThreadPoolExecutor(
            0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
            daemon("zklock-completion"));

    /**
     * Waits up to {@code ms} for {@code future} to complete, whatever it completes with, through
     * interrupts; returns whether the thread was interrupted meanwhile (the caller restores the
     * flag or throws).
     */
    public static boolean awaitUninterruptibly(CompletableFuture<?> future, long ms) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        boolean interrupted = false;
        while (true) {
            try {
                future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException | CancellationException e) {
                return interrupted;
            }
        }
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, daemon("zklock-timer"));
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
