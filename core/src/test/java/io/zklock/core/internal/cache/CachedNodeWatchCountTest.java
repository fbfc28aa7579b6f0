package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.ReentrantLockSupport;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * What cached and held leases of one client cost the server in watches: on a server with
 * persistent recursive watches (the embedded one is 3.9), one per lock root (the parent of the
 * lock directories), whatever the number of nodes; none once they are all released.
 */
class CachedNodeWatchCountTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    private static final LeaseCaching HOUR = LeaseCaching.keepIdleFor(Duration.ofHours(1));
    /** How many locks the first test caches: 500, or the system property {@code zklock.test.cachedLocks} (10000 for the figure in the docs). */
    private static final int LOCKS = Integer.getInteger("zklock.test.cachedLocks", 500);
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(10));

    private static ReentrantLockSupport mutex(CuratorFramework client, String path) {
        return new ReentrantLockSupport(new LockEngine(client, path, MUTEX, HOUR));
    }

    /** Five hundred cached nodes, a tenth of them held, under one root: one watch on the server; after their release, none. */
    @Test
    void fiveHundredCachedNodesUnderOneRootCostOneWatch() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkProbe probe = new ZkProbe(server.getPort());
            List<ReentrantLockSupport> locks = new ArrayList<>();
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < LOCKS; i++) {
                ReentrantLockSupport lock = mutex(client, "/many/lock-" + i);
                locks.add(lock);
                Lease lease = lock.acquire();
                if (i % 10 == 0) {
                    held.add(lease);           // held and cached
                } else {
                    lease.close();             // cached, idle
                }
            }
            Await.until("the nodes' reads answered", WAIT, () -> probe.watchCount() == 1);
            assertEquals(1, probe.watchCount(), LOCKS + " cached nodes, " + held.size() + " of them held: one watch");
            assertEquals(LOCKS, ZkTesting.children(client, "/many").stream()
                    .mapToInt(dir -> ZkTesting.children(client, "/many/" + dir).size()).sum(), "every node kept");
            held.forEach(Lease::close);
            locks.forEach(l -> l.engine().releaseCachedNodes());
            Await.equal("watches left once every node is released", 0, WAIT, probe::watchCount);
        }
    }

    /** Locks under two roots: two watches, whatever the number of nodes under each. */
    @Test
    void oneWatchPerRoot() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkProbe probe = new ZkProbe(server.getPort());
            List<ReentrantLockSupport> locks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ReentrantLockSupport lock = mutex(client, (i % 2 == 0 ? "/left/" : "/right/") + i);
                locks.add(lock);
                lock.acquire().close();
            }
            Await.until("the nodes' reads answered", WAIT, () -> probe.watchCount() == 2);
            assertEquals(2, probe.watchCount(), "two roots, two watches");
            locks.forEach(l -> l.engine().releaseCachedNodes());
            Await.equal("watches left", 0, WAIT, probe::watchCount);
        }
    }

    /** A cached node deleted by another client is heard through the root's watch: its lease in use turns LOST. */
    @Test
    void aDeletionOfACachedNodeReachesItsLeaseThroughTheRootWatch() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkProbe probe = new ZkProbe(server.getPort());
            ReentrantLockSupport lock = mutex(client, "/gone/a");
            lock.acquire().close();
            Lease again = lock.acquire();
            Await.until("the node's read answered", WAIT, () -> probe.watchCount() == 1);
            other.delete().forPath(again.nodePath());
            Await.equal("the lease hears the deletion", LeaseState.LOST, WAIT, again::state);
            Lease fresh = lock.acquire();
            assertTrue(fresh.fencingToken() > again.fencingToken(), "a new node, with a larger token");
            fresh.close();
            lock.engine().releaseCachedNodes();
            Await.equal("watches left", 0, WAIT, probe::watchCount);
        }
    }
}
