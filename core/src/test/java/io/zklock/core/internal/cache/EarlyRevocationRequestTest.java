package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LockAdmin;
import io.zklock.core.RevocationResult;
import io.zklock.core.internal.zk.TreeWatch;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * A revocation request that reaches a cached node before its watch is set lets the node go at
 * its lease's close, on a real server: the request is written while the holder's client has not
 * yet handled its create's reply (its event thread is held by a watcher of the test's own, on
 * the same client, that fires on the create). Without tree watches (a 3.5 server, or
 * {@link TreeWatch#PROPERTY} off) the holder's revocation watch learns of it only by its first
 * read, the one that sets the node's data watch. With them, the request's event reaches the
 * client's tree watch before or after the node's route is set: after, the route hears it;
 * before, the node is no longer as created, and the route reads it (the run's usual order: this
 * case fails too without the read's telling the cache). Either way the lease cache must hear it, or the
 * node stays kept, idle, for its whole keep-idle time (here an hour).
 */
class EarlyRevocationRequestTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    private static final LeaseCaching HOUR = LeaseCaching.keepIdleFor(Duration.ofHours(1));
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(10));

    /** Each cached node keeps a data watch: the watch's first read finds the request and tells the cache. */
    @Test
    void aRequestFoundByANodesFirstReadLetsTheNodeGoWithoutTreeWatches() throws Exception {
        String previous = System.setProperty(TreeWatch.PROPERTY, "false");   // read as the client's tree watch is made
        try {
            requestBeforeTheCreatesReplyLetsTheNodeGo("/early/data");
        } finally {
            if (previous == null) {
                System.clearProperty(TreeWatch.PROPERTY);
            } else {
                System.setProperty(TreeWatch.PROPERTY, previous);
            }
        }
    }

    /** The client's tree watch covers the node: the request's event, queued behind the create's reply, tells the cache. */
    @Test
    void aRequestWrittenBeforeTheCreatesReplyLetsTheNodeGoWithTreeWatches() throws Exception {
        requestBeforeTheCreatesReplyLetsTheNodeGo("/early/tree");
    }

    /** Also: the handler the lease opted in with hears the request once, as it would without caching. */
    private static void requestBeforeTheCreatesReplyLetsTheNodeGo(String path) throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework holder = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engine = new LockEngine(holder, path, MUTEX, HOUR);
            other.create().creatingParentsIfNeeded().forPath(path);
            CountDownLatch requested = new CountDownLatch(1);
            FreshNodeAskTest.holdEventThreadAtNextCreate(holder, path, requested);
            CompletableFuture<Lease> granted = CompletableFuture.supplyAsync(() -> FreshNodeAskTest.acquire(engine));
            Await.until("the holder's node created", WAIT, () -> ZkTesting.children(other, path).size() == 1);
            String node = path + "/" + ZkTesting.children(other, path).get(0);
            assertEquals(RevocationResult.REQUESTED, new LockAdmin(other).requestRevocation(node));
            assertFalse(granted.isDone(), "the holder's client has not handled the create's reply yet");
            requested.countDown();
            Lease lease = granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(node, lease.nodePath());
            CountDownLatch heard = new CountDownLatch(1);
            lease.onRevocationRequested(l -> heard.countDown());
            Await.until("the handler told of the request", WAIT, () -> heard.getCount() == 0);
            lease.close();
            Await.equal("the requested node let go at its lease's close", List.of(), WAIT, () -> ZkTesting.children(other, path));
        }
    }
}
