package io.zklock.conformance.faults;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.conformance.harness.Recipe;
import io.zklock.conformance.harness.Recipe.Component;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.MultiLease;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.AssertionFailedError;

/**
 * A waiter that listens, faulted on its own connection: a waiter of one client queued behind
 * nodes of another, in a client that keeps a cached node of its own (so its tree watch was
 * added once), or in one that keeps none behind nodes whose holders hear creations (its wait
 * adds the watch), waits by hearing their deletion through that tree watch, with no watch on
 * the nodes ahead. Then its connection is cut and restored, or deafened (the deletion's event
 * dropped) and reconnected on the same session, or its session expires; the holder lets go
 * while the waiter is cut off or deaf, or once it listens again on its new session. Property:
 * the waiter is granted within {@link #GRANT} of the fault's end, never while the holder holds
 * (at its grant the holder had begun to let go of every lease, and no node ahead is on the
 * server: read after the grant, a node still there was there at it), and no node is left once
 * everyone closes. Each case also proves that the waiter listened: it
 * read each node ahead only to ask it back (a cached node), once per node it queued, or not at
 * all (a node that is not cached, which it never asks), never to watch it (a waiter that
 * watches reads the node again for the watch).
 *
 * <p>Every recipe whose waiter listens is run ({@link #LISTENERS}): a mutex waiter behind a
 * cached mutex node, a writer behind cached read nodes (in a client that keeps a node, and in
 * one that keeps none), a multi-lock whose component waits
 * behind a cached mutex node (each component waits as a single lock's node does), and a
 * cached reader behind a writer's node, which is not cached (a waiter listens behind such a node
 * where its client's tree watch covers the root already: this reader's client keeps a cached
 * node beside the lock, and on a new session after an expiry, with that node gone, it watches).
 * No other waiter listens: the semaphore's driver announces grants in a node's data, which a tree
 * watch's count does not tell, a client that never added a tree watch listens only behind nodes
 * whose holders hear creations (elsewhere its first addWatch could probe a 3.5 server), and
 * a waiter behind nodes that are not cached, where its client keeps none under their root,
 * watches them. The five wait side by side in one test, each on a client and a proxy of its
 * own and faulted at once, so that a fault's reconnection is paid once per fault, not once per
 * recipe.
 */
class ListeningWaiterFaultsTest extends ServerFaults {
    /** How long after the fault's end (the holder let go, the connection restored) a waiter may take to be granted. */
    private static final Duration GRANT = Await.scaled(Duration.ofSeconds(10));

    /** A fault of the waiter's connection. */
    enum Fault {
        /** Cut off; the holder lets go; restored, on the same session. */
        CUT,
        /** Deafened: the holder lets go and the deletion's event is dropped; the proxy then closes the connection. */
        DEAFEN,
        /** The session expires; the waiter queues again and listens again; the holder lets go. */
        EXPIRY
    }

    /**
     * A waiter that listens, and who it waits behind.
     *
     * @param name the case's name, in failure messages
     * @param holder the recipe of the cached nodes ahead
     * @param holds how many leases the holder keeps, each on a node of its own
     * @param subPath where the nodes ahead are, below the listener's path
     * @param waiter makes the waiter's lock on the listener's path
     * @param asks how often the waiter reads each node ahead per node it queues: 1 to ask it back
     *        (a cached node), 0 for a node that is not cached
     * @param kept where the waiter's client keeps a cached node of its own (a waiter listens behind
     *        a node that is not cached only where its client's tree watch covers that root already)
     * @param readsOnItsNewSession reads of each node ahead allowed after its session expired: a
     *        waiter behind a node that is not cached watches on the new session, where its
     *        client keeps no node under the root any more
     */
    record Listener(String name, Recipe holder, int holds, String subPath, Recipe.LockFactory waiter, int asks,
            Kept kept, int readsOnItsNewSession) {
    }

    /** Where a waiter's client keeps a cached node of its own, before its wait. */
    enum Kept {
        /**
         * Nowhere: the client never added a tree watch. It listens behind nodes whose holders hear
         * creations (their mark says a tree watch was added on their client, so the server has
         * them), adding its root's watch for the wait.
         */
        NOWHERE,
        /** Under another root than its directory's: its tree watch was added once, and its wait adds its root's. */
        ELSEWHERE,
        /** Under its directory's root: its tree watch covers that root already. */
        UNDER_ITS_ROOT
    }

    private static final List<Listener> LISTENERS = List.of(
            new Listener("mutex behind a cached mutex", Recipe.CACHED_MUTEX, 1, "", Recipe.CACHED_MUTEX::rival, 1, Kept.ELSEWHERE, 0),
            new Listener("writer behind cached readers", Recipe.CACHED_READ_LOCK, 2, "", Recipe.CACHED_READ_LOCK::rival, 1,
                    Kept.ELSEWHERE, 0),
            new Listener("writer of a client keeping no node, behind cached readers", Recipe.CACHED_READ_LOCK, 2, "",
                    Recipe.CACHED_READ_LOCK::rival, 1, Kept.NOWHERE, 0),
            new Listener("multi-lock behind a cached mutex", Recipe.CACHED_MUTEX, 1, "/mutex", (c, p) -> Recipe.multiLock(
                    List.of(new Component("/mutex", Recipe.CACHED_MUTEX), new Component("/other", Recipe.MUTEX)), c, p), 1,
                    Kept.ELSEWHERE, 0),
            new Listener("cached reader behind a writer", Recipe.WRITE_LOCK, 1, "", Recipe.CACHED_READ_LOCK::create, 0,
                    Kept.UNDER_ITS_ROOT, 1));

    /** A request a waiter's client sent, as its proxy saw it. */
    private record Sent(int opcode, String path) {
    }

    /**
     * Through a cut, a deafened connection or a session expiry of its own connection, a waiter
     * that listens behind another client's nodes is granted once the holder lets go, never
     * while the holder holds, having read the nodes ahead only to ask them back (cached nodes)
     * or not at all; no node is left once everyone closes.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Fault.class)
    void aListeningWaiterIsGrantedThroughAFaultOfItsConnectionOnlyOnceTheHolderLetsGo(Fault fault) throws Exception {
        CuratorFramework holderClient = client(SESSION_MS);
        awaitHearsCreations(holderClient);
        List<Waiting> waits = sideBySide(LISTENERS, l -> new Waiting(l, path + "/" + LISTENERS.indexOf(l), holderClient));
        sideBySide(waits, Waiting::queue);
        int queued = fault(fault, waits);
        assertAll(waits.stream().map(w -> (Executable) () -> w.assertGranted(queued,
                fault == Fault.EXPIRY ? w.listener.readsOnItsNewSession() : 0)));
        for (Waiting w : waits) {
            w.closeAll();
        }
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * Returns once {@code client}'s cached nodes say that their holder hears creations: a
     * client's first cached node does not (it is made before a tree watch was added on the
     * client), later ones do. The nodes are kept under a path of their own.
     */
    private void awaitHearsCreations(CuratorFramework client) throws Exception {
        long deadline = System.nanoTime() + LONG.toNanos();
        for (int made = 0; System.nanoTime() - deadline < 0; made++) {
            try (Lease lease = Recipe.CACHED_MUTEX.create(client, path + "-holder/" + made).acquire()) {
                if (LockNode.parse(ZKPaths.getNodeFromPath(lease.nodePath())).orElseThrow().hearsCreations()) {
                    return;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionFailedError("no cached node of the holder's client marked as hearing creations within " + LONG);
    }

    /** Applies {@code fault} to every waiter's connection at once, the holders letting go meanwhile; {@return how many nodes each waiter queued} */
    private int fault(Fault fault, List<Waiting> waits) throws Exception {
        switch (fault) {
            case CUT -> {
                waits.forEach(w -> w.proxy.cut());
                for (Waiting w : waits) {
                    Await.equal(w + ": cut off", false, LONG, () -> w.client.getZookeeperClient().isConnected());
                }
                waits.forEach(Waiting::letGo);
                waits.forEach(Waiting::awaitAheadGone);
                waits.forEach(w -> w.proxy.heal());
                return 1;
            }
            case DEAFEN -> {
                List<Long> sessions = waits.stream().map(w -> currentSession(w.client)).toList();
                List<Integer> dropped = waits.stream().map(w -> w.proxy.framesDeafened()).toList();
                waits.forEach(w -> w.proxy.deafen());
                waits.forEach(Waiting::letGo);
                waits.forEach(Waiting::awaitAheadGone);
                for (int i = 0; i < waits.size(); i++) {
                    Waiting w = waits.get(i);
                    int before = dropped.get(i);
                    Await.until(w + ": the deletion's event dropped", LONG, () -> w.proxy.framesDeafened() > before);
                }
                waits.forEach(w -> w.proxy.heal());
                for (int i = 0; i < waits.size(); i++) {
                    Waiting w = waits.get(i);
                    Await.until(w + ": back", LONG, () -> w.client.getZookeeperClient().isConnected());
                    assertEquals(sessions.get(i), currentSession(w.client), w + ": the same session throughout");
                }
                return 1;
            }
            case EXPIRY -> {
                sideBySide(waits, Waiting::expireAndListenAgain);
                waits.forEach(Waiting::letGo);
                return 2;
            }
            default -> throw new IllegalArgumentException(fault.name());
        }
    }

    /** A step of one listener's, which may fail. */
    @FunctionalInterface
    private interface Step<T, R> {
        R run(T on) throws Exception;
    }

    /**
     * Runs {@code step} on each of {@code items}, each on a thread of its own, side by side (the
     * listeners' waits, one per client, are independent); {@return the results, in order} once
     * all are done; the first failure, if any, is thrown.
     */
    private static <T, R> List<R> sideBySide(List<T> items, Step<T, R> step) throws Exception {
        List<CompletableFuture<R>> done = new ArrayList<>();
        for (T item : items) {
            CompletableFuture<R> one = new CompletableFuture<>();
            new Thread(() -> {
                try {
                    one.complete(step.run(item));
                } catch (Throwable e) {
                    one.completeExceptionally(e);
                }
            }, "listener " + item).start();
            done.add(one);
        }
        List<R> results = new ArrayList<>();
        for (CompletableFuture<R> one : done) {
            try {
                results.add(one.get());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
        return results;
    }

    /** One listener's clients, locks and leases, and what its waiter's client sent. */
    private final class Waiting {
        final Listener listener;
        final String dir;                      // where the nodes ahead are
        final FaultProxy proxy = FaultProxy.to(server.getConnectString());
        final CuratorFramework client = proxied(proxy, SESSION_MS);
        final List<Sent> sent = new CopyOnWriteArrayList<>();
        final AtomicInteger holding = new AtomicInteger();
        final DistributedLock kept;
        final DistributedLock holderLock;
        final DistributedLock waiterLock;
        final List<Lease> held = new ArrayList<>();
        CompletableFuture<Lease> granted;
        CompletableFuture<int[]> atGrant;      // at the grant: the holder's leases held, its nodes on the server

        /**
         * The waiter's client, through a proxy that logs what it sends, keeps a cached node of
         * its own as the listener says: under another root ({@code base}-kept/lock; its tree
         * watch is added once, and its wait adds its own root's), under its root, or none (its
         * wait adds its root's watch, the first of its client). The holder takes its leases,
         * each on a node of its own (an asynchronous acquisition never re-enters).
         */
        Waiting(Listener listener, String base, CuratorFramework holderClient) throws Exception {
            this.listener = listener;
            this.dir = base + listener.subPath();
            proxy.beforeRequest((opcode, node) -> sent.add(new Sent(opcode, node)));
            if (listener.kept() == Kept.NOWHERE) {
                kept = null;
            } else {
                kept = Recipe.CACHED_MUTEX.create(client, base + (listener.kept() == Kept.UNDER_ITS_ROOT ? "-kept" : "-kept/lock"));
                kept.acquire().close();
                Await.until(this + ": the tree watch added (are tree watches off?)", LONG,
                        () -> sent.stream().anyMatch(s -> s.opcode() == OpCode.addWatch));
                barrier();
            }
            holderLock = listener.holder().create(holderClient, dir);
            List<CompletableFuture<Lease>> pending = new ArrayList<>();
            for (int i = 0; i < listener.holds(); i++) {
                pending.add(holderLock.acquireAsync(LONG));
            }
            for (CompletableFuture<Lease> p : pending) {
                held.add(p.get(LONG.toMillis(), TimeUnit.MILLISECONDS));
                holding.incrementAndGet();
            }
            waiterLock = listener.waiter().make(client, base);
        }

        /** The waiter queues behind the holder's nodes; returns once it listens. */
        Waiting queue() throws Exception {
            int mark = sent.size();
            granted = waiterLock.acquireAsync(LONG);
            atGrant = granted.thenApply(lease -> new int[] {holding.get(), aheadOnServer()});   // a node still there was there at the grant
            listening(mark, 1);
            return this;
        }

        /**
         * Returns once the waiter listens: it listed the directory since {@code mark} (the
         * listing sent right behind its create), it read every node ahead for its ask (the
         * {@code queued}-th time, once per node it queued, if the listener asks; a node whose
         * holder hears creations is asked after a short bound, after the wait chose how to wait),
         * it listed after any root watch its wait added since {@code mark}, and its client's
         * event thread has run the answers of all that (a call sent after them answers there
         * after them).
         */
        void listening(int mark, int queued) throws Exception {
            Await.until(this + ": listed since it queued", LONG, () -> {
                List<Sent> log = List.copyOf(sent);
                List<Sent> since = log.subList(mark, log.size());
                return since.contains(new Sent(OpCode.getChildren2, dir)) || since.contains(new Sent(OpCode.getChildren, dir));
            });
            int asks = queued * listener.asks();
            Await.until(this + ": every node ahead read for its ask", LONG, () -> ahead().stream().allMatch(n -> reads(n) >= asks));
            barrier();
            String root = ZKPaths.getPathAndNode(dir).getPath();
            Await.until(this + ": listed after its root's watch was added", LONG, () -> {
                List<Sent> log = List.copyOf(sent);
                List<Sent> since = log.subList(mark, log.size());
                int added = since.lastIndexOf(new Sent(OpCode.addWatch, root));
                return added < 0 || since.lastIndexOf(new Sent(OpCode.getChildren2, dir)) > added
                        || since.lastIndexOf(new Sent(OpCode.getChildren, dir)) > added;
            });
            barrier();
        }

        /** Its session expires; returns once it queued again on its new session and listens again. */
        Waiting expireAndListenAgain() throws Exception {
            List<String> before = ZkTesting.children(checker, dir);
            int mark = sent.size();
            Sessions.expire(client, server.getConnectString());
            Await.until(this + ": queued again on the new session, the old node gone", LONG, () -> {
                List<String> now = ZkTesting.children(checker, dir);
                return now.size() == before.size() && !now.equals(before);
            });
            listening(mark, 2);
            return this;
        }

        void letGo() {
            for (Lease lease : held) {
                holding.decrementAndGet();
                lease.close();
            }
        }

        /** Returns once every node ahead is gone on the server: the holder's letting go is done, while the fault lasts. */
        void awaitAheadGone() {
            Await.until(this + ": the nodes ahead gone", LONG, () -> aheadOnServer() == 0);
        }

        /** How many of the nodes ahead are on the server now (read through the checker's own session). */
        private int aheadOnServer() {
            return (int) ahead().stream().filter(n -> {
                try {
                    return checker.checkExists().forPath(n) != null;
                } catch (Exception e) {
                    throw new IllegalStateException("cannot read " + n, e);
                }
            }).count();
        }

        /**
         * Granted in time, never while the holder held, above the holder's tokens, having read each
         * node ahead only to ask it, and {@code watchReads} times more at most.
         */
        void assertGranted(int queued, int watchReads) throws Exception {
            Lease lease;
            try {
                lease = granted.get(GRANT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new AssertionFailedError(this + ": not granted within " + GRANT + " of the fault's end", e);
            }
            int[] at = atGrant.get(LONG.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(0, at[0], this + ": holder leases still held when the waiter was granted");
            assertEquals(0, at[1], this + ": nodes ahead still on the server when the waiter was granted");
            long token = tokenIn(lease);
            held.forEach(h -> assertTrue(token > h.fencingToken(), this + ": token " + token + " not above the holder's " + h.fencingToken()));
            int asks = queued * listener.asks();
            for (String node : ahead()) {
                assertTrue(reads(node) <= asks + watchReads, this + ": " + reads(node) + " reads of " + node + " ahead, more than its "
                        + asks + " ask(s) for the " + queued + " node(s) it queued and " + watchReads
                        + " on a new session (it watched instead of listening)");
            }
            lease.close();
        }

        /** Every lock closed, releasing what it cached; none of the waiter's own cached nodes left. */
        void closeAll() {
            for (DistributedLock lock : java.util.Arrays.asList(waiterLock, holderLock, kept)) {     // kept: null if none
                if (lock instanceof ZkMultiLock multi) {
                    multi.locks().forEach(Recipe::closeLock);
                }
                Recipe.closeLock(lock);
            }
        }

        private List<String> ahead() {
            return held.stream().map(Lease::nodePath).toList();
        }

        /** The fencing token of {@code lease} on the directory of the nodes ahead. */
        private long tokenIn(Lease lease) {
            if (lease instanceof MultiLease multi) {
                return multi.components().stream().filter(c -> c.nodePath().startsWith(dir + "/")).findFirst().orElseThrow().fencingToken();
            }
            return lease.fencingToken();
        }

        /** The waiter's client's reads of {@code node} (getData, exists): an ask's, or a watch's. */
        private int reads(String node) {
            return (int) sent.stream().filter(s -> node.equals(s.path()) && (s.opcode() == OpCode.getData || s.opcode() == OpCode.exists)).count();
        }

        /** Returns once the waiter's client's event thread has run the answers of everything it sent before. */
        private void barrier() throws Exception {
            CountDownLatch behind = new CountDownLatch(1);
            client.checkExists().inBackground((c, event) -> behind.countDown()).forPath("/");
            assertTrue(behind.await(LONG.toMillis(), TimeUnit.MILLISECONDS), this + ": the event thread past its answers");
        }

        @Override
        public String toString() {
            return listener.name();
        }
    }
}
