package io.zklock.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * What every story runs on: the ensemble's address, the demo's own root path in it, the
 * timeline, the terminal, and the sessions (one {@code CuratorFramework} client each, so every
 * session is a separate ZooKeeper session, as separate processes would be).
 */
final class Stage implements AutoCloseable {
    /** The session timeout of the ordinary sessions; the fencing story chooses its own. */
    private static final int SESSION_TIMEOUT_MS = 10_000;

    final String connectString;
    final String root;
    final Duration duration;
    final Duration sessionTimeout;
    final Duration connectTimeout;
    final Timeline timeline;
    /** What every session's builder gets besides its address: the client configuration and credentials given. */
    private final UnaryOperator<CuratorFrameworkFactory.Builder> security;
    private final PrintWriter out;
    private final long started = System.nanoTime();
    private final List<CuratorFramework> sessions = new ArrayList<>();

    Stage(String connectString, String root, Duration duration, Duration sessionTimeout, Duration connectTimeout,
            Timeline timeline, PrintWriter out) {
        this(connectString, root, duration, sessionTimeout, connectTimeout, timeline, out, UnaryOperator.identity());
    }

    Stage(String connectString, String root, Duration duration, Duration sessionTimeout, Duration connectTimeout,
            Timeline timeline, PrintWriter out, UnaryOperator<CuratorFrameworkFactory.Builder> security) {
        this.security = security;
        this.connectString = connectString;
        this.root = root;
        this.duration = duration;
        this.sessionTimeout = sessionTimeout;
        this.connectTimeout = connectTimeout;
        this.timeline = timeline;
        this.out = out;
    }

    /** A new connected session, closed with the stage. */
    CuratorFramework session() throws InterruptedException {
        return session(connectString, SESSION_TIMEOUT_MS);
    }

    /**
     * A new connected session to {@code address} with its own session timeout.
     *
     * @throws Unreachable if it cannot connect within the connect timeout
     */
    CuratorFramework session(String address, int sessionTimeoutMs) throws InterruptedException {
        CuratorFramework client = security.apply(CuratorFrameworkFactory.builder())
                .connectString(address)
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs((int) connectTimeout.toMillis())
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        synchronized (sessions) {
            sessions.add(client);
        }
        client.start();
        if (!client.blockUntilConnected((int) connectTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new Unreachable(connectString, connectTimeout);
        }
        return client;
    }

    /** Prints a line now, prefixed by the time since the demo began. */
    void say(String line) {
        synchronized (out) {
            // one fixed form, so the stamps line up (Durations would print "10 s" beside "9.5 s")
            out.printf(Locale.ROOT, "%6.1f s  %s%n", (System.nanoTime() - started) / 1e9, line);
            out.flush();
        }
    }

    /** Prints a line without a time stamp. */
    void print(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    /**
     * Runs one thread per worker until each returns, printing {@code progress} every quarter
     * of the story's duration meanwhile; a worker's failure fails the story.
     */
    void runWorkers(List<Worker> workers, Supplier<String> progress) throws Exception {
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            Thread t = new Thread(() -> {
                try {
                    w.run();
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "zklock-demo-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        long tick = Math.max(100, duration.toMillis() / 4);
        for (Thread t : threads) {
            while (t.isAlive()) {
                t.join(tick);
                if (t.isAlive()) {
                    say("  " + progress.get());
                }
            }
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    /** {@code System.nanoTime()} at which a story that starts now stops. */
    long deadline() {
        return System.nanoTime() + duration.toNanos();
    }

    /** The text of a UTF-8 node, as a long. */
    static long readLong(CuratorFramework client, String path) throws Exception {
        return Long.parseLong(new String(client.getData().forPath(path), StandardCharsets.UTF_8));
    }

    static void writeLong(CuratorFramework client, String path, long value) throws Exception {
        client.setData().forPath(path, Long.toString(value).getBytes(StandardCharsets.UTF_8));
    }

    /** Closes every session of the stage. */
    @Override
    public void close() {
        synchronized (sessions) {
            sessions.forEach(CuratorFramework::close);
            sessions.clear();
        }
    }

    /** A session's loop; runs on its own thread. */
    @FunctionalInterface
    interface Worker {
        void run() throws Exception;
    }

    /** ZooKeeper did not answer in time: an expected failure, reported on one line. */
    static final class Unreachable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unreachable(String address, Duration timeout) {
            super("cannot reach ZooKeeper at " + address + " within " + Durations.format(timeout), null, false, false);
        }
    }
}
