package io.zklock.conformance.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.conformance.harness.Recipe;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockException;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.MultiLockEngine;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Promises that broke under faults, each a named test run against every recipe: a lost
 * session's node is deleted on reconnection instead of blocking every waiter until the server
 * expires the session; a closed client is reported as closed, never as a timeout; a reply or
 * event handler that throws fails the caller and leaves no node.
 */
class ClientFaultsTest extends ServerFaults {
    /** Short enough to keep the tests quick, long enough that the restarted server keeps the session a while. */
    private static final int HOLDER_SESSION_MS = 4_000;
    /**
     * A lock directory reaped between its making and the create of a node in it (the server
     * reaps an empty container at any moment) is made again and the create retried, inside the
     * caller's deadline and invisibly to it. Just before a request reaches the server the
     * proxy deletes what it needs: the directory before a node's create, the parent before
     * the directory's own create (while the client makes the chain of parents). The
     * acquisition must still be granted, on a new directory and again on a re-acquire.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void directoryReapedUnderACreateIsMadeAgainInsideTheDeadline(Recipe recipe) throws Exception {
        CuratorFramework reaper = checker;
        String root = path;
        path = root + "/lock";
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework proxied = proxied(proxy, SESSION_MS);
        DistributedLock lock = recipe.create(proxied, path);
        for (int round = 0; round < 2; round++) {
            AtomicInteger reaped = new AtomicInteger();
            proxy.beforeRequest((opcode, node) -> {
                if (node == null || !node.startsWith(root + "/") || reaped.get() >= 6) {
                    return;
                }
                String reap;
                if (opcode == OpCode.createContainer) {
                    reap = node.substring(0, node.lastIndexOf('/'));      // the parent of a directory being made
                } else if (opcode == OpCode.create || opcode == OpCode.create2 || opcode == OpCode.multi) {
                    reap = node.contains("/_c_") ? node.substring(0, node.lastIndexOf('/')) : node;
                } else {
                    return;
                }
                try {
                    reaper.delete().forPath(reap);
                    reaped.incrementAndGet();
                } catch (KeeperException.NoNodeException | KeeperException.NotEmptyException e) {
                    // nothing to reap at this moment
                }
            });
            Optional<Lease> got = assertTimeoutPreemptively(Duration.ofSeconds(30),
                    () -> lock.tryAcquire(Duration.ofSeconds(20)));
            proxy.beforeRequest(null);
            assertTrue(got.isPresent(), "granted in round " + round);
            assertTrue(reaped.get() > 0, "the directory was reaped under a create in round " + round);
            assertTrue(got.get().isValid());
            got.get().close();
            Await.equal("nodes left", List.of(), LONG, this::nodes);
        }
    }

    /**
     * A holder whose session Curator declares LOST while the server still keeps it (and its
     * node) is told LOST, and on reconnection its client deletes that node, so the next
     * waiter is granted while the old session still lives on the server, not after the server
     * expires it. Proven by an ephemeral marker of the old session that still exists when the
     * waiter is granted.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void lostSessionsNodeIsDeletedOnReconnectionSoTheWaiterNeedNotWaitForServerExpiry(Recipe recipe)
            throws Exception {
        CuratorFramework holderClient = client(HOLDER_SESSION_MS);
        CuratorFramework waiterClient = client(SESSION_MS);
        DistributedLock holderLock = recipe.create(holderClient, path);
        DistributedLock waiterLock = recipe.rival(waiterClient, path);
        AtomicInteger order = new AtomicInteger();
        AtomicInteger lostAt = new AtomicInteger();
        List<Lease> held = holdAll(recipe, holderLock);
        held.forEach(lease -> lease.addListener((l, state) -> {
            if (state == LeaseState.LOST) {
                lostAt.compareAndSet(0, order.incrementAndGet());
            }
        }));
        String marker = holderClient.create().withMode(CreateMode.EPHEMERAL).forPath(path + "-marker");
        CompletableFuture<Lease> waiting = waiterLock.acquireAsync(LONG);
        Await.until("the waiter queued", LONG, () -> nodes().size() > Recipe.nodeCount(held));

        server.stop();
        Await.until("the holder's leases LOST", LONG,
                () -> held.stream().allMatch(l -> l.state() == LeaseState.LOST));
        server.restart();

        Lease granted = waiting.get(LONG.toSeconds(), TimeUnit.SECONDS);
        int grantedAt = order.incrementAndGet();
        assertNotNull(waiterClient.checkExists().forPath(marker),
                "the waiter was granted only once the server expired the holder's old session");
        assertTrue(lostAt.get() > 0 && lostAt.get() < grantedAt, "the holder was told LOST before the waiter's grant");
        assertTrue(granted.isValid());
        granted.close();
        held.forEach(Lease::close);
        assertEquals(LeaseState.LOST, held.get(0).state(), "closing a LOST lease keeps it LOST");
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * A client closed while one of its threads waits fails that wait with a LockException
     * naming the closed client, never a timeout; an acquisition on the closed client fails the
     * same way at once (blocking, zero timeout and asynchronous alike), and no node is left.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void closedClientIsReportedAsClosedNeverAsATimeout(Recipe recipe) throws Exception {
        CuratorFramework holderClient = client(SESSION_MS);
        CuratorFramework doomed = client(SESSION_MS);
        List<Lease> held = holdAll(recipe, recipe.create(holderClient, path));
        DistributedLock lock = recipe.rival(doomed, path);
        CompletableFuture<Throwable> blocked = outcome(() -> {
            lock.acquire().close();
            return null;
        });
        Await.until("the waiter queued", LONG, () -> nodes().size() > Recipe.nodeCount(held));
        doomed.close();
        assertClosedClient(blocked.get(LONG.toSeconds(), TimeUnit.SECONDS));
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertClosedClient(assertThrows(Throwable.class, lock::acquire));
            assertClosedClient(assertThrows(Throwable.class, () -> lock.tryAcquire(Duration.ZERO)));
            assertClosedClient(assertThrows(Throwable.class, () -> lock.tryAcquire(Duration.ofSeconds(5))));
            ExecutionException async = assertThrows(ExecutionException.class,
                    () -> lock.acquireAsync(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS));
            assertClosedClient(async.getCause());
        });
        held.forEach(Lease::close);
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * Waiters on a client seen through a namespace facade (whose first lock was made through
     * the facade) fail as every waiter does when the client is closed: a LockException naming
     * the closed client, at once, never a timeout nor an endless wait.
     */
    @Test
    void closedClientFailsWaitersSeenThroughANamespaceFacade() throws Exception {
        CuratorFramework holderClient = client(SESSION_MS);
        CuratorFramework base = client(SESSION_MS);
        CuratorFramework facade = base.usingNamespace("ns");
        Lease held = new ZkMutex(holderClient, "/ns" + path).acquire();
        ZkMutex bounded = new ZkMutex(facade, path);
        ZkMutex unbounded = new ZkMutex(facade, path);
        CompletableFuture<Throwable> boundedOutcome = outcome(() -> bounded.tryAcquire(LONG));
        CompletableFuture<Throwable> unboundedOutcome = outcome(unbounded::acquire);
        Await.until("both queued", LONG, () -> ZkTesting.lockNodesBelow(checker, "/ns" + path).size() == 3);
        base.close();
        assertClosedClient(boundedOutcome.get(20, TimeUnit.SECONDS));
        assertClosedClient(unboundedOutcome.get(20, TimeUnit.SECONDS));
        held.close();
    }

    private interface Call {
        Object call() throws Exception;
    }

    /** Runs {@code call} on another thread; completes with what it threw, or null if it returned. */
    private static CompletableFuture<Throwable> outcome(Call call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                call.call();
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
    }

    /**
     * A session loss that Curator reports late (a slow listener ahead of zklock's) never
     * touches leases granted meanwhile on the new session: they stay HELD and keep their nodes.
     */
    @Test
    void aLateLostNeverLosesNorDeletesLeasesOfTheNewSession() throws Exception {
        CuratorFramework c = client(SESSION_MS);
        Lease old = new ZkMutex(c, path + "/old").acquire();
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        old.addListener((l, state) -> {
            if (state == LeaseState.LOST) {
                inListener.countDown();
                try {
                    go.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        CompletableFuture<Void> lostHandled = new CompletableFuture<>();   // after zklock's own listener
        c.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.LOST) {
                lostHandled.complete(null);
            }
        });
        long before = currentSession(c);
        c.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        assertTrue(inListener.await(30, TimeUnit.SECONDS), "LOST delivered");
        Await.until("a new session", LONG, () -> c.getZookeeperClient().isConnected()
                && currentSession(c) != 0 && currentSession(c) != before);
        List<Lease> fresh = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            fresh.add(new ZkMutex(c, path + "/new" + i).acquire());
        }
        go.countDown();
        lostHandled.get(30, TimeUnit.SECONDS);
        for (Lease lease : fresh) {
            assertEquals(LeaseState.HELD, lease.state(), "a lease of the live session");
            assertNotNull(checker.checkExists().forPath(lease.nodePath()), "its node: " + lease.nodePath());
        }
        fresh.forEach(Lease::close);
    }

    private static void assertClosedClient(Throwable thrown) {
        assertNotNull(thrown, "the acquisition on a closed client succeeded");
        assertInstanceOf(LockException.class, thrown, "a closed client is a LockException, not " + thrown);
        assertTrue(thrown.getMessage().contains("client") && thrown.getMessage().contains("closed"),
                "the message names the closed client: " + thrown.getMessage());
    }

    /** A driver whose decision throws: stands for any failure while a reply is handled. */
    private static final LockDriver BROKEN = (sorted, ours, maxLeases) -> {
        throw new IllegalStateException("driver failure on purpose");
    };

    /**
     * An exception raised while a ZooKeeper reply is handled (here by the driver) reaches the
     * waiting caller as a LockException with that cause, at once rather than at the timeout,
     * and the attempt's node is deleted.
     */
    @Test
    void failureWhileHandlingAReplyReachesTheCallerAndLeavesNoNode() throws Exception {
        LockEngine engine = new LockEngine(client(SESSION_MS), path, new RecipeDescriptor("mutex", BROKEN, 1));
        LockException failure = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(LockException.class, () -> engine.tryAcquire(Duration.ofSeconds(30))));
        assertTrue(causes(failure, "driver failure on purpose"), "the cause is kept: " + failure);
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * The same in a multi-lock: one component whose reply handling throws fails the whole
     * acquisition with that cause, and no node of the transaction is left in any directory.
     */
    @Test
    void failureWhileHandlingAReplyFailsTheMultiLockAndLeavesNoNode() throws Exception {
        CuratorFramework client = client(SESSION_MS);
        MultiLockEngine multi = new MultiLockEngine(List.of(
                new LockEngine(client, path + "/a", new RecipeDescriptor("mutex", LockDriver.EXCLUSIVE, 1)),
                new LockEngine(client, path + "/b", new RecipeDescriptor("mutex", BROKEN, 1))));
        LockException failure = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(LockException.class, () -> multi.tryAcquire(Duration.ofSeconds(30))));
        assertTrue(causes(failure, "driver failure on purpose"), "the cause is kept: " + failure);
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * An acquisition that cannot be granted because its reply handling keeps failing does
     * not wait at all for a zero timeout either: it fails, it does not return empty.
     */
    @Test
    void failureWhileHandlingAReplyIsNotReportedAsATimeout() throws Exception {
        LockEngine engine = new LockEngine(client(SESSION_MS), path, new RecipeDescriptor("mutex", BROKEN, 1));
        LockException failure = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(LockException.class, () -> engine.tryAcquire(Duration.ZERO)));
        assertTrue(causes(failure, "driver failure on purpose"), "the cause is kept: " + failure);
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    private static boolean causes(Throwable thrown, String message) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (message.equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /**
     * A multi-lock whose transaction is cut off, and whose client then stays cut off, answers
     * at its deadline rather than when the connection comes back; the sweep of whatever the
     * transaction may have made goes on, and no node is left once the connection is back.
     */
    @Test
    void multiLockCutOffAfterItsTransactionAnswersAtItsDeadline() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework client = proxied(proxy, SESSION_MS);
        ZkMultiLock multi = new ZkMultiLock(List.of(new ZkMutex(client, path + "/a"), new ZkMutex(client, path + "/b")));
        AtomicBoolean cut = new AtomicBoolean();
        proxy.beforeRequest((opcode, node) -> {
            if (opcode == OpCode.multi && cut.compareAndSet(false, true)) {
                proxy.cut();                   // the transaction's outcome is unknown, and stays so
            }
        });
        long start = System.nanoTime();
        Optional<Lease> got = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> multi.tryAcquire(Duration.ofSeconds(1)));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(cut.get(), "the transaction was cut off");
        assertTrue(got.isEmpty(), "granted while cut off");
        assertTrue(elapsedMs < 10_000, "answered " + elapsedMs + " ms into a 1 s timeout, while still cut off");
        proxy.beforeRequest(null);
        proxy.heal();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }
}
