package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.QuietPorts;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Waits inside one client for what its cache holds, on a real server: a thread that wants a
 * busy cached permit (of a semaphore's shape; a mutex's threads queue nodes) while every permit
 * is taken waits for it locally (no node queued) and
 * takes the node over at its close; it queues a node at once when a permit is free, when a
 * waiter of another client asks the node back (and then queues behind that waiter), and when
 * the session, the node or the directory goes. Readers of one client that miss the cache
 * together queue one node.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)   // an unbounded acquire() that hangs fails the test
class LocalLeaseWaitTest {
    private static final LeaseCaching HOUR = LeaseCaching.keepIdleFor(Duration.ofHours(1));
    /** Grants the first maxLeases nodes; the others watch the directory (a semaphore's shape, for core's tests). */
    private static final LockDriver FIRST_N = (sorted, ours, maxLeases) ->
            LockDriver.indexOf(sorted, ours) < maxLeases ? Decision.granted() : Decision.watchDirectory();
    /** Readers hold together unless a writer is ahead; writers hold alone. */
    private static final LockDriver READ_WRITE = new LockDriver() {
        @Override
        public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
            int index = LockDriver.indexOf(sorted, ours);
            if (!ours.is("read")) {
                return LockDriver.EXCLUSIVE.decide(sorted, ours, maxLeases);
            }
            for (int i = index - 1; i >= 0; i--) {
                if (!sorted.get(i).is("read")) {
                    return Decision.watch(sorted.get(i));
                }
            }
            return Decision.granted();
        }

        @Override
        public boolean conflicts(LockNode ahead, LockNode ours) {
            return !(ahead.is("read") && ours.is("read"));
        }
    };

    /** Permits whose local waits last (an escalation bound no test reaches, however slow the machine). */
    private static LockEngine permits(CuratorFramework client, String path, int max) {
        CacheProbe.escalateAfter(client, Duration.ofMinutes(10));
        return new LockEngine(client, path, new RecipeDescriptor("sem", FIRST_N, max), HOUR);
    }

    /** Both permits of a semaphore of 2, taken by {@code engine}'s client: the first lease, then the second. */
    private static List<Lease> bothPermits(LockEngine engine) throws InterruptedException {
        Lease one = engine.acquire();
        Lease two = engine.acquire();
        assertNotEquals(one.nodePath(), two.nodePath(), "a permit free: the second thread queued a node");
        return List.of(one, two);
    }

    private static CompletableFuture<Optional<Lease>> inThread(LockEngine engine, Duration timeout) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return engine.tryAcquire(timeout);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * Every permit taken by this client's busy leases: another thread queues no node, sends
     * at most a listing and the removal of its watch, and takes the first node that closes.
     */
    @Test
    void aThreadWaitsLocallyForABusyPermitWhenEveryPermitIsTaken() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engine = permits(client, "/w/a", 2);
            Lease one = engine.acquire();
            Lease two = engine.acquire();
            assertNotEquals(one.nodePath(), two.nodePath(), "a permit free: the second thread queued a node");
            ZkProbe probe = new ZkProbe(server.getPort());
            long requests = probe.requestsDuring(() -> {
                CompletableFuture<Optional<Lease>> third = inThread(engine, Duration.ofSeconds(20));
                Await.until("a third thread waits locally", Duration.ofSeconds(10), () -> waitingLocally(client, "/w/a") == 1);
                // its listing answered: the server holds its children watch besides the cached nodes' one tree watch
                Await.until("the local wait's listing answered", Duration.ofSeconds(10), () -> probe.watchCount() == 2);
                assertFalse(third.isDone(), "every permit is taken");
                assertEquals(1, waitingLocally(client, "/w/a"));
                assertEquals(2, ZkTesting.children(client, "/w/a").size(), "no node queued");
                one.close();
                Lease handed = third.get(10, TimeUnit.SECONDS).orElseThrow();
                assertEquals(one.nodePath(), handed.nodePath(), "the closed lease's node, handed over");
                assertEquals(one.fencingToken(), handed.fencingToken());
                assertEquals(LeaseState.HELD, handed.state());
                handed.close();
            });
            // the listing, the removal of its watch, the listing of ZkTesting.children, a ping at most
            assertTrue(requests <= 4, "a local wait sent " + requests + " packets");
            two.close();
        }
    }

    /**
     * Another client keeps a permit cached idle while this client's one permit is busy: a thread
     * that wants a second permit (here the busy permit's own thread) waits inside its process
     * at most the escalation bound, then queues a node, which asks the idle permit back: it is
     * granted while the busy permit is still in use.
     */
    @Test
    void aLocalWaitEndsAtTheEscalationBoundWhileAnotherClientKeepsAPermitIdle() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework c = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engineC = new LockEngine(c, "/w/j", new RecipeDescriptor("sem", FIRST_N, 2), HOUR);
            LockEngine engineA = new LockEngine(a, "/w/j", new RecipeDescriptor("sem", FIRST_N, 2), HOUR);   // the default bound
            engineC.acquire().close();         // c's permit, cached and idle for an hour
            Lease busy = engineA.acquire();
            assertEquals(2, ZkTesting.children(a, "/w/j").size(), "every permit taken: one busy, one idle");
            Lease second = engineA.tryAcquire(Duration.ofSeconds(20)).orElseThrow(() ->
                    new AssertionError("waited behind its own busy permit while another client's sat idle"));
            assertEquals(LeaseState.HELD, busy.state(), "granted while the busy permit is still in use");
            assertNotEquals(busy.nodePath(), second.nodePath());
            second.close();
            busy.close();
        }
    }

    /** A waiter of another client asks the node back: the local waiter queues a node, behind that waiter. */
    @Test
    void aLocalWaiterQueuesBehindAWaiterOfAnotherClientThatAskedTheNodeBack() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engineA = permits(a, "/w/b", 2);
            LockEngine engineB = new LockEngine(b, "/w/b", new RecipeDescriptor("sem", FIRST_N, 2), LeaseCaching.off());
            List<Lease> held = bothPermits(engineA);
            CompletableFuture<Optional<Lease>> local = inThread(engineA, Duration.ofSeconds(30));
            Await.until("a's third thread waits locally", Duration.ofSeconds(10), () -> waitingLocally(a, "/w/b") == 1);
            assertEquals(2, ZkTesting.children(a, "/w/b").size(), "no node queued");
            CompletableFuture<Optional<Lease>> rival = inThread(engineB, Duration.ofSeconds(30));
            Await.until("a's local waiter queued behind b's node", Duration.ofSeconds(10),
                    () -> ZkTesting.children(a, "/w/b").size() == 4);
            held.get(0).close();
            Lease bLease = rival.get(10, TimeUnit.SECONDS).orElseThrow();
            assertTrue(bLease.fencingToken() > held.get(1).fencingToken());
            assertFalse(local.isDone(), "a's waiter queued behind b");
            bLease.close();
            Lease aLease = local.get(10, TimeUnit.SECONDS).orElseThrow();
            assertTrue(aLease.fencingToken() > bLease.fencingToken(), "FIFO across clients");
            aLease.close();
            held.get(1).close();
        }
    }

    /**
     * A waiter of another client is queued (it asked one permit back, the one it needs): a
     * thread of the holding client does not wait locally for the other busy permit, which
     * would be handed to it ahead of that waiter, but queues a node behind the waiter.
     */
    @Test
    void noLocalWaitWhileAWaiterOfAnotherClientIsQueued() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engineA = permits(a, "/w/l", 2);
            CacheProbe.escalateAfter(b, Duration.ofMinutes(10));   // b asks only the permit it needs
            LockEngine engineB = new LockEngine(b, "/w/l", new RecipeDescriptor("sem", FIRST_N, 2));
            List<Lease> held = bothPermits(engineA);
            CompletableFuture<Optional<Lease>> rival = inThread(engineB, Duration.ofSeconds(30));
            Await.until("b queued", Duration.ofSeconds(10), () -> ZkTesting.children(a, "/w/l").size() == 3);
            CompletableFuture<Optional<Lease>> third = inThread(engineA, Duration.ofSeconds(30));
            Await.until("a's third thread queued a node behind b's", Duration.ofSeconds(10),
                    () -> ZkTesting.children(a, "/w/l").size() == 4);
            held.get(1).close();               // the permit b did not ask: not handed to a's thread
            assertFalse(third.isDone(), "a's thread took a permit ahead of b's waiter");
            held.get(0).close();               // the permit b asked
            Lease bLease = rival.get(10, TimeUnit.SECONDS).orElseThrow();
            Lease aLease = third.get(10, TimeUnit.SECONDS).orElseThrow();
            assertTrue(aLease.fencingToken() > bLease.fencingToken(), "FIFO across clients");
            aLease.close();
            bLease.close();
        }
    }

    /** The session ends while a thread waits locally: the lease in use is LOST, the waiter queues a node of the new session. */
    @Test
    void aLocalWaitEndsWithTheSessionAndTheWaiterQueuesANode() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engine = permits(client, "/w/c", 2);
            List<Lease> held = bothPermits(engine);
            CompletableFuture<Optional<Lease>> local = inThread(engine, Duration.ofSeconds(30));
            Await.until("a third thread waits locally", Duration.ofSeconds(10), () -> waitingLocally(client, "/w/c") == 1);
            KillSession.kill(client.getZookeeperClient().getZooKeeper());
            Await.until("the leases in use lost", Duration.ofSeconds(20),
                    () -> held.stream().allMatch(l -> l.state() == LeaseState.LOST));
            Lease next = local.get(20, TimeUnit.SECONDS).orElseThrow();
            assertFalse(held.stream().anyMatch(l -> l.nodePath().equals(next.nodePath())));
            assertEquals(LeaseState.HELD, next.state());
            assertTrue(next.fencingToken() > held.get(1).fencingToken());
            held.forEach(Lease::close);
            next.close();
        }
    }

    /** The connection drops and comes back while a thread waits locally: the waiter is granted once the lease in use closes. */
    @Test
    void aLocalWaitLivesThroughAConnectionLoss() throws Exception {
        try (TestingServer server = new TestingServer(QuietPorts.next(), true);       // restarted below
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engine = permits(client, "/w/d", 2);
            List<Lease> held = bothPermits(engine);
            CompletableFuture<Optional<Lease>> local = inThread(engine, Duration.ofSeconds(40));
            Await.until("a third thread waits locally", Duration.ofSeconds(10), () -> waitingLocally(client, "/w/d") == 1);
            server.stop();
            Thread.sleep(500);
            server.restart();
            Await.until("reconnected and the leases held again", Duration.ofSeconds(20),
                    () -> held.stream().allMatch(l -> l.state() == LeaseState.HELD));
            assertEquals(1, waitingLocally(client, "/w/d"), "the thread still waits locally");
            assertEquals(2, ZkTesting.children(client, "/w/d").size(), "no node queued");
            assertFalse(local.isDone());
            held.get(0).close();
            Lease next = local.get(30, TimeUnit.SECONDS).orElseThrow();
            assertEquals(held.get(0).nodePath(), next.nodePath(), "the closed lease's node, handed over");
            assertEquals(LeaseState.HELD, next.state());
            next.close();
            held.get(1).close();
            engine.releaseCachedNodes();
            Await.until("nothing left", Duration.ofSeconds(10), () -> ZkTesting.children(client, "/w/d").isEmpty());
        }
    }

    /** The node in use is deleted by an operator and the directory reaped: the local waiter queues a node in a new directory. */
    @Test
    void aLocalWaiterQueuesANodeWhenTheNodeAndItsDirectoryAreGone() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework operator = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engine = permits(client, "/w/e", 2);
            List<Lease> held = bothPermits(engine);
            CompletableFuture<Optional<Lease>> local = inThread(engine, Duration.ofSeconds(30));
            Await.until("a third thread waits locally", Duration.ofSeconds(10), () -> waitingLocally(client, "/w/e") == 1);
            operator.transaction().forOperations(          // the nodes and the directory at once, as a reaper after a forced revoke
                    operator.transactionOp().delete().forPath(held.get(0).nodePath()),
                    operator.transactionOp().delete().forPath(held.get(1).nodePath()),
                    operator.transactionOp().delete().forPath("/w/e"));
            Await.until("the leases in use lost", Duration.ofSeconds(20),
                    () -> held.stream().allMatch(l -> l.state() == LeaseState.LOST));
            Lease next = local.get(20, TimeUnit.SECONDS).orElseThrow();
            assertEquals(LeaseState.HELD, next.state());
            assertFalse(held.stream().anyMatch(l -> l.nodePath().equals(next.nodePath())));
            held.forEach(Lease::close);
            next.close();
        }
    }

    /** A timeout ends a local wait with nothing acquired and nothing queued. */
    @Test
    void aLocalWaitTimesOutWithNothingQueued() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine engine = permits(client, "/w/f", 2);
            List<Lease> held = bothPermits(engine);
            CompletableFuture<Optional<Lease>> waiting = inThread(engine, Duration.ofSeconds(2));
            Await.until("the thread waits locally", Duration.ofSeconds(10), () -> waitingLocally(client, "/w/f") == 1);
            assertEquals(2, ZkTesting.children(client, "/w/f").size(), "no node queued");
            Optional<Lease> none = waiting.get(10, TimeUnit.SECONDS);
            assertTrue(none.isEmpty());
            assertEquals(2, ZkTesting.children(client, "/w/f").size());
            assertEquals(0, waitingLocally(client, "/w/f"));
            held.get(0).close();
            try (Lease again = engine.acquire()) {
                assertEquals(held.get(0).nodePath(), again.nodePath(), "the node was kept, not handed to a gone waiter");
            }
            held.get(1).close();
        }
    }

    /** Two readers of one client that miss the cache together (a writer holds) queue one node and share it. */
    @Test
    void readersOfOneClientThatMissTogetherQueueOneNode() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine reads = new LockEngine(a, "/w/g", new RecipeDescriptor("read", READ_WRITE, 1), HOUR);
            LockEngine writes = new LockEngine(b, "/w/g", new RecipeDescriptor("write", READ_WRITE, 1), LeaseCaching.off());
            Lease writer = writes.acquire();
            CompletableFuture<Optional<Lease>> r1 = inThread(reads, Duration.ofSeconds(30));
            CompletableFuture<Optional<Lease>> r2 = inThread(reads, Duration.ofSeconds(30));
            Await.until("a read node queued", Duration.ofSeconds(10), () -> ZkTesting.children(a, "/w/g").size() == 2);
            Await.until("the other reader waits for it", Duration.ofSeconds(10), () -> waitingLocally(a, "/w/g") == 1);
            assertEquals(2, ZkTesting.children(a, "/w/g").size(), "one read node for both readers");
            writer.close();
            Lease one = r1.get(10, TimeUnit.SECONDS).orElseThrow();
            Lease two = r2.get(10, TimeUnit.SECONDS).orElseThrow();
            assertEquals(one.nodePath(), two.nodePath());
            assertTrue(one.fencingToken() > writer.fencingToken());
            one.close();
            two.close();
        }
    }

    /**
     * A reader that joined another local reader's queued node, which a writer of another client
     * queued behind and asked back, is not granted on that node at its grant: it queues behind
     * the writer, as its own node would have (a reader waits for every earlier writer).
     */
    @Test
    void aReaderThatJoinedALeadIsNotGrantedAheadOfAWriterThatAskedTheNode() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework c = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine reads = new LockEngine(a, "/w/k", new RecipeDescriptor("read", READ_WRITE, 1), HOUR);
            LockEngine writesB = new LockEngine(b, "/w/k", new RecipeDescriptor("write", READ_WRITE, 1), LeaseCaching.off());
            LockEngine writesC = new LockEngine(c, "/w/k", new RecipeDescriptor("write", READ_WRITE, 1), LeaseCaching.off());
            Lease first = writesB.acquire();
            CompletableFuture<Optional<Lease>> r1 = inThread(reads, Duration.ofSeconds(40));   // outlasts r2: r2 joins it
            Await.until("a read node queued", Duration.ofSeconds(10), () -> ZkTesting.children(a, "/w/k").size() == 2);
            CompletableFuture<Optional<Lease>> r2 = inThread(reads, Duration.ofSeconds(30));
            Await.until("the other reader joined it", Duration.ofSeconds(10), () -> waitingLocally(a, "/w/k") == 1);
            CompletableFuture<Optional<Lease>> second = inThread(writesC, Duration.ofSeconds(30));
            Await.until("the second writer queued and asked the read node back", Duration.ofSeconds(10),
                    () -> ZkTesting.children(a, "/w/k").size() == 3 && readNodeAsked(a, "/w/k"));
            first.close();
            Lease one = r1.get(10, TimeUnit.SECONDS).orElseThrow();
            Await.until("the joiner queued a node of its own behind the writer", Duration.ofSeconds(10),
                    () -> ZkTesting.children(a, "/w/k").size() == 3 && waitingLocally(a, "/w/k") == 0);
            assertFalse(r2.isDone(), "a reader of a's was granted ahead of the writer queued before it");
            assertFalse(second.isDone());
            one.close();
            Lease w = second.get(10, TimeUnit.SECONDS).orElseThrow();
            assertFalse(r2.isDone(), "granted while the writer holds");
            w.close();
            Lease two = r2.get(10, TimeUnit.SECONDS).orElseThrow();
            assertTrue(two.fencingToken() > w.fencingToken(), "the joiner's node came after the writer's");
            two.close();
        }
    }

    /**
     * A reader that misses while another local reader's shorter acquisition is queueing does not
     * join it (it may time out first, leaving the joiner to queue behind a writer that queued
     * meanwhile): it queues its own node at once, and is granted ahead of that writer.
     */
    @Test
    void aReaderDoesNotJoinALeadThatMayTimeOutFirst() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework a = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework b = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework c = ZkTesting.client(server.getConnectString(), 60_000)) {
            LockEngine reads = new LockEngine(a, "/w/m", new RecipeDescriptor("read", READ_WRITE, 1), HOUR);
            LockEngine writesB = new LockEngine(b, "/w/m", new RecipeDescriptor("write", READ_WRITE, 1), LeaseCaching.off());
            LockEngine writesC = new LockEngine(c, "/w/m", new RecipeDescriptor("write", READ_WRITE, 1), LeaseCaching.off());
            Lease first = writesB.acquire();
            CompletableFuture<Optional<Lease>> shortLead = inThread(reads, Duration.ofSeconds(3));
            Await.until("the short reader's node queued", Duration.ofSeconds(10), () -> ZkTesting.children(a, "/w/m").size() == 2);
            CompletableFuture<Optional<Lease>> patient = inThread(reads, Duration.ofSeconds(30));
            Await.until("the patient reader queued its own node", Duration.ofSeconds(10),
                    () -> ZkTesting.children(a, "/w/m").size() == 3);
            CompletableFuture<Optional<Lease>> second = inThread(writesC, Duration.ofSeconds(30));
            Await.until("the second writer queued", Duration.ofSeconds(10), () -> ZkTesting.children(a, "/w/m").size() == 4);
            assertTrue(shortLead.get(10, TimeUnit.SECONDS).isEmpty(), "the short reader timed out");
            first.close();
            Lease read = patient.get(10, TimeUnit.SECONDS).orElseThrow();
            assertFalse(second.isDone(), "the writer that queued after the reader holds with it");
            read.close();
            Lease w = second.get(10, TimeUnit.SECONDS).orElseThrow();
            assertTrue(w.fencingToken() > read.fencingToken());
            w.close();
        }
    }

    /** Threads of {@code client} waiting on {@code path} for a node their client holds or is queueing. */
    private static int waitingLocally(CuratorFramework client, String path) {
        return CacheProbe.localWaits(client, path);
    }

    /** Whether a read node's data under {@code path} carries an ask (its asked-back-by line). */
    private static boolean readNodeAsked(CuratorFramework client, String path) {
        try {
            for (String child : ZkTesting.children(client, path)) {
                if (child.contains("read") && new String(client.getData().forPath(path + "/" + child), StandardCharsets.UTF_8)
                        .contains("asked-back-by=")) {
                    return true;
                }
            }
            return false;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
