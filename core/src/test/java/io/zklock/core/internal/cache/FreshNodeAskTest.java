package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.internal.NodeData;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * ADOPT with no read (the client's tree watch covered the node's root from its create's reply
 * on, see TreeWatch, FRESH): an ask written into the node at any time after its create still
 * lets the permit go, here one written before the holder's client has even handled the
 * create's reply (its event thread is held by a watcher of the test's own, on the same client,
 * that fires on the create); the holder's own grant notice is not taken for an ask (a notice
 * its client writes takes the node's note, so the adoption reads it).
 */
class FreshNodeAskTest {
    /** The first maxLeases nodes hold: a semaphore's rule, as a driver of this package's tests. */
    private static final LockDriver FIRST_N = new LockDriver() {
        @Override
        public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
            return LockDriver.indexOf(sorted, ours) < maxLeases ? Decision.granted() : Decision.watchDirectory();
        }

        @Override
        public boolean announcesGrants() {
            return true;                       // as a semaphore's: a node behind at the grant gets a grant notice
        }
    };
    private static final RecipeDescriptor PERMITS = new RecipeDescriptor("sem2", FIRST_N, 2);
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    private static final LeaseCaching HOUR = LeaseCaching.keepIdleFor(Duration.ofHours(1));
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(10));

    @Test
    void anAskWrittenBeforeTheCreatesReplyIsHandledLetsThePermitGo() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework holder = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            Lease keep = new LockEngine(holder, "/fresh/keep", MUTEX, HOUR).acquire();   // the root's tree watch stays set
            LockEngine permits = new LockEngine(holder, "/fresh/p", PERMITS, HOUR);
            other.create().creatingParentsIfNeeded().forPath("/fresh/p");
            CountDownLatch asked = new CountDownLatch(1);
            holdEventThreadAtNextCreate(holder, "/fresh/p", asked);
            CompletableFuture<Lease> granted = CompletableFuture.supplyAsync(() -> acquire(permits));
            Await.until("the holder's node created", WAIT, () -> ZkTesting.children(other, "/fresh/p").size() == 1);
            String node = "/fresh/p/" + ZkTesting.children(other, "/fresh/p").get(0);
            Stat stat = new Stat();
            byte[] data = other.getData().storingStatIn(stat).forPath(node);
            other.setData().withVersion(stat.getVersion()).forPath(node, NodeData.withAskBack(data, "a-waiter-gone-since"));
            assertTrue(!granted.isDone(), "the holder's client has not handled the create's reply yet");
            asked.countDown();
            Lease lease = granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(node, lease.nodePath());
            lease.close();
            Await.equal("the asked permit let go at its close", List.of(), WAIT, () -> ZkTesting.children(other, "/fresh/p"));
            keep.close();
        }
    }

    @Test
    void anAskWrittenAfterAnAdoptionWithNoReadIsHeard() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework holder = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            Lease keep = new LockEngine(holder, "/fresh/keep", MUTEX, HOUR).acquire();
            LockEngine permits = new LockEngine(holder, "/fresh/q", PERMITS, HOUR);
            Lease lease = permits.acquire();
            Stat stat = new Stat();
            byte[] data = other.getData().storingStatIn(stat).forPath(lease.nodePath());
            other.setData().withVersion(stat.getVersion()).forPath(lease.nodePath(), NodeData.withAskBack(data, "a-waiter"));
            Thread.sleep(200);                 // the write's event heard: nothing more granted on the node
            try (Lease second = permits.acquire()) {
                assertTrue(!second.nodePath().equals(lease.nodePath()), "an asked node is not granted again");
            }
            lease.close();
            Await.until("the asked permit let go at its close", WAIT,
                    () -> !ZkTesting.children(other, "/fresh/q").contains(name(lease.nodePath())));
            permits.releaseCachedNodes();
            keep.close();
        }
    }

    /**
     * The holder's own grant notice (written because a node queued behind it when it was
     * granted) is not taken for an ask: the permit is kept at its close and granted again.
     */
    @Test
    void theHoldersOwnGrantNoticeIsNotAnAsk() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework holder = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            Lease keep = new LockEngine(holder, "/fresh/keep", MUTEX, HOUR).acquire();
            LockEngine permits = new LockEngine(holder, "/fresh/r", PERMITS, HOUR);
            String first = otherNode(other, "/fresh/r");
            String second = otherNode(other, "/fresh/r");            // both permits taken: the holder waits
            CompletableFuture<Lease> granted = CompletableFuture.supplyAsync(() -> acquire(permits));
            Await.until("the holder queued", WAIT, () -> ZkTesting.children(other, "/fresh/r").size() == 3);
            String behind = otherNode(other, "/fresh/r");            // behind the holder when it is granted, holding too
            other.transaction().forOperations(other.transactionOp().delete().forPath(first),
                    other.transactionOp().delete().forPath(second));   // at once: the granting listing shows a holder behind, no waiter
            Lease lease = granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            Await.until("the grant notice written", WAIT, () -> new String(data(other, lease.nodePath())).contains("granted"));
            lease.close();
            Thread.sleep(500);                 // what letting go of an asked node takes well within
            assertEquals(2, ZkTesting.children(other, "/fresh/r").size(), "the permit is kept: its own notice asked nothing");
            try (Lease again = permits.acquire()) {
                assertEquals(lease.nodePath(), again.nodePath(), "granted again locally");
            }
            other.delete().forPath(behind);
            permits.releaseCachedNodes();
            keep.close();
        }
    }

    /** A node of another client, not a caching one, queued in {@code dir} under the test driver's kind. */
    private static String otherNode(CuratorFramework other, String dir) throws Exception {
        return other.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(dir + "/"
                + LockNode.protectedName(LockNode.newProtectedId(false), LockNode.namePrefix("sem2")));
    }

    /**
     * Sets a children watch on {@code dir} through {@code client} that, at the next node
     * created there, holds the client's event thread until {@code release}: the create's reply,
     * which the server sends after the watch's event, is handled after that.
     */
    static void holdEventThreadAtNextCreate(CuratorFramework client, String dir, CountDownLatch release) throws Exception {
        client.getChildren().usingWatcher((org.apache.zookeeper.Watcher) event -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }).forPath(dir);
    }

    static Lease acquire(LockEngine engine) {
        try {
            return engine.acquire();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] data(CuratorFramework client, String path) {
        try {
            return client.getData().forPath(path);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
