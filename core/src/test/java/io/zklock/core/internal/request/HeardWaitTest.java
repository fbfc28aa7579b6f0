package io.zklock.core.internal.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.Lease;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.ReentrantLockSupport;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * HEAR (HeardWait): a waiter behind a cached node of another client waits for its deletion
 * through its own client's tree watch, with no read of the node to set a watch, and is granted
 * on the queue that watch tells; a deletion it could not hear (its connection cut, or deafened
 * so that the deletion's event was lost, or its session expired) still grants it once it is
 * back. The node ahead is made by hand: a cached node whose "holder" lets it go only when the
 * test says so.
 */
class HeardWaitTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(20));

    private TestingServer server;
    private FaultProxy proxy;
    private CuratorFramework holder;
    private CuratorFramework waiter;

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
        proxy = FaultProxy.to(server.getConnectString());
        holder = ZkTesting.client(server.getConnectString(), 60_000);
        waiter = ZkTesting.client(proxy.connectString(), 30_000);
    }

    @AfterEach
    void stop() throws Exception {
        waiter.close();
        holder.close();
        proxy.close();
        server.close();
    }

    /**
     * The waiter reads the cached node ahead once, for its ask (the node does not claim to hear
     * creations, so it is asked at once), and never to watch it: on a data watch it would read
     * it at least twice (the ask and the watch). Granted when the node goes.
     */
    @Test
    void aWaiterBehindACachedNodeReadsItOnlyToAskIt() throws Exception {
        String ahead = cachedNode("/hear/a");
        AtomicInteger reads = new AtomicInteger();
        proxy.beforeRequest((opcode, path) -> {
            if ((opcode == OpCode.getData || opcode == OpCode.exists) && ahead.equals(path)) {
                reads.incrementAndGet();
            }
        });
        CompletableFuture<Lease> granted = queueBehind("/hear/a");
        Await.equal("the ahead node asked (written into)", true, WAIT, () -> askedInto(ahead));
        Thread.sleep(300);                     // a data watch, had one been set, was set by now
        holder.delete().forPath(ahead);
        try (Lease lease = granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(lease.isValid());
        }
        assertEquals(1, reads.get(), "reads of the node ahead: the ask's only");
    }

    /** The node ahead goes while the waiter's connection is cut: the waiter, back on its session, lists and is granted. */
    @Test
    void aDeletionWhileCutOffGrantsTheWaiterOnceItIsBack() throws Exception {
        String ahead = cachedNode("/hear/cut");
        CompletableFuture<Lease> granted = queueBehindAndSettle("/hear/cut", ahead);
        proxy.cut();
        holder.delete().forPath(ahead);
        Thread.sleep(500);
        proxy.heal();
        try (Lease lease = granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(lease.isValid());
        }
    }

    /**
     * The node ahead goes while the waiter hears nothing (its connection deafened, not cut: the
     * client does not notice before its read timeout, and the deletion's event is lost). The
     * proxy then closes the damaged connection; the client reconnects on the same session,
     * whose persistent watch does not replay the lost event: the waiter lists and is granted.
     */
    @Test
    void aDeletionLostToADeafenedConnectionGrantsTheWaiterOnItsReconnection() throws Exception {
        String ahead = cachedNode("/hear/deaf");
        CompletableFuture<Lease> granted = queueBehindAndSettle("/hear/deaf", ahead);
        long session = waiter.getZookeeperClient().getZooKeeper().getSessionId();
        proxy.deafen();
        holder.delete().forPath(ahead);
        Thread.sleep(1_000);
        proxy.heal();
        try (Lease lease = granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(lease.isValid());
        }
        assertEquals(session, waiter.getZookeeperClient().getZooKeeper().getSessionId(), "the same session throughout");
    }

    /** The waiter's session expires while it hears: it queues again on its new session and is granted when the node goes. */
    @Test
    void aWaiterWhoseSessionExpiresWhileItHearsIsGrantedOnItsNewSession() throws Exception {
        String ahead = cachedNode("/hear/expiry");
        CompletableFuture<Lease> granted = queueBehindAndSettle("/hear/expiry", ahead);
        Sessions.expire(waiter, server.getConnectString());
        Await.equal("queued again on the new session", 2, WAIT, () -> ZkTesting.children(holder, "/hear/expiry").size());
        holder.delete().forPath(ahead);
        try (Lease lease = granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(lease.isValid());
        }
        assertEquals(List.of(), ZkTesting.children(holder, "/hear/expiry"), "no node left");
    }

    /** A cached node that does not claim to hear creations (its waiters ask it at once), made by the holder's client. */
    private String cachedNode(String dir) throws Exception {
        return holder.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(dir + "/" + LockNode.protectedName(LockNode.newProtectedId(true), LockNode.namePrefix("lock")));
    }

    /** Whether the node at {@code path} was written since its create (an ask). */
    private boolean askedInto(String path) {
        try {
            return holder.checkExists().forPath(path).getVersion() > 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private CompletableFuture<Lease> queueBehind(String dir) {
        return new ReentrantLockSupport(new LockEngine(waiter, dir, MUTEX)).acquireAsync(WAIT.multipliedBy(2));
    }

    /** Queues the waiter behind {@code ahead} and returns once it asked it and had time to settle into its wait. */
    private CompletableFuture<Lease> queueBehindAndSettle(String dir, String ahead) throws Exception {
        CompletableFuture<Lease> granted = queueBehind(dir);
        Await.equal("the ahead node asked (written into)", true, WAIT, () -> askedInto(ahead));
        Thread.sleep(300);
        return granted;
    }
}
