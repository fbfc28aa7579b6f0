package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
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
import org.junit.jupiter.api.Test;

/**
 * ASKED for permits, heard from a creation (a server with tree watches): a holder of cached
 * permits that hears a waiter's node created lets go of what that waiter's ask would name (the
 * first {@code i - maxLeases + 1} cached nodes ahead of it), although nobody writes an ask; a
 * node created while a permit is free leaves every permit kept.
 */
class PermitsCreationHeardTest {
    /** The first maxLeases nodes hold: a semaphore's rule, as a driver of this package's tests. */
    private static final LockDriver FIRST_N = (sorted, ours, maxLeases) ->
            LockDriver.indexOf(sorted, ours) < maxLeases ? Decision.granted() : Decision.watchDirectory();
    private static final RecipeDescriptor PERMITS = new RecipeDescriptor("sem2", FIRST_N, 2);
    private static final LeaseCaching HOUR = LeaseCaching.keepIdleFor(Duration.ofHours(1));
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(10));

    @Test
    void aWaitersCreationBehindIdleCachedPermitsReleasesTheOneItNeeds() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine permits = new LockEngine(client, "/heard/p", PERMITS, HOUR);
            String first;
            String second;
            try (Lease a = permits.acquire(); Lease b = permits.acquire()) {   // the second misses: the first's node is in use
                first = name(a.nodePath());
                second = name(b.nodePath());
            }
            Thread.sleep(200);                 // the kept nodes' reads answered: the tree watch covers them
            String waiter = name(other.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath("/heard/p/"
                    + LockNode.protectedName(LockNode.newProtectedId(false), LockNode.namePrefix("sem2"))));
            String gone = sequenceFirst(first, second);
            List<String> expected = List.of(first, second, waiter).stream().filter(n -> !n.equals(gone)).sorted().toList();
            Await.equal("the first cached permit let go, the second kept", expected, WAIT,
                    () -> ZkTesting.children(client, "/heard/p").stream().sorted().toList());
            other.delete().forPath("/heard/p/" + waiter);
            permits.releaseCachedNodes();
        }
    }

    @Test
    void aCreationWhileAPermitIsFreeLeavesTheCachedPermitsKept() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine permits = new LockEngine(client, "/heard/q", new RecipeDescriptor("sem3", FIRST_N, 3), HOUR);
            try (Lease a = permits.acquire(); Lease b = permits.acquire()) {
                assertEquals(2, ZkTesting.children(client, "/heard/q").size(), "two permits, two nodes");
            }
            Thread.sleep(200);
            String holder = other.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath("/heard/q/"
                    + LockNode.protectedName(LockNode.newProtectedId(false), LockNode.namePrefix("sem3")));
            Thread.sleep(500);                 // what a creation that needs a permit takes well within
            assertEquals(3, ZkTesting.children(client, "/heard/q").size(), "both cached permits kept: the new node holds the third");
            try (Lease again = permits.acquire()) {
                assertEquals(2, ZkTesting.children(client, "/heard/q").size() - 1, "granted again locally");
            }
            other.delete().forPath(holder);
            permits.releaseCachedNodes();
        }
    }

    /** Of two node names, the one with the lower sequence number. */
    private static String sequenceFirst(String a, String b) {
        return LockNode.parse(a).orElseThrow().sequence() <= LockNode.parse(b).orElseThrow().sequence() ? a : b;
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
