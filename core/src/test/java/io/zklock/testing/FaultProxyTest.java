package io.zklock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each fault of {@link FaultProxy} does what it says, seen from both ends: from the proxied
 * Curator client (its connection states, its calls' outcomes) and from the server (through a
 * second client that does not go through the proxy).
 */
class FaultProxyTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private static TestingServer server;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private CuratorFramework direct;

    @BeforeAll
    static void startServer() throws Exception {
        // tickTime 200 ms: the server accepts session timeouts from 0.4 s to 4 s
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    private FaultProxy proxy() {
        return proxy(1);
    }

    /** A proxy with {@code addresses} local addresses, each forwarding to the one server. */
    private FaultProxy proxy(int addresses) {
        FaultProxy proxy = FaultProxy.to(String.join(",", Collections.nCopies(addresses, server.getConnectString())));
        toClose.add(proxy);
        direct = ZkTesting.client(server.getConnectString(), 4_000);
        toClose.add(direct);
        return proxy;
    }

    /** A started, connected client through {@code proxy} that records its connection states. */
    private CuratorFramework clientThrough(FaultProxy proxy, int sessionTimeoutMs, boolean retry,
            List<ConnectionState> states) throws Exception {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(proxy.connectString())
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(sessionTimeoutMs)
                .retryPolicy(retry ? new RetryNTimes(50, 100) : new RetryNTimes(0, 0))
                .ensembleTracker(false)
                .build();
        client.getConnectionStateListenable().addListener((c, state) -> states.add(state));
        client.start();
        toClose.add(client);
        assertTrue(client.blockUntilConnected(20, TimeUnit.SECONDS), "connected through the proxy");
        return client;
    }

    private static long sessionOf(CuratorFramework client) throws Exception {
        return client.getZookeeperClient().getZooKeeper().getSessionId();
    }

    /** to() parses every host:port of a connect string, gives one local port per server, and keeps a chroot. */
    @Test
    void toListensOnOneLocalPortPerServerAndKeepsTheChroot() {
        try (FaultProxy proxy = FaultProxy.to("127.0.0.1:1, localhost:2,127.0.0.1:3/some/root")) {
            String local = proxy.connectString();
            assertTrue(local.endsWith("/some/root"), local);
            String[] hosts = local.substring(0, local.indexOf('/')).split(",");
            assertEquals(3, hosts.length, local);
            for (String host : hosts) {
                assertTrue(host.startsWith("127.0.0.1:"), local);
            }
        }
    }

    /** A short freeze holds a request on the open connection; heal delivers it, with no reconnection. */
    @Test
    void shortFreezeHoldsARequestAndHealDeliversItOnTheSameConnection() throws Exception {
        FaultProxy proxy = proxy();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        CuratorFramework client = clientThrough(proxy, 4_000, true, states);
        int connections = proxy.connectionsAccepted();
        proxy.freeze();
        CompletableFuture<Integer> done = new CompletableFuture<>();
        client.create().inBackground((c, event) -> done.complete(event.getResultCode())).forPath("/held");
        Thread.sleep(400);
        assertFalse(done.isDone(), "request answered through a frozen proxy");
        assertNull(direct.checkExists().forPath("/held"), "request reached the server through a frozen proxy");
        proxy.heal();
        assertEquals(KeeperException.Code.OK.intValue(), done.get(LONG.toSeconds(), TimeUnit.SECONDS));
        assertEquals(connections, proxy.connectionsAccepted(), "connections accepted");
        assertEquals(List.of(), states.stream().filter(s -> s != ConnectionState.CONNECTED).toList());
    }

    /** A freeze past the read timeout suspends the client; a background call made meanwhile completes after heal, on the same session. */
    @Test
    void freezeSuspendsTheClientAndABackgroundCallCompletesAfterHeal() throws Exception {
        FaultProxy proxy = proxy();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        CuratorFramework client = clientThrough(proxy, 4_000, true, states);
        long session = sessionOf(client);
        proxy.freeze();
        Await.until("client SUSPENDED", LONG, () -> states.contains(ConnectionState.SUSPENDED));
        CompletableFuture<Integer> done = new CompletableFuture<>();
        client.create().inBackground((c, event) -> done.complete(event.getResultCode())).forPath("/after-freeze");
        Thread.sleep(300);
        assertFalse(done.isDone(), "call completed while frozen");
        proxy.heal();
        assertEquals(KeeperException.Code.OK.intValue(), done.get(LONG.toSeconds(), TimeUnit.SECONDS));
        assertNotNull(direct.checkExists().forPath("/after-freeze"));
        Await.until("client RECONNECTED", LONG, () -> states.contains(ConnectionState.RECONNECTED));
        assertEquals(session, sessionOf(client), "session kept");
        assertFalse(states.contains(ConnectionState.LOST), "states " + states);
    }

    /**
     * Deafen: requests still reach the server, so the session stays alive there past its
     * timeout (its ephemeral node survives) while the client, hearing nothing, goes SUSPENDED
     * then LOST; once the client has given the session up, the server expires it.
     */
    @Test
    void deafenKeepsTheSessionAliveOnTheServerWhileTheClientReportsLost() throws Exception {
        // Three addresses of the one server: ZooKeeper's client gives each connect attempt
        // sessionTimeout / addresses and pauses below 1 s before the next, so a deaf client's
        // ConnectRequests reach the server at least every 1.7 s and keep a 2 s session alive
        // for as long as the deafness lasts. With one address a retry can come 2-3 s after the
        // last, and the server may expire the session at the moment Curator declares it LOST.
        FaultProxy proxy = proxy(3);
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        int timeout = 2_000;
        CuratorFramework client = clientThrough(proxy, timeout, true, states);
        long session = sessionOf(client);
        client.create().withMode(CreateMode.EPHEMERAL).forPath("/deaf");
        long deafened = System.nanoTime();
        proxy.deafen();
        Await.until("client SUSPENDED", LONG, () -> states.contains(ConnectionState.SUSPENDED));
        Await.until("client LOST", LONG, () -> states.contains(ConnectionState.LOST));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deafened);
        assertTrue(elapsedMs > timeout, "LOST after " + elapsedMs + " ms");
        Stat stat = direct.checkExists().forPath("/deaf");
        assertNotNull(stat, "the session's ephemeral node died on the server " + elapsedMs + " ms into deafness");
        assertEquals(session, stat.getEphemeralOwner());
        // The client has dropped the session and stops touching it: the server expires it.
        Await.until("old session's node gone", LONG, () -> {
            try {
                return direct.checkExists().forPath("/deaf") == null;
            } catch (Exception e) {
                return false;
            }
        });
        proxy.heal();
        Await.until("client connected again", LONG, () -> client.getZookeeperClient().isConnected());
        assertTrue(sessionOf(client) != session, "a new session after LOST");
    }

    /** A short deafness: the request reaches the server but its reply is dropped; heal closes the damaged connection and the client reconnects on the same session. */
    @Test
    void shortDeafnessLosesTheReplyAndHealReplacesTheDamagedConnection() throws Exception {
        FaultProxy proxy = proxy();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        CuratorFramework client = clientThrough(proxy, 15_000, true, states);
        long session = sessionOf(client);
        int connections = proxy.connectionsAccepted();
        proxy.deafen();
        CompletableFuture<Integer> done = new CompletableFuture<>();
        client.create().inBackground((c, event) -> done.complete(event.getResultCode())).forPath("/deaf-short");
        Await.until("the request applied on the server", LONG, () -> {
            try {
                return direct.checkExists().forPath("/deaf-short") != null;
            } catch (Exception e) {
                return false;
            }
        });
        Thread.sleep(200);
        assertFalse(done.isDone(), "a reply came through a deaf proxy");
        proxy.heal();
        // Well before the client's own read timeout (2/3 of 15 s after deafness began) would replace
        // it, with room for the client's random reconnect delay (up to 1 s) on a loaded machine:
        Await.until("a new connection soon after heal", Duration.ofSeconds(6), () -> proxy.connectionsAccepted() > connections);
        int rc = done.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertTrue(rc == KeeperException.Code.OK.intValue() || rc == KeeperException.Code.NODEEXISTS.intValue(), "rc " + rc);
        Await.until("client reconnected", LONG, () -> client.getZookeeperClient().isConnected());
        assertEquals(session, sessionOf(client), "session kept");
    }

    /** Cut closes the connection and refuses new ones: SUSPENDED, no reconnection until heal, then the same session again. */
    @Test
    void cutLosesTheConnectionAndHealReconnectsWithTheSameSession() throws Exception {
        FaultProxy proxy = proxy();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        CuratorFramework client = clientThrough(proxy, 4_000, true, states);
        long session = sessionOf(client);
        int connections = proxy.connectionsAccepted();
        proxy.cut();
        Await.until("client SUSPENDED", LONG, () -> states.contains(ConnectionState.SUSPENDED));
        Thread.sleep(800);          // the client retries meanwhile; each try is refused
        assertEquals(connections, proxy.connectionsAccepted(), "connections accepted while cut");
        assertFalse(client.getZookeeperClient().isConnected(), "connected through a cut proxy");
        proxy.heal();
        Await.until("client RECONNECTED", LONG, () -> states.contains(ConnectionState.RECONNECTED));
        assertEquals(session, sessionOf(client), "session kept");
        assertTrue(proxy.connectionsAccepted() > connections, "a new connection after heal");
        assertFalse(states.contains(ConnectionState.LOST), "states " + states);
    }

    /** A lost create reply: the node exists on the server, the caller saw CONNECTIONLOSS, and only that one reply was lost. */
    @Test
    void droppedCreateReplyLeavesTheNodeButTheCallerSeesConnectionLoss() throws Exception {
        FaultProxy proxy = proxy();
        CuratorFramework client = clientThrough(proxy, 4_000, false, new CopyOnWriteArrayList<>());
        // Curator 5 sends every create as create2 (the reply carries a Stat)
        proxy.dropReplyTo(OpCode.create2, p -> p.startsWith("/lost-create"));
        client.create().forPath("/other");   // does not match: its reply arrives
        assertThrows(KeeperException.ConnectionLossException.class, () -> client.create().forPath("/lost-create"));
        assertEquals(1, proxy.repliesDropped());
        assertNotNull(direct.checkExists().forPath("/lost-create"), "the create was applied");
        client.getZookeeperClient().blockUntilConnectedOrTimedOut();
        client.create().forPath("/lost-create-2");    // one-shot: this reply arrives
        assertEquals(1, proxy.repliesDropped());
    }

    /** A lost delete reply: the node is gone on the server, the caller saw CONNECTIONLOSS. */
    @Test
    void droppedDeleteReplyRemovesTheNodeButTheCallerSeesConnectionLoss() throws Exception {
        FaultProxy proxy = proxy();
        CuratorFramework client = clientThrough(proxy, 4_000, false, new CopyOnWriteArrayList<>());
        client.create().forPath("/lost-delete");
        proxy.dropReplyTo(OpCode.delete, "/lost-delete"::equals);
        assertThrows(KeeperException.ConnectionLossException.class, () -> client.delete().forPath("/lost-delete"));
        assertEquals(1, proxy.repliesDropped());
        assertNull(direct.checkExists().forPath("/lost-delete"), "the delete was applied");
    }

    /** A lost multi reply, matched on its first op's path: the whole transaction was applied, the caller saw CONNECTIONLOSS. */
    @Test
    void droppedMultiReplyMatchesTheFirstOpAndTheTransactionWasApplied() throws Exception {
        FaultProxy proxy = proxy();
        CuratorFramework client = clientThrough(proxy, 4_000, false, new CopyOnWriteArrayList<>());
        proxy.dropReplyTo(OpCode.multi, "/multi-a"::equals);
        CuratorOp a = client.transactionOp().create().forPath("/multi-a");
        CuratorOp b = client.transactionOp().create().forPath("/multi-b");
        assertThrows(KeeperException.ConnectionLossException.class, () -> client.transaction().forOperations(a, b));
        assertEquals(1, proxy.repliesDropped());
        assertNotNull(direct.checkExists().forPath("/multi-a"));
        assertNotNull(direct.checkExists().forPath("/multi-b"));
    }

    /** The request hook sees each request's opcode and path (a multi's first op) before the server does, and can change the world in between. */
    @Test
    void beforeRequestSeesOpcodesAndPathsAndRunsBeforeTheServer() throws Exception {
        FaultProxy proxy = proxy();
        CuratorFramework client = clientThrough(proxy, 4_000, false, new CopyOnWriteArrayList<>());
        List<String> seen = new CopyOnWriteArrayList<>();
        proxy.beforeRequest((opcode, path) -> seen.add(opcode + " " + path));
        client.create().forPath("/hook-a");
        client.getData().forPath("/hook-a");
        client.transaction().forOperations(client.transactionOp().create().forPath("/hook-b"),
                client.transactionOp().delete().forPath("/hook-a"));
        assertTrue(seen.containsAll(List.of(OpCode.create2 + " /hook-a", OpCode.getData + " /hook-a",
                OpCode.multi + " /hook-b")), "seen " + seen);
        // The race on purpose: the directory vanishes just before the create reaches the server.
        client.create().forPath("/hook-dir");
        proxy.beforeRequest((opcode, path) -> {
            if (opcode == OpCode.create2 && "/hook-dir/child".equals(path)) {
                direct.delete().forPath("/hook-dir");
            }
        });
        assertThrows(KeeperException.NoNodeException.class, () -> client.create().forPath("/hook-dir/child"));
        proxy.beforeRequest(null);
        client.create().forPath("/hook-dir");
        client.create().forPath("/hook-dir/child");
    }
}
