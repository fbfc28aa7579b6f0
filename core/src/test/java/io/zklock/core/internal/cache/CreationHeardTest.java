package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.internal.zk.ClientTag;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.TreeWatch;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.ReentrantLockSupport;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/**
 * ASKED, heard from a creation (a server with tree watches): a writer's node created behind a
 * cached read node, or another client's node behind a mutex's, makes its holder let go although
 * nobody writes an ask into it; a node that does not conflict, or one of the holder's own
 * client, does not. A waiter behind a holder that does not hear is still granted.
 */
class CreationHeardTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    private static final LeaseCaching HOUR = LeaseCaching.keepIdleFor(Duration.ofHours(1));
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(10));

    /** A writer's node of another client queued behind an idle cached read node, asking nothing: the cached node goes at once. */
    @Test
    void aWritersCreationBehindAnIdleCachedReadNodeReleasesIt() throws Exception {
        RecipeDescriptor read = new RecipeDescriptor("read", readDriver(), 1);
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/heard/a", read, HOUR));
            Lease first = lock.acquire();
            String kept = first.nodePath();
            first.close();
            Thread.sleep(200);                 // the kept node's read answered: its watch covers it
            String writer = other.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/heard/a/" + LockNode.protectedName(LockNode.newProtectedId(false), LockNode.namePrefix("write")));
            Await.equal("the cached node let go", List.of(NodePathsOf.name(writer)), WAIT,
                    () -> ZkTesting.children(client, "/heard/a"));
            assertTrue(!ZkTesting.children(client, "/heard/a").contains(NodePathsOf.name(kept)));
            other.delete().forPath(writer);
        }
    }

    /**
     * A writer's creation heard behind a read node in use: from the moment the holder's client
     * has processed the creation (its event thread, before anything that thread delivers later),
     * the node grants no local lease, and it goes at its last close. The holder's event thread is
     * held while the creation and the reply of a read sent after it queue behind it; that reply's
     * callback, the next thing the thread runs, tries a local grant.
     */
    @Test
    void aCreationHeardStopsLocalGrantsBeforeTheEventThreadMovesOn() throws Exception {
        RecipeDescriptor read = new RecipeDescriptor("read", readDriver(), 1);
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/heard/c", read, HOUR));
            Lease held = lock.acquire();
            String kept = held.nodePath();
            Thread.sleep(200);                 // the kept node's read answered: its watch covers it
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            CountDownLatch entered = new CountDownLatch(1);
            CompletableFuture<Void> go = new CompletableFuture<>();
            zk.exists("/heard/c", false, (rc, path, ctx, stat) -> {
                entered.countDown();
                Threads.awaitUninterruptibly(go, WAIT.toMillis());
            }, null);
            assertTrue(entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the event thread held");
            String writer = other.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/heard/c/" + LockNode.protectedName(LockNode.newProtectedId(false), LockNode.namePrefix("write")));
            CompletableFuture<Lease> after = new CompletableFuture<>();
            LeaseCache cache = LeaseCaches.existing(SessionMonitor.existing(client)).on("/heard/c").get(0);
            zk.exists(writer, false, (rc, path, ctx, stat) -> after.complete(cache.tryLocal(HOUR.idle())), null);
            Thread.sleep(200);                 // the creation and the reply queued behind the held thread
            go.complete(null);
            Lease local = after.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (local != null) {
                local.close();
            }
            assertNull(local, "no local grant once the creation was heard");
            held.close();
            Await.equal("the node let go at its last close", List.of(NodePathsOf.name(writer)), WAIT,
                    () -> ZkTesting.children(client, "/heard/c"));
            assertTrue(!ZkTesting.children(client, "/heard/c").contains(NodePathsOf.name(kept)));
            other.delete().forPath(writer);
        }
    }

    /**
     * A mutex's holder lets its idle node go on another client's node created behind it, which
     * asks nothing (an uncached or Curator-like waiter), whether or not the node is marked: its
     * client's first node is not ({@code ce} only once a tree watch was added on the client, so
     * that no waiter probes a server without them), the next one is.
     */
    @Test
    void aMutexNodeIsLetGoOnAnotherClientsCreation() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/heard/m", MUTEX, HOUR));
            for (boolean marked : new boolean[] {false, true}) {
                Lease held = lock.acquire();
                assertEquals(marked, heard(held),
                        marked ? "marked once the client's tree watch was added" : "the client's first node unmarked");
                held.close();
                Thread.sleep(200);
                String waiter = other.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .forPath("/heard/m/" + LockNode.protectedName(LockNode.newProtectedId(false), LockNode.namePrefix("lock")));
                Await.equal("the cached mutex node let go", List.of(NodePathsOf.name(waiter)), WAIT,
                        () -> ZkTesting.children(client, "/heard/m"));
                other.delete().forPath(waiter);
            }
        }
    }

    /**
     * A client whose only tree watch so far was a waiter's (it listened behind a node whose
     * holder hears creations) does not mark its first cached node: its lease caches listened to
     * no creation until that node was adopted, so a creation behind it might be missed; its next
     * node is marked.
     */
    @Test
    void aClientWhoseOnlyTreeWatchWasAWaitersDoesNotMarkItsFirstCachedNode() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework holder = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework waiter = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport held = new ReentrantLockSupport(new LockEngine(holder, "/heard/w/lock", MUTEX, HOUR));
            held.acquire().close();
            held.engine().releaseCachedNodes();
            Lease marked = held.acquire();
            assertTrue(heard(marked), "the holder's second node marked");
            CompletableFuture<Lease> granted = new LockEngine(waiter, "/heard/w/lock", MUTEX).acquireAsync(WAIT);
            Await.equal("the waiter queued", 2, WAIT, () -> ZkTesting.children(holder, "/heard/w/lock").size());
            marked.close();
            granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).close();
            assertTrue(TreeWatch.existing(SessionMonitor.existing(waiter)).proven(), "the waiter listened: a tree watch added");
            ReentrantLockSupport cached = new ReentrantLockSupport(new LockEngine(waiter, "/heard/w/other", MUTEX, HOUR));
            try (Lease first = cached.acquire()) {
                assertFalse(heard(first), "the first cached node of a client whose only tree watch was a waiter's marked");
            }
            cached.engine().releaseCachedNodes();
            try (Lease second = cached.acquire()) {
                assertTrue(heard(second), "its next node marked");
            }
            cached.engine().releaseCachedNodes();
        }
    }

    private static boolean heard(Lease lease) {
        return LockNode.parse(NodePathsOf.name(lease.nodePath())).orElseThrow().hearsCreations();
    }

    /** A node created by the holder's own client (its tag) is not taken as an ask: that client's waiter asks itself. */
    @Test
    void aCreationOfTheHoldersOwnClientIsNotTakenAsAnAsk() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/heard/own", MUTEX, HOUR));
            lock.acquire().close();
            Thread.sleep(200);
            String tag = ClientTag.of(SessionMonitor.existing(client));
            String ours = client.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/heard/own/" + LockNode.protectedName(LockNode.newProtectedId(true, tag), LockNode.namePrefix("lock")));
            Thread.sleep(500);
            assertEquals(2, ZkTesting.children(client, "/heard/own").size(), "the cached node kept");
            client.delete().forPath(ours);
            lock.engine().releaseCachedNodes();
        }
    }

    /**
     * A waiter behind a node that claims its holder hears creations, whose holder does not (a
     * node made by hand, whose "holder" lets it go only when asked, as a holder cut off or on a
     * server without tree watches): the waiter asks it after the escalation bound, and is granted.
     */
    @Test
    void aWaiterBehindAHolderThatDoesNotHearAsksAfterTheBoundAndIsGranted() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework deaf = ZkTesting.client(server.getConnectString(), 60_000)) {
            String held = deaf.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/heard/deaf/" + LockNode.protectedName(LockNode.newProtectedId(true, "0badcafe"), LockNode.namePrefix("lock")));
            java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
            deaf.getData().usingWatcher((org.apache.zookeeper.Watcher) e -> asked.countDown()).forPath(held);
            Thread deleter = new Thread(() -> {
                try {
                    asked.await();
                    deaf.delete().forPath(held);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            deleter.start();
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/heard/deaf", MUTEX, HOUR));
            long t0 = System.nanoTime();
            try (Lease granted = lock.tryAcquire(WAIT).orElseThrow()) {
                long waited = System.nanoTime() - t0;
                long bound = LeaseCaches.ESCALATION.toNanos() * LeaseCaches.HEARD_BOUND_IN_ESCALATIONS;
                assertTrue(waited >= bound, "asked only after the bound: " + waited + " ns");
            }
            deleter.join(WAIT.toMillis());
            lock.engine().releaseCachedNodes();
        }
    }

    /** A holder whose client's tree watch is off marks nothing; a waiter of another client asks it at once and is granted. */
    @Test
    void aHolderWithTreeWatchesOffIsAskedAtOnce() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport holder;
            Lease held;
            System.setProperty(TreeWatch.PROPERTY, "false");
            try {
                holder = new ReentrantLockSupport(new LockEngine(client, "/heard/off", MUTEX, HOUR));
                held = holder.acquire();
            } finally {
                System.clearProperty(TreeWatch.PROPERTY);
            }
            assertTrue(!LockNode.parse(NodePathsOf.name(held.nodePath())).orElseThrow().hearsCreations(), "not marked");
            held.close();
            ReentrantLockSupport waiter = new ReentrantLockSupport(new LockEngine(other, "/heard/off", MUTEX, HOUR));
            try (Lease granted = waiter.tryAcquire(WAIT).orElseThrow()) {
                assertTrue(granted.isValid());
            }
            waiter.engine().releaseCachedNodes();
        }
    }

    /** A creation ahead of nothing it conflicts with (a node of another kind, in a read-write layout: a reader behind a cached reader) leaves the node kept. */
    @Test
    void aCreationThatDoesNotConflictLeavesTheNodeKept() throws Exception {
        RecipeDescriptor read = new RecipeDescriptor("read", readDriver(), 1);
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/heard/b", read, HOUR));
            Lease first = lock.acquire();
            String kept = first.nodePath();
            first.close();
            Thread.sleep(200);
            String reader = other.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/heard/b/" + LockNode.protectedName(LockNode.newProtectedId(false), LockNode.namePrefix("read")));
            Thread.sleep(500);                 // what a conflicting creation takes well within
            assertEquals(2, ZkTesting.children(client, "/heard/b").size(), "the cached read node kept behind a reader");
            try (Lease again = lock.acquire()) {
                assertEquals(kept, again.nodePath(), "granted again locally");
            }
            other.delete().forPath(reader);
            lock.engine().releaseCachedNodes();
        }
    }

    /** Reads share; a write conflicts with everything: the read-write rule, as a driver of this package's tests. */
    private static LockDriver readDriver() {
        return new LockDriver() {
            @Override
            public io.zklock.core.spi.queue.Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
                return LockDriver.EXCLUSIVE.decide(sorted, ours, maxLeases);
            }

            @Override
            public boolean conflicts(LockNode ahead, LockNode ours) {
                return ahead.is("write") || ours.is("write");
            }
        };
    }

    /** The last segment of a path. */
    private static final class NodePathsOf {
        static String name(String path) {
            return path.substring(path.lastIndexOf('/') + 1);
        }
    }
}
