package io.zklock.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;
import org.apache.curator.framework.CuratorFramework;

/**
 * What every conformance class shares: one embedded server, a fresh lock path per try, clients
 * closed after each try, and the helpers that queue waiters, run threads and check for leaks.
 */
abstract class ConformanceSupport {
    static final Duration LONG = Duration.ofSeconds(60);
    static final int SESSION_TIMEOUT_MS = 15_000;

    final SharedServer zk = SharedServer.get();
    final List<CuratorFramework> clients = new CopyOnWriteArrayList<>();
    final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    String path;

    /** The recipe under test. */
    abstract Recipe recipe();

    @BeforeTry
    void freshPath() {
        path = "/conformance/" + recipe().name() + "-" + UUID.randomUUID();
        errors.clear();
    }

    @AfterTry
    void closeClients() {
        clients.forEach(CuratorFramework::close);
        clients.clear();
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** One new session each, with one lock object on the try's path. */
    List<DistributedLock> locksOnNewSessions(int sessions) {
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            CuratorFramework client = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
            clients.add(client);
            locks.add(recipe().create(client, path));
        }
        return locks;
    }

    /** Takes every lease the recipe admits at once, from separate threads' view of one session. */
    List<Lease> fillToCapacity(DistributedLock lock) throws Exception {
        List<Lease> leases = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < recipe().capacity(); i++) {
            threads.add(start("holder-" + i, () -> leases.add(lock.acquire())));
        }
        joinAll(threads);
        assertEquals(recipe().capacity(), leases.size());
        return leases;
    }

    /** Waits for the first of {@code pending} to be granted, removes it from the list and returns its lease. */
    static Lease firstGranted(List<CompletableFuture<Lease>> pending) throws Exception {
        CompletableFuture.anyOf(pending.toArray(CompletableFuture[]::new)).get(LONG.toSeconds(), TimeUnit.SECONDS);
        for (CompletableFuture<Lease> f : pending) {
            if (f.isDone()) {
                pending.remove(f);
                return f.get();
            }
        }
        throw new AssertionError("no request completed");
    }

    /**
     * One cheap request on every client: a ZooKeeper client pings only after a third of its
     * session timeout without sending, so for that long after this, a session that sends a
     * packet does so because the lock woke it.
     */
    void touchAll() throws Exception {
        for (CuratorFramework client : clients) {
            client.checkExists().forPath("/");
        }
    }

    /** Lock nodes currently in the try's directory. */
    int lockNodes() {
        CuratorFramework any = clients.get(0);
        return (int) ZkTesting.children(any, path).stream().filter(n -> n.startsWith("_c_")).count();
    }

    static long sequenceOf(Lease lease) {
        String name = lease.nodePath().substring(lease.nodePath().lastIndexOf('-') + 1);
        return Long.parseLong(name);
    }

    /** No lock node of this try is left, and the server holds no watch, while the clients are open. */
    void assertClean() {
        assertEquals(List.of(), List.copyOf(errors));
        CuratorFramework any = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
        clients.add(any);
        Await.equal("nodes left under " + path, List.of(), LONG, () -> ZkTesting.lockNodesBelow(any, path));
        Await.equal("watches left on the server", 0, LONG, zk.probe::watchCount);
    }

    interface Body {
        void run(int index) throws Exception;
    }

    interface Step {
        void run() throws Exception;
    }

    /** Runs {@code n} threads released together; fails with the first error any of them hit. */
    void runThreads(int n, Body body) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            threads.add(start("worker-" + i, () -> {
                go.await();
                body.run(index);
            }));
        }
        go.countDown();
        joinAll(threads);
    }

    Thread start(String name, Step step) {
        Thread t = new Thread(() -> {
            try {
                step.run();
            } catch (Throwable e) {
                errors.add(e);
            }
        }, name);
        t.start();
        return t;
    }

    void joinAll(List<Thread> threads) throws Exception {
        long deadline = System.nanoTime() + Await.scaled(LONG).toNanos();
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                throw new AssertionError("thread " + t.getName() + " still running: a waiter was stranded");
            }
        }
        if (!errors.isEmpty()) {
            AssertionError failure = new AssertionError("a worker failed: " + errors.peek(), errors.peek());
            errors.clear();
            throw failure;
        }
    }

    static void sleep(int millis) throws InterruptedException {
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }
}
