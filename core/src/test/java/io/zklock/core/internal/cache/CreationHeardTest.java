package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
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
import org.junit.jupiter.api.Test;

/**
 * ASKED, heard from a creation (a server with tree watches): a writer's node created behind a
 * cached read node makes its holder let go although nobody writes an ask into it; a node that
 * does not conflict, or one behind a mutex's node, does not.
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

    /** A mutex's holder does not act on creations (its own process's threads queue behind it all the time): a node behind, asking nothing, leaves it kept. */
    @Test
    void aMutexNodeIsNotLetGoOnACreation() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/heard/m", MUTEX, HOUR));
            lock.acquire().close();
            Thread.sleep(200);
            String waiter = other.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/heard/m/" + LockNode.protectedName(LockNode.newProtectedId(false), LockNode.namePrefix("lock")));
            Thread.sleep(500);
            assertEquals(2, ZkTesting.children(client, "/heard/m").size(), "the cached mutex node kept");
            other.delete().forPath(waiter);
            lock.engine().releaseCachedNodes();
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
