package io.zklock.core.internal.lease;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.internal.LockContext;
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
 * The cache grants nothing on a node whose release someone else started (a cancelled
 * asynchronous grant releases its base itself), and nothing on a node past its age limit.
 */
class LeaseCacheReleaseTest {
    private static final Duration HOUR = Duration.ofHours(1);

    private static ZkLease cachedNode(LockContext context, CuratorFramework client, String dir) throws Exception {
        String path = client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(dir + "/_c_" + LockNode.newProtectedId(true) + "-read-", new byte[0]);
        Stat stat = client.checkExists().forPath(path);
        return new ZkLease(context, path, stat.getCzxid(), stat.getEphemeralOwner());
    }

    /** A base released outside the cache, while its release is in flight and after, is never granted again. */
    @Test
    void aBaseReleasedOutsideTheCacheIsNotGrantedAgain() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockContext context = LockContext.of(client, "/r/x", "read", LockDriver.EXCLUSIVE, 1)
                    .withCaching(LeaseCaching.keepIdleFor(HOUR), true);
            ZkLease base = cachedNode(context, client, "/r/x");
            LeaseCache cache = LeaseCache.of(context);
            cache.adopt(base, HOUR);
            base.release();                    // what a cancelled acquireAsync does after the grant
            assertNull(cache.tryLocal(HOUR), "granted on a node being deleted");
            Await.until("the node deleted", Duration.ofSeconds(10), () -> ZkTesting.children(client, "/r/x").isEmpty());
            assertNull(cache.tryLocal(HOUR), "granted on a deleted node");
            Await.until("the released node's entry dropped (its lease told RELEASED)", Duration.ofSeconds(10), () -> cache.size() == 0);
        }
    }

    /** A node is granted again only within its age limit, however busy it is kept. */
    @Test
    void aNodePastItsAgeLimitIsNotGrantedAgain() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            Duration idle = Duration.ofMillis(50);   // age limit: 10 idle periods, half a second
            LockContext context = LockContext.of(client, "/r/y", "read", LockDriver.EXCLUSIVE, 1)
                    .withCaching(LeaseCaching.keepIdleFor(idle), true);
            LeaseCache cache = LeaseCache.of(context);
            Lease first = cache.adopt(cachedNode(context, client, "/r/y"), idle);
            Lease again = cache.tryLocal(idle);
            assertNotNull(again, "granted again while young");
            again.close();
            Thread.sleep(LeaseCache.MAX_LIFE_IN_IDLE_PERIODS * idle.toMillis() + 100);
            assertNull(cache.tryLocal(idle), "granted again past its age limit");
            first.close();
            Await.until("the old node released at its last close", Duration.ofSeconds(10), () -> ZkTesting.children(client, "/r/y").isEmpty());
        }
    }
}
