package io.zklock.core.internal.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A waiter that watched the one node ahead of it is granted on that node's deletion with no
 * listing when nothing else was ahead in its last queue, for a driver whose grants stand as nodes
 * go and others queue behind (the mutex's); with something else ahead, or for a driver that does
 * not say so, it lists as before. The waiter's client reaches the server through a proxy that
 * counts its listings.
 */
class DeletionGrantTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    /** The mutex's rule, from a driver that does not declare that its grants stand. */
    private static final RecipeDescriptor UNDECLARED = new RecipeDescriptor("lock",
            (sorted, ours, maxLeases) -> LockDriver.EXCLUSIVE.decide(sorted, ours, maxLeases), 1);
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(20));

    private TestingServer server;
    private FaultProxy proxy;
    private CuratorFramework holder;
    private CuratorFramework middle;
    private CuratorFramework waiter;
    private final AtomicInteger listings = new AtomicInteger();   // the waiter's getChildren requests
    private final AtomicInteger reads = new AtomicInteger();      // the waiter's getData requests (its watches)

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
        proxy = FaultProxy.to(server.getConnectString());
        holder = ZkTesting.client(server.getConnectString(), 60_000);
        middle = ZkTesting.client(server.getConnectString(), 60_000);
        waiter = ZkTesting.client(proxy.connectString(), 60_000);
        proxy.beforeRequest((opcode, path) -> {
            if (opcode == OpCode.getChildren || opcode == OpCode.getChildren2) {
                listings.incrementAndGet();
            } else if (opcode == OpCode.getData) {
                reads.incrementAndGet();
            }
        });
    }

    @AfterEach
    void stop() throws Exception {
        waiter.close();
        middle.close();
        holder.close();
        proxy.close();
        server.close();
    }

    @Test
    void aWaiterRightBehindTheHolderIsGrantedOnTheHoldersDeletionWithNoListing() throws Exception {
        assertEquals(0, listingsOfAHandOff(MUTEX), "the waiter's listings between its watch and its grant");
    }

    @Test
    void aDriverThatDoesNotDeclareItsGrantsStandListsOnTheDeletion() throws Exception {
        assertEquals(1, listingsOfAHandOff(UNDECLARED), "the waiter's listings between its watch and its grant");
    }

    /**
     * Holder and waiter on one client: the waiter lists on the holder's deletion, so that the
     * holder's lease is told RELEASED (at its delete's reply, which this session receives after
     * the deletion's event) before the waiter's is granted.
     */
    @Test
    void aWaiterBehindANodeOfItsOwnSessionListsOnItsDeletion() throws Exception {
        Lease held = new LockEngine(waiter, "/d/own", MUTEX).acquire();
        CompletableFuture<Lease> waiting = new LockEngine(waiter, "/d/own", MUTEX).acquireAsync(Duration.ofSeconds(60));
        Await.until("the waiter watches the holder", WAIT, () -> reads.get() == 1);
        quiet();
        int before = listings.get();
        AtomicInteger releasedFirst = new AtomicInteger();
        waiting.thenRun(() -> releasedFirst.set(held.state() == LeaseState.RELEASED ? 1 : 2));
        held.close();
        Lease granted = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(before + 1, listings.get(), "the waiter's listings on its own session's node's deletion");
        Await.until("the grant's order told", WAIT, () -> releasedFirst.get() != 0);
        assertEquals(1, releasedFirst.get(), "the holder's lease was not RELEASED when the waiter was granted");
        granted.close();
    }

    /**
     * Holder, middle waiter, waiter: when the middle waiter's client goes (its session, and its
     * node, end), the waiter hears its node go but still has the holder ahead in its last queue,
     * so it lists and waits for the holder; the holder's release then grants it with no further
     * listing.
     */
    @Test
    void aWaiterWhosePredecessorGoesWhileTheHolderHoldsListsAndWaitsForTheHolder() throws Exception {
        Lease held = new LockEngine(holder, "/d/gives-up", MUTEX).acquire();
        new LockEngine(middle, "/d/gives-up", MUTEX).acquireAsync(Duration.ofSeconds(60));
        Await.until("the middle waiter queued", WAIT, () -> ZkTesting.children(holder, "/d/gives-up").size() == 2);
        CompletableFuture<Lease> waiting = new LockEngine(waiter, "/d/gives-up", MUTEX).acquireAsync(Duration.ofSeconds(60));
        Await.until("the waiter watches the middle waiter", WAIT, () -> reads.get() == 1);
        int before = listings.get();

        middle.close();
        Await.until("the waiter listed on its predecessor's deletion and watches the holder, or was granted", WAIT,
                () -> reads.get() == 2 || waiting.isDone());
        quiet();
        assertFalse(waiting.isDone(), "granted while the holder holds");
        assertEquals(before + 1, listings.get(), "the waiter's listings on its predecessor's deletion");

        held.close();
        Lease granted = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(LeaseState.HELD, granted.state());
        assertEquals(before + 1, listings.get(), "the waiter's listings on the holder's deletion");
        granted.close();
    }

    /**
     * The holder releases while the waiter's connection is cut: back on its session, the waiter
     * hears the deletion when ZooKeeper sets its watch again, and lists once before its grant
     * rather than decide on the queue it knew before the connection went.
     */
    @Test
    void aDeletionToldAfterAReconnectionListsBeforeTheGrant() throws Exception {
        Lease held = new LockEngine(holder, "/d/cut", MUTEX).acquire();
        CompletableFuture<Lease> waiting = new LockEngine(waiter, "/d/cut", MUTEX).acquireAsync(Duration.ofSeconds(60));
        Await.until("the waiter watches the holder", WAIT, () -> reads.get() == 1);
        quiet();
        long session = waiter.getZookeeperClient().getZooKeeper().getSessionId();
        int before = listings.get();
        proxy.cut();
        Await.equal("the waiter cut off", false, WAIT, () -> waiter.getZookeeperClient().isConnected());
        held.close();
        proxy.heal();
        Lease granted = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(LeaseState.HELD, granted.state());
        assertEquals(session, waiter.getZookeeperClient().getZooKeeper().getSessionId(), "the same session throughout");
        assertTrue(listings.get() > before, "the waiter granted with no listing after its reconnection");
        granted.close();
    }

    /** Listings the waiter sends from its watch on the holder's node until it is granted, behind a holder it alone waits for. */
    private int listingsOfAHandOff(RecipeDescriptor recipe) throws Exception {
        Lease held = new LockEngine(holder, "/d/hand-off", recipe).acquire();
        CompletableFuture<Lease> waiting = new LockEngine(waiter, "/d/hand-off", recipe).acquireAsync(Duration.ofSeconds(60));
        Await.until("the waiter watches the holder", WAIT, () -> reads.get() == 1);
        quiet();
        int before = listings.get();
        held.close();
        Lease granted = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(LeaseState.HELD, granted.state());
        assertEquals(1, ZkTesting.children(holder, "/d/hand-off").size(), "only the waiter's node is left");
        int listed = listings.get() - before;
        granted.close();
        return listed;
    }

    /** Until the waiter's session has sent nothing for 300 ms: its watch and whatever came before are answered. */
    private void quiet() throws Exception {
        long session = waiter.getZookeeperClient().getZooKeeper().getSessionId();
        new ZkProbe(server.getPort()).awaitQuiet(Set.of(session), Duration.ofMillis(300), WAIT);
    }
}
