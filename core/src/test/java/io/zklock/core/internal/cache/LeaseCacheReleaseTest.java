package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import io.zklock.core.Lease;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * The cache grants nothing on a grant it took back (a cancelled asynchronous grant), and
 * nothing on a node past its age limit; a cache left empty leaves its client's registry.
 */
class LeaseCacheReleaseTest {
    private static final Duration HOUR = Duration.ofHours(1);

    private static ZkLease cachedNode(LockContext context, CuratorFramework client, String dir) throws Exception {
        String path = client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(dir + "/_c_" + LockNode.newProtectedId(true) + "-read-", new byte[0]);
        Stat stat = client.checkExists().forPath(path);
        return new ZkLease(context, path, stat.getCzxid(), stat.getEphemeralOwner());
    }

    private static Lease adopt(LockContext context, ZkLease base, Duration idle) {
        return LeaseCache.adopt(LeaseCaches.of(context.monitor()), LeaseCaches.Key.of(context), true,
                new Grant(base, List.of()), context, idle);
    }

    /** A grant taken back while its release is in flight, and after, is never granted again; the empty cache is dropped. */
    @Test
    void anAbandonedGrantIsNotGrantedAgain() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockContext context = LockContext.of(client, "/r/x", "read", LockDriver.EXCLUSIVE, 1).withCachingNodes(false);
            ZkLease base = cachedNode(context, client, "/r/x");
            adopt(context, base, HOUR);
            LeaseCache cache = LeaseCaches.of(SessionMonitor.of(client)).get(LeaseCaches.Key.of(context));
            assertNotNull(cache);
            assertTrue(cache.abandon(base), "what a cancelled acquireAsync does after the grant");
            assertNull(cache.tryLocal(HOUR), "granted on a node being deleted");
            Await.until("the node deleted", Duration.ofSeconds(10), () -> ZkTesting.children(client, "/r/x").isEmpty());
            assertNull(cache.tryLocal(HOUR), "granted on a deleted node");
            assertEquals(0, CacheProbe.caches(client, "/r/x"), "the empty cache is still in the client's registry");
        }
    }

    /** A node is granted again only within its age limit, however busy it is kept. */
    @Test
    void aNodePastItsAgeLimitIsNotGrantedAgain() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            Duration idle = Duration.ofMillis(50);   // age limit: 10 idle periods, half a second
            LockContext context = LockContext.of(client, "/r/y", "read", LockDriver.EXCLUSIVE, 1).withCachingNodes(false);
            Lease first = adopt(context, cachedNode(context, client, "/r/y"), idle);
            LeaseCache cache = LeaseCaches.of(SessionMonitor.of(client)).get(LeaseCaches.Key.of(context));
            Lease again = cache.tryLocal(idle);
            assertNotNull(again, "granted again while young");
            again.close();
            Thread.sleep(LeaseCache.MAX_LIFE_IN_IDLE_PERIODS * idle.toMillis() + 100);
            assertNull(cache.tryLocal(idle), "granted again past its age limit");
            first.close();
            Await.until("the old node released at its last close", Duration.ofSeconds(10), () -> ZkTesting.children(client, "/r/y").isEmpty());
            assertEquals(0, CacheProbe.caches(client, "/r/y"), "the empty cache is still in the client's registry");
        }
    }
}
