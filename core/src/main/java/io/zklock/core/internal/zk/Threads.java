package io.zklock.core.internal.zk;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The engine's two shared daemon pools. */
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
