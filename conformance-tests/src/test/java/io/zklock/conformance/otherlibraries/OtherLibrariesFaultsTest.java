package io.zklock.conformance.otherlibraries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.testing.FaultProxy;
import io.zklock.conformance.harness.Recipe;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.testing.Await;
import io.zklock.testing.FencedResource;
import io.zklock.testing.Sessions;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The known failures of other lock libraries, each replayed against every recipe with the
 * fault that caused it made to happen on purpose: a client's traffic goes through a
 * {@link FaultProxy}, which loses one reply, cuts or deafens that client alone.
 */
class OtherLibrariesFaultsTest extends ServerFaults {
    private static final int SHORT_SESSION_MS = 3_000;

    private static int releaseOpcode(Recipe recipe) {
        return recipe.name().equals("multi-lock") ? OpCode.multi : OpCode.delete;
    }

    private static int createOpcode(Recipe recipe) {
        return recipe.name().equals("multi-lock") ? OpCode.multi : OpCode.create2;
    }

    /**
     * etcd #11456: a waiter whose session dies while it waits is never granted on the dead
     * session; it queues again on its new session and, once the holder releases, is granted a
     * lease whose node belongs to that live session.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void etcd11456_waiterWhoseSessionDiedIsGrantedOnlyOnItsLiveSession(Recipe recipe) throws Exception {
        CuratorFramework holderClient = client(SESSION_MS);
        CuratorFramework waiterClient = client(SESSION_MS);
        List<Lease> held = holdAll(recipe, recipe.create(holderClient, path));
        CompletableFuture<Lease> waiting = recipe.rival(waiterClient, path).acquireAsync(LONG);
        awaitNodes(Recipe.nodeCount(held) + 1);
        long deadSession = waiterClient.getZookeeperClient().getZooKeeper().getSessionId();
        Sessions.expire(waiterClient, server.getConnectString());
        Await.until("the waiter's new session", LONG, () -> currentSession(waiterClient) != deadSession
                && currentSession(waiterClient) != 0 && waiterClient.getZookeeperClient().isConnected());
        Await.until("the waiter queued again", LONG, () -> nodes().size() > Recipe.nodeCount(held));
        assertFalse(waiting.isDone(), "the waiter was granted while the holder holds");
        held.forEach(Lease::close);
        Lease granted = waiting.get(LONG.toSeconds(), TimeUnit.SECONDS);
        long live = currentSession(waiterClient);
        for (String node : Recipe.nodesOf(granted)) {
            Stat stat = checker.checkExists().forPath(node);
            assertNotNull(stat, "the granted node exists: " + node);
            assertEquals(live, stat.getEphemeralOwner(), "the granted node belongs to the waiter's live session");
        }
        assertTrue(granted.isValid());
        granted.close();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * etcd #22082: a release whose delete reply is lost is retried, and the retry never
     * deletes the lock of the holder granted in between: that holder keeps its node and its
     * lease, and the stale lease ends RELEASED.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void etcd22082_retriedReleaseNeverDeletesTheNextHoldersNode(Recipe recipe) throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework holderClient = proxied(proxy, SESSION_MS);
        CuratorFramework waiterClient = client(SESSION_MS);
        List<Lease> held = holdAll(recipe, recipe.create(holderClient, path));
        CompletableFuture<Lease> waiting = recipe.rival(waiterClient, path).acquireAsync(LONG);
        awaitNodes(Recipe.nodeCount(held) + 1);
        proxy.dropReplyTo(releaseOpcode(recipe), p -> p != null && p.startsWith(path + "/"));
        held.forEach(Lease::close);
        Lease next = waiting.get(LONG.toSeconds(), TimeUnit.SECONDS);
        Await.equal("the release's reply lost", 1, LONG, proxy::repliesDropped);   // the waiter may be granted before the proxy takes the reply
        Await.until("the stale leases RELEASED", LONG,
                () -> held.stream().allMatch(l -> l.state() == LeaseState.RELEASED));
        for (String node : Recipe.nodesOf(next)) {
            assertNotNull(checker.checkExists().forPath(node), "the next holder's node survived the retry: " + node);
        }
        assertTrue(next.isValid(), "the next holder's lease is valid");
        next.close();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * CURATOR-604: a waiter whose session Curator declared lost, and whose old node reached
     * the head of the queue while the server still kept that session, is not granted on the
     * dead session's node when it reconnects: once the server drops that session, the waiter
     * queued behind is still not granted beside the first holder, judged by a fenced resource
     * (a semaphore frees one permit only, so the two waiters compete for one place); neither
     * waiter is ever granted a lease on a node of the dead session.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void curator604_noDoubleLockThroughADeadSessionsNodeAfterReconnection(Recipe recipe) throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework doomedClient = proxied(proxy, SHORT_SESSION_MS);
        CompletableFuture<Void> sessionLost = new CompletableFuture<>();
        doomedClient.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST) {
                sessionLost.complete(null);
            }
        });
        CuratorFramework holderClient = client(SESSION_MS);
        CuratorFramework otherClient = client(SESSION_MS);
        List<Lease> held = holdAll(recipe, recipe.create(holderClient, path));
        CompletableFuture<Lease> doomed = recipe.rival(doomedClient, path).acquireAsync(LONG);
        awaitNodes(Recipe.nodeCount(held) + 1);
        CompletableFuture<Lease> other = recipe.rival(otherClient, path).acquireAsync(LONG);
        awaitNodes(Recipe.nodeCount(held) + 2);
        long deadSession = currentSession(doomedClient);
        proxy.deafen();                        // its requests still reach the server: the old session lives on
        sessionLost.get(LONG.toSeconds(), TimeUnit.SECONDS);
        held.get(0).close();                   // one place frees: the dead session's node is the first in line for it
        proxy.heal();

        FencedResource resource = new FencedResource(1, true);
        CompletableFuture.anyOf(doomed, other).get(LONG.toSeconds(), TimeUnit.SECONDS);
        CompletableFuture<Lease> firstFuture = doomed.isDone() ? doomed : other;
        CompletableFuture<Lease> secondFuture = firstFuture == doomed ? other : doomed;
        Lease first = firstFuture.get();
        assertNotGrantedOn(deadSession, first);
        assertTrue(resource.enter(first.fencingToken()), "first holder refused");
        Await.until("the server dropped the dead session", LONG, () -> ownedBy(deadSession).isEmpty());
        assertFalse(secondFuture.isDone() && secondFuture.get().isValid() && first.isValid(),
                "two valid holders once the dead session's node went");
        resource.exit(first.fencingToken());
        first.close();
        Lease second = secondFuture.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertNotGrantedOn(deadSession, second);
        assertTrue(resource.enter(second.fencingToken()), "second holder refused as stale");
        resource.exit(second.fencingToken());
        second.close();
        assertEquals(List.of(), resource.overlaps());
        held.forEach(Lease::close);
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /** No node of {@code lease} belongs to {@code deadSession}: the dead session's node granted nothing. */
    private void assertNotGrantedOn(long deadSession, Lease lease) throws Exception {
        for (String node : Recipe.nodesOf(lease)) {
            Stat stat = checker.checkExists().forPath(node);
            assertTrue(stat == null || stat.getEphemeralOwner() != deadSession,
                    "granted on the node of the session Curator declared lost: " + node);
        }
    }

    /** Nodes below the path whose ephemeral owner is {@code session}. */
    private List<String> ownedBy(long session) {
        List<String> owned = new ArrayList<>();
        for (String node : nodes()) {
            try {
                Stat stat = checker.checkExists().forPath(node);
                if (stat != null && stat.getEphemeralOwner() == session) {
                    owned.add(node);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return owned;
    }

    /**
     * CURATOR-678: a release whose delete cannot reach ZooKeeper keeps the node in mind and
     * deletes it once the connection is back, so the next waiter is granted while the
     * releasing client's session is still alive (it never expires here).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void curator678_releaseThatFailedToDeleteIsRetriedOnReconnection(Recipe recipe) throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework holderClient = proxied(proxy, SESSION_MS);
        CuratorFramework waiterClient = client(SESSION_MS);
        List<Lease> held = holdAll(recipe, recipe.create(holderClient, path));
        long session = currentSession(holderClient);
        CompletableFuture<Lease> waiting = recipe.rival(waiterClient, path).acquireAsync(LONG);
        awaitNodes(Recipe.nodeCount(held) + 1);
        proxy.cut();
        held.forEach(Lease::close);
        held.forEach(l -> assertTrue(l.state() != LeaseState.RELEASED, "RELEASED while its node is on the server"));
        proxy.heal();
        Lease next = waiting.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertEquals(session, currentSession(holderClient), "the releasing client kept its session");
        Await.until("the released leases RELEASED", LONG,
                () -> held.stream().allMatch(l -> l.state() == LeaseState.RELEASED));
        next.close();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * CURATOR-315/462: the reply to a waiter's create is lost to the connection and the
     * request then times out: no node of it is left behind while its session lives, and the
     * lock is granted to the next request at once.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void curator315_462_lostCreateReplyDuringAcquireLeavesNoOrphanNode(Recipe recipe) throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework holderClient = client(SESSION_MS);
        CuratorFramework waiterClient = proxied(proxy, SESSION_MS);
        List<Lease> held = holdAll(recipe, recipe.create(holderClient, path));
        DistributedLock lock = recipe.rival(waiterClient, path);
        proxy.dropReplyTo(createOpcode(recipe), p -> p != null && p.startsWith(path + "/"));
        Optional<Lease> got = lock.tryAcquire(Duration.ofMillis(1_500));
        assertTrue(got.isEmpty(), "granted while the holder holds");
        assertEquals(1, proxy.repliesDropped(), "the create's reply was lost");
        Await.equal("nodes besides the holder's", Recipe.nodeCount(held), LONG, () -> nodes().size());
        held.forEach(Lease::close);
        Lease next = lock.tryAcquire(LONG).orElseThrow(() -> new AssertionError("not granted after the loss"));
        assertTrue(next.isValid());
        next.close();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * CURATOR-315/462 on the one-round-trip path: the reply to a re-acquire's transaction is
     * lost; the client finds out whether it created its node, holds the lock with exactly one
     * node, and leaves none once it releases.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void curator315_462_lostReacquireReplyLeavesExactlyOneNode(Recipe recipe) throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework client = proxied(proxy, SESSION_MS);
        DistributedLock lock = recipe.create(client, path);
        lock.tryAcquire(LONG).orElseThrow().close();           // the next acquire may take the one-transaction path
        proxy.dropReplyTo(OpCode.multi, p -> p != null && (p + "/").startsWith(path + "/"));
        Lease lease = lock.tryAcquire(LONG).orElseThrow(() -> new AssertionError("not granted after the loss"));
        assertEquals(1, proxy.repliesDropped(), "the transaction's reply was lost");
        assertEquals(Recipe.nodesOf(lease).size(), nodes().size(), "exactly the lease's nodes: " + nodes());
        lease.close();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

}
