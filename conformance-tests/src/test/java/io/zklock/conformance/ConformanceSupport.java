package io.zklock.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
import io.zklock.core.LeaseState;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;

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

    /** Session timeout of the holder in {@link #closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone}: outlives the outage. */
    static final int OUTAGE_SESSION_TIMEOUT_MS = 30_000;
    /** How long a close while disconnected may take: it must not wait for the connection. */
    static final Duration PROMPT_CLOSE = Duration.ofSeconds(3);

    /**
     * Lease state is never optimistic: a lease {@code make} takes on a dedicated
     * server, closed while that server is down (the session survives), is not RELEASED and the
     * close returns promptly; once the server is back the node is deleted, the lease is
     * RELEASED, and a listener was told RELEASED exactly once.
     */
    void closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone(LeaseMaker make) throws Exception {
        try (TestingServer server = new TestingServer(true)) {
            CuratorFramework client = ZkTesting.client(server.getConnectString(), OUTAGE_SESSION_TIMEOUT_MS);
            try {
                Lease lease = make.take(client, path);
                List<String> nodes = nodesOf(lease);
                List<LeaseState> told = new CopyOnWriteArrayList<>();
                lease.addListener((l, state) -> told.add(state));
                server.stop();
                Await.equal("lease state with the server down", LeaseState.SUSPENDED, LONG, lease::state);
                long start = System.nanoTime();
                lease.close();
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertTrue(took.compareTo(Await.scaled(PROMPT_CLOSE)) < 0, "close while cut off took " + took);
                assertNotEquals(LeaseState.RELEASED, lease.state(), "state right after a close that cannot reach ZooKeeper");
                assertEquals(0, Collections.frequency(told, LeaseState.RELEASED), "RELEASED told while the node exists: " + told);
                server.restart();
                Await.equal("lease state once the server is back", LeaseState.RELEASED, LONG, lease::state);
                for (String node : nodes) {
                    assertNull(client.checkExists().forPath(node), "node " + node + " after RELEASED");
                }
                Await.equal("RELEASED told", 1, LONG, () -> Collections.frequency(told, LeaseState.RELEASED));
                Thread.sleep(100);
                assertEquals(1, Collections.frequency(told, LeaseState.RELEASED), "RELEASED told exactly once: " + told);
            } finally {
                client.close();
            }
        }
    }

    /** The nodes that carry {@code lease}: its own, or each component's for a multi-lease. */
    static List<String> nodesOf(Lease lease) {
        if (lease instanceof ZkMultiLock.MultiLease multi) {
            return multi.components().stream().map(Lease::nodePath).toList();
        }
        return List.of(lease.nodePath());
    }

    interface LeaseMaker {
        Lease take(CuratorFramework client, String path) throws Exception;
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
