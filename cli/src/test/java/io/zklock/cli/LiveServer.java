package io.zklock.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.zklock.core.LockAdmin;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import picocli.CommandLine;

/**
 * What the end-to-end tests of {@code status} and {@code revoke} share: one embedded server
 * per test class, sessions closed after each test, and the command run in this JVM.
 */
final class LiveServer implements AutoCloseable {
    private final EmbeddedZooKeeper server;
    private final List<CuratorFramework> sessions = new ArrayList<>();

    LiveServer() throws Exception {
        server = EmbeddedZooKeeper.start();
    }

    String connect() {
        return server.connectString();
    }

    /** A new connected session, as a separate process would have. */
    CuratorFramework session() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient(server.connectString(), 30_000, 5_000, new RetryOneTime(100));
        synchronized (sessions) {
            sessions.add(c);
        }
        c.start();
        assertTrue(c.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS), "no connection to the embedded server");
        return c;
    }

    LockAdmin admin() throws InterruptedException {
        return new LockAdmin(session());
    }

    /** Closes the sessions of one test (their nodes go with them). */
    void closeSessions() {
        synchronized (sessions) {
            sessions.forEach(CuratorFramework::close);
            sessions.clear();
        }
    }

    @Override
    public void close() {
        closeSessions();
        server.close();
    }

    /** The result of one run: exit code, standard output and standard error. */
    record Run(int exit, String out, String err) {
    }

    /** Runs {@code zklock args} in this JVM. */
    static Run zklock(String... args) {
        return zklock(cli -> { }, args);
    }

    /** Runs {@code zklock args} in this JVM, after {@code setUp} saw the command line. */
    static Run zklock(Consumer<CommandLine> setUp, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Zklock.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        setUp.accept(cli);
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Runs {@code work} on a new thread named {@code name} (the owner a node records) and returns its result. */
    static <T> T onThread(String name, Callable<T> work) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(work.call());
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        }, name);
        t.start();
        return result.get();
    }

    /** Waits, up to {@code within}, until {@code condition} holds; fails with {@code what} otherwise. */
    static void await(String what, Duration within, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(20);
        }
    }
}
