package io.zklock.conformance.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.testing.FaultProxy;
import io.zklock.conformance.harness.Recipe;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockAdmin;
import io.zklock.core.RevocationResult;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.ZkProbe;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Revocation under faults, run against every recipe: a request written while the holder is cut
 * off, an opt-in made while cut off, and a lost reply (to the holder's watch read, to the
 * request's write, to a semaphore's grant notice) each end as without the fault: the holder
 * hears the request once, lets go, the waiter is granted, and no node and no watch is left.
 * Session expiry and a reaped directory are in {@link LockConformance}.
 */
class RevocationFaultsTest extends ServerFaults {
    ZkProbe probe;

    @BeforeEach
    void probe() {
        probe = new ZkProbe(server.getPort());
    }

    /** A holder on a client behind its own proxy, opted in with {@code Lease::close}, and a waiter queued behind it. */
    private record Scene(FaultProxy proxy, List<Lease> held, List<Thread> ranOn, CompletableFuture<Lease> waiter) {
    }

    private Scene hold(Recipe recipe, boolean optIn) throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework holder = proxied(proxy, SESSION_MS);
        List<Lease> held = holdAll(recipe, recipe.create(holder, path));
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        if (optIn) {
            optIn(held, ranOn);
            Await.equal("revocation watches set", Recipe.nodeCount(held), LONG, probe::watchCount);
        }
        CompletableFuture<Lease> waiter = recipe.rival(client(SESSION_MS), path).acquireAsync(LONG);
        Await.until("the waiter queued", LONG, () -> nodes().size() > Recipe.nodeCount(held));
        return new Scene(proxy, held, ranOn, waiter);
    }

    private static void optIn(List<Lease> held, List<Thread> ranOn) {
        held.forEach(lease -> lease.onRevocationRequested(ConformanceSupport.recordingHandler(ranOn, new CountDownLatch(0), Lease::close)));
    }

    /** Cuts the holder's connection and waits until its leases know (SUSPENDED; the session lives on). */
    private static void cutOff(Scene scene) {
        scene.proxy().cut();
        Await.until("the holder's leases SUSPENDED", LONG,
                () -> scene.held().stream().allMatch(l -> l.state() == LeaseState.SUSPENDED));
    }

    /** Asks every lease of the scene to let go, through one node of each. */
    private void ask(Scene scene, LockAdmin admin) {
        for (Lease lease : scene.held()) {
            assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(Recipe.nodesOf(lease).get(0)));
        }
    }

    /** Every holder heard the request once on a library thread and let go; the waiter is granted; nothing is left. */
    private void assertLetGoAndClean(Scene scene) throws Exception {
        Await.equal("handlers run", scene.held().size(), LONG, scene.ranOn()::size);
        ConformanceSupport.assertLibraryThreads(scene.ranOn());
        Lease granted = scene.waiter().get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertTrue(granted.isValid());
        Await.until("the holder's leases RELEASED (its client hears of its delete after the waiter may)", LONG,
                () -> scene.held().stream().allMatch(l -> l.state() == LeaseState.RELEASED));
        granted.close();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
        Await.equal("watches left", 0, LONG, probe::watchCount);
        assertEquals(scene.held().size(), scene.ranOn().size(), "handlers run exactly once");
    }

    /**
     * Connection loss: a request written while the holder is cut off (its lease SUSPENDED, its
     * session alive) is heard when it reconnects, and it lets go.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void requestWrittenWhileTheHolderIsCutOffIsHeardWhenItReconnects(Recipe recipe) throws Exception {
        Scene scene = hold(recipe, true);
        cutOff(scene);

        ask(scene, new LockAdmin(checker));
        Thread.sleep(200);
        assertEquals(List.of(), scene.ranOn(), "told while cut off");
        scene.proxy().heal();

        assertLetGoAndClean(scene);
    }

    /**
     * Connection loss before the opt-in: a holder that opts in while cut off (its read cannot
     * be answered) and is asked meanwhile hears the request once it reconnects.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void holderThatOptsInWhileCutOffHearsThePendingRequestOnReconnection(Recipe recipe) throws Exception {
        Scene scene = hold(recipe, false);
        cutOff(scene);

        optIn(scene.held(), scene.ranOn());
        ask(scene, new LockAdmin(checker));
        Thread.sleep(200);
        scene.proxy().heal();

        assertLetGoAndClean(scene);
    }

    /**
     * A lost reply to the holder's watch read (the server set the watch, the client saw a
     * connection loss): the read is made good on reconnection, and a later request is heard.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void lostReplyToTheHoldersWatchReadIsMadeGoodOnReconnection(Recipe recipe) throws Exception {
        Scene scene = hold(recipe, false);
        Set<String> nodes = Set.copyOf(scene.held().stream().flatMap(l -> Recipe.nodesOf(l).stream()).toList());
        scene.proxy().dropReplyTo(OpCode.getData, nodes::contains);

        optIn(scene.held(), scene.ranOn());
        Await.equal("a reply dropped", 1, LONG, scene.proxy()::repliesDropped);
        ask(scene, new LockAdmin(checker));

        assertLetGoAndClean(scene);
    }

    /**
     * A lost reply to the request's write (the server applied it, the requester saw a
     * connection loss and its client wrote again): the requester still reports REQUESTED, not
     * ALREADY_REQUESTED, and the node carries the request once; the holder, opting in then,
     * hears it once and lets go.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void lostReplyToTheRequestsWriteIsStillReportedRequestedAndHeardOnce(Recipe recipe) throws Exception {
        Scene scene = hold(recipe, false);
        FaultProxy requesterProxy = FaultProxy.to(server.getConnectString());
        LockAdmin admin = new LockAdmin(proxied(requesterProxy, SESSION_MS));
        String node = Recipe.nodesOf(scene.held().get(0)).get(0);
        requesterProxy.dropReplyTo(OpCode.setData, node::equals);

        RevocationResult result = admin.requestRevocation(node);

        assertEquals(1, requesterProxy.repliesDropped(), "the write's reply was lost");
        assertEquals(RevocationResult.REQUESTED, result, "the result of a request whose write landed");
        String data = new String(checker.getData().forPath(node), StandardCharsets.UTF_8);
        assertEquals(1, data.split("revoke-requested=", -1).length - 1, "requests in the node: " + data);
        for (Lease lease : scene.held().subList(1, scene.held().size())) {
            assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(Recipe.nodesOf(lease).get(0)));
        }
        optIn(scene.held(), scene.ranOn());
        assertLetGoAndClean(scene);
    }

    /**
     * The version-0 grant notice racing a request: a semaphore node asked while it waits (its
     * data version moved) is granted with a waiter behind it, and the reply to its first or
     * second grant-notice write is lost. The waiter two behind it, which watches it and a node
     * whose process died (frozen: that node moves into a permit and never announces), hears
     * only that notice, still moves up and takes the next free permit (no stranded permit), and
     * then sleeps (no busy loop).
     */
    @ParameterizedTest(name = "reply to grant-notice write {0} lost")
    @ValueSource(ints = {1, 2})
    void semaphoreNodeAskedWhileWaitingStillWakesTheWaiterBehindItWhenGrantedAndItsNoticeReplyIsLost(int lostWrite)
            throws Exception {
        int permits = 3;
        CuratorFramework holderClient = client(SESSION_MS);
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework askedClient = proxied(proxy, SESSION_MS);
        FaultProxy deadProxy = FaultProxy.to(server.getConnectString());
        CuratorFramework deadClient = proxied(deadProxy, SESSION_MS);
        CuratorFramework behindClient = client(SESSION_MS);
        List<Lease> holders = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            holders.add(new ZkSemaphore(holderClient, path, permits).acquire());
        }
        DistributedLock askedLock = new ZkSemaphore(askedClient, path, permits);
        CompletableFuture<Lease> asked = askedLock.acquireAsync(LONG);
        awaitNodes(permits + 1);
        new ZkSemaphore(deadClient, path, permits).acquireAsync(LONG);
        awaitNodes(permits + 2);
        CompletableFuture<Lease> behind = new ZkSemaphore(behindClient, path, permits).acquireAsync(LONG);
        awaitNodes(permits + 3);
        ConformanceSupport.awaitQuiet(probe, Set.of(currentSession(deadClient), currentSession(behindClient)));
        deadProxy.freeze();                    // its process dies: nothing more from it reaches the server
        String askedNode = nodes().stream().sorted((a, b) -> a.substring(a.lastIndexOf('-')).compareTo(b.substring(b.lastIndexOf('-'))))
                .toList().get(permits);
        assertEquals(RevocationResult.REQUESTED, new LockAdmin(checker).requestRevocation(askedNode));
        AtomicInteger writes = new AtomicInteger();
        proxy.beforeRequest((opcode, p) -> {
            if (opcode == OpCode.setData && askedNode.equals(p) && writes.incrementAndGet() == lostWrite) {
                proxy.dropReplyTo(OpCode.setData, askedNode::equals);
            }
        });

        holders.get(0).close();
        Lease askedLease = asked.get(LONG.toSeconds(), TimeUnit.SECONDS);
        Await.until("the grant notice landed", LONG, () -> {
            try {
                return new String(checker.getData().forPath(askedNode), StandardCharsets.UTF_8).contains("granted=yes");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        holders.get(1).close();                // the dead node moves into a permit
        holders.get(2).close();                // a permit is free while the asked and the dead node hold
        Lease behindLease = behind.get(Await.scaled(ConformanceSupport.REVOCATION_BOUND).toMillis(), TimeUnit.MILLISECONDS);

        Await.equal("the notice's reply lost", 1, LONG, proxy::repliesDropped);   // seen applied by another client before the proxy took the reply
        assertTrue(askedLease.isValid() && behindLease.isValid());
        Set<Long> sessions = Set.of(currentSession(askedClient), currentSession(behindClient));
        ConformanceSupport.awaitQuiet(probe, sessions);
        String data = new String(checker.getData().forPath(askedNode), StandardCharsets.UTF_8);
        assertEquals(1, data.split("revoke-requested=", -1).length - 1, "requests in the node: " + data);
        assertFalse(data.indexOf("granted=yes") != data.lastIndexOf("granted=yes"), "one grant notice: " + data);
        proxy.beforeRequest(null);
        askedLease.close();
        behindLease.close();
        deadProxy.heal();                      // its session ends by a close, not by an expiry
        deadClient.close();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
        Await.equal("watches left", 0, LONG, probe::watchCount);
    }
}
