package io.zklock.core.internal.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
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
import org.apache.zookeeper.Watcher.WatcherType;
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
 * test says so. The waiter's client keeps a cached node of its own under another root, so it
 * has a tree watch and its wait adds the root's; a client that never had one adds one only behind
 * nodes whose holders claim to hear creations (the last two tests). Each test counts the waiter's
 * reads of that node, so that it fails if the waiter watched it instead of listening.
 */
class HeardWaitTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(20));

    private TestingServer server;
    private FaultProxy proxy;
    private CuratorFramework holder;
    private CuratorFramework waiter;
    private final AtomicInteger reads = new AtomicInteger();   // getData and exists of the node ahead, through the waiter's proxy
    private volatile String ahead;
    private final AtomicInteger added = new AtomicInteger();   // addWatch requests of the waiter's client
    private ReentrantLockSupport kept;
    private final AtomicInteger listedSinceAdded = new AtomicInteger();   // the waiter's listings sent after a wait's addWatch

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
        proxy = FaultProxy.to(server.getConnectString());
        holder = ZkTesting.client(server.getConnectString(), 60_000);
        waiter = ZkTesting.client(proxy.connectString(), 30_000);
        count(proxy, reads, added, listedSinceAdded, 1);
        // the waiter's client keeps a cached node under another root: it has a tree watch (the server has them),
        // and the wait adds the one of its own root
        kept = new ReentrantLockSupport(new LockEngine(waiter, "/proven/kept", MUTEX, LeaseCaching.keepIdleFor(Duration.ofHours(1))));
        kept.acquire().close();
        Await.equal("the waiter's tree watch added", 1, WAIT, added::get);
    }

    @AfterEach
    void stop() throws Exception {
        kept.engine().releaseCachedNodes();
        waiter.close();
        holder.close();
        proxy.close();
        server.close();
    }

    /**
     * The waiter reads the cached node ahead once, for its ask (the node does not claim to hear
     * creations, so it is asked at once), and never to watch it: on a data watch it reads it at
     * least twice (the ask, the watch). Granted when the node goes.
     */
    @Test
    void aWaiterBehindACachedNodeReadsItOnlyToAskIt() throws Exception {
        ahead = cachedNode("/hear/a");
        CompletableFuture<Lease> granted = queueBehindAndSettle("/hear/a");
        holder.delete().forPath(ahead);
        assertGranted(granted);
        assertEquals(1, reads.get(), "reads of the node ahead: the ask's only");
    }

    /** The node ahead goes while the waiter's connection is cut: the waiter, back on its session, lists and is granted. */
    @Test
    void aDeletionWhileCutOffGrantsTheWaiterOnceItIsBack() throws Exception {
        ahead = cachedNode("/hear/cut");
        CompletableFuture<Lease> granted = queueBehindAndSettle("/hear/cut");
        proxy.cut();
        Await.equal("the waiter cut off", false, WAIT, () -> waiter.getZookeeperClient().isConnected());
        holder.delete().forPath(ahead);
        proxy.heal();
        assertGranted(granted);
        assertEquals(1, reads.get(), "reads of the node ahead: the ask's only (it listened, it did not watch)");
    }

    /**
     * The node ahead goes while the waiter hears nothing (its connection deafened, not cut: the
     * client does not notice before its read timeout, and the deletion's event is dropped). The
     * proxy then closes the damaged connection; the client reconnects on the same session,
     * whose persistent watch does not replay the lost event: the waiter lists and is granted.
     */
    @Test
    void aDeletionLostToADeafenedConnectionGrantsTheWaiterOnItsReconnection() throws Exception {
        ahead = cachedNode("/hear/deaf");
        CompletableFuture<Lease> granted = queueBehindAndSettle("/hear/deaf");
        long session = waiter.getZookeeperClient().getZooKeeper().getSessionId();
        int dropped = proxy.framesDeafened();
        proxy.deafen();
        holder.delete().forPath(ahead);
        Await.equal("the deletion's event dropped", true, WAIT, () -> proxy.framesDeafened() > dropped);
        proxy.heal();
        assertGranted(granted);
        assertEquals(session, waiter.getZookeeperClient().getZooKeeper().getSessionId(), "the same session throughout");
        assertEquals(1, reads.get(), "reads of the node ahead: the ask's only (it listened, it did not watch)");
    }

    /**
     * The waiter's session expires while it listens: it queues again on its new session (and asks
     * the node again, listening again) and is granted when the node goes; no node is left.
     */
    @Test
    void aWaiterWhoseSessionExpiresWhileItListensIsGrantedOnItsNewSession() throws Exception {
        ahead = cachedNode("/hear/expiry");
        CompletableFuture<Lease> granted = queueBehindAndSettle("/hear/expiry");
        List<String> before = ZkTesting.children(holder, "/hear/expiry");
        Sessions.expire(waiter, server.getConnectString());
        Await.equal("queued again on the new session, the old node gone", true, WAIT, () -> {
            List<String> now = ZkTesting.children(holder, "/hear/expiry");
            return now.size() == 2 && before.stream().filter(n -> !ahead.endsWith(n)).noneMatch(now::contains);
        });
        Await.equal("the node asked again", 2, WAIT, reads::get);
        holder.delete().forPath(ahead);
        assertGranted(granted);
        assertEquals(2, reads.get(), "reads of the node ahead: one ask per queued node");
        assertEquals(List.of(), ZkTesting.children(holder, "/hear/expiry"), "no node left");
    }

    /**
     * The waiter's tree watch is removed under it by its own client (a removal of all watches on
     * the root, as a children watch's removal on a directory that is its own root may do): the
     * waiter lists, sets the watch again and is granted when the node goes, still reading it only
     * for its ask.
     */
    @Test
    void aTreeWatchRemovedUnderTheWaiterIsSetAgain() throws Exception {
        ahead = cachedNode("/hear/removed");
        CompletableFuture<Lease> granted = queueBehindAndSettle("/hear/removed");
        waiter.getZookeeperClient().getZooKeeper().removeAllWatches("/hear", WatcherType.Any, false);
        Await.equal("the root's watch added again", 3, WAIT, added::get);   // after the kept node's and the wait's
        holder.delete().forPath(ahead);
        assertGranted(granted);
        assertEquals(1, reads.get(), "reads of the node ahead: the ask's only");
    }

    /**
     * A client that never added a tree watch (it keeps no node), behind a cached node that does
     * not claim to hear creations, adds none: there its first addWatch could be a probe of a 3.5
     * server, which closes the connection on it, in the middle of the wait. It asks the node and
     * watches it (a second read), and is granted when the node goes.
     */
    @Test
    void aClientThatNeverAddedATreeWatchWatchesBehindANodeThatDoesNotClaimToHear() throws Exception {
        try (Fresh fresh = new Fresh()) {
            ahead = cachedNode("/hear/unproven");
            CompletableFuture<Lease> granted = fresh.queueBehind("/hear/unproven");
            Await.equal("the node ahead asked and read for its watch", true, WAIT, () -> fresh.reads.get() >= 2);
            holder.delete().forPath(ahead);
            assertGranted(granted);
            assertEquals(0, fresh.added.get(), "addWatch requests of a client that never added a tree watch");
        }
    }

    /**
     * The same client behind a node whose holder claims to hear creations (a claim its client
     * makes only once a tree watch was added on it and its caches hear creations) adds its root's watch
     * for the wait and listens: it reads the node only for its ask (made after the bound, as the
     * holder should have let go on hearing the waiter's node), never to watch it.
     */
    @Test
    void aClientThatNeverAddedATreeWatchListensBehindANodeWhoseHolderHearsCreations() throws Exception {
        try (Fresh fresh = new Fresh()) {
            ahead = holder.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath("/hear/marked/"
                    + LockNode.protectedName(LockNode.newProtectedId(true, "0a1b2c3d"), LockNode.namePrefix("lock")));
            assertTrue(LockNode.parse(ahead.substring(ahead.lastIndexOf('/') + 1)).orElseThrow().hearsCreations());
            CompletableFuture<Lease> granted = fresh.queueBehind("/hear/marked");
            Await.equal("its root's watch added for the wait", 1, WAIT, fresh.added::get);
            Await.equal("the node ahead asked after the bound", true, WAIT, () -> askedInto(ahead));
            Await.equal("listed under its root's watch", true, WAIT, () -> fresh.listedSinceAdded.get() > 0);
            holder.delete().forPath(ahead);
            assertGranted(granted);
            assertEquals(1, fresh.reads.get(), "reads of the node ahead: the ask's only (it listened, it did not watch)");
        }
    }

    /** A waiter's client of its own, through a proxy of its own, that keeps no node: it never added a tree watch. */
    private final class Fresh implements AutoCloseable {
        final FaultProxy own = FaultProxy.to(server.getConnectString());
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger added = new AtomicInteger();
        final AtomicInteger listedSinceAdded = new AtomicInteger();
        final CuratorFramework client;

        Fresh() throws Exception {
            count(own, reads, added, listedSinceAdded, 0);
            client = ZkTesting.client(own.connectString(), 30_000);
        }

        CompletableFuture<Lease> queueBehind(String dir) {
            return new ReentrantLockSupport(new LockEngine(client, dir, MUTEX)).acquireAsync(WAIT.multipliedBy(2));
        }

        @Override
        public void close() throws Exception {
            client.close();
            own.close();
        }
    }

    /**
     * Counts what a waiter's client sends through {@code through}: its reads of {@link #ahead}
     * (getData, exists), its addWatch requests, and its listings sent after more than
     * {@code addsBefore} of them (a wait's own add).
     */
    private void count(FaultProxy through, AtomicInteger reads, AtomicInteger added, AtomicInteger listedSinceAdded,
            int addsBefore) {
        through.beforeRequest((opcode, path) -> {
            if ((opcode == OpCode.getData || opcode == OpCode.exists) && path != null && path.equals(ahead)) {
                reads.incrementAndGet();
            } else if (opcode == OpCode.addWatch) {
                added.incrementAndGet();
            } else if ((opcode == OpCode.getChildren || opcode == OpCode.getChildren2) && added.get() > addsBefore) {
                listedSinceAdded.incrementAndGet();
            }
        });
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

    /**
     * Queues the waiter behind {@link #ahead} and returns once it listens: it asked the node (a
     * data watch's read, had it chosen one, sent with the ask), sent the listing made after its
     * root's watch was added, and its client's event thread has run that listing's answer (the
     * answer of a call sent after it, on the same connection, runs there after it), on which the
     * wait decides and listens.
     */
    private CompletableFuture<Lease> queueBehindAndSettle(String dir) throws Exception {
        CompletableFuture<Lease> granted = new ReentrantLockSupport(new LockEngine(waiter, dir, MUTEX)).acquireAsync(WAIT.multipliedBy(2));
        Await.equal("the node ahead asked (written into)", true, WAIT, () -> askedInto(ahead));
        Await.equal("the waiter listed under its root's watch", true, WAIT, () -> listedSinceAdded.get() > 0);
        CountDownLatch behind = new CountDownLatch(1);
        waiter.checkExists().inBackground((client, event) -> behind.countDown()).forPath("/");
        assertTrue(behind.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the waiter's event thread past the listing's answer");
        return granted;
    }

    private static void assertGranted(CompletableFuture<Lease> granted) throws Exception {
        try (Lease lease = granted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(lease.isValid());
        }
    }
}
