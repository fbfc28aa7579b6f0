package io.zklock.conformance.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.QuietPorts;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the named fault tests share: a server of their own (they stop, restart and starve it,
 * so they never touch the suite's), with a 500 ms tick so that sessions may be as short as
 * 1 s and a session loss takes seconds; clients, direct or through a {@link FaultProxy},
 * closed after each test (proxies first, so that no client waits on a cut connection to
 * close); a fresh path per test and a client of its own to read what is left there.
 */
public abstract class ServerFaults {
    protected static final Duration LONG = Duration.ofSeconds(60);
    /** A session that outlives every fault of a test (the server caps it at 20 ticks, 10 s). */
    protected static final int SESSION_MS = 40_000;
    protected static final int TICK_MS = 500;
    protected static TestingServer server;

    protected final List<CuratorFramework> clients = new CopyOnWriteArrayList<>();
    protected final List<FaultProxy> proxies = new CopyOnWriteArrayList<>();
    protected String path;
    protected CuratorFramework checker;

    @BeforeAll
    protected static void startServer() throws Exception {
        server = new TestingServer(new InstanceSpec(null, QuietPorts.next(), -1, -1, true, -1, TICK_MS, -1), true);
    }

    @AfterAll
    protected static void stopServer() throws Exception {
        server.close();
    }

    @BeforeEach
    protected void freshPath() {
        path = "/faults/" + UUID.randomUUID();
        checker = client(SESSION_MS);
    }

    @AfterEach
    protected void closeAll() {
        proxies.forEach(FaultProxy::close);
        proxies.clear();
        clients.forEach(CuratorFramework::close);
        clients.clear();
    }

    protected static List<Recipe> recipes() {
        return Recipe.all();
    }

    protected CuratorFramework client(int sessionMs) {
        CuratorFramework client = ZkTesting.client(server.getConnectString(), sessionMs);
        clients.add(client);
        return client;
    }

    /** A client whose traffic goes through {@code proxy}. */
    protected CuratorFramework proxied(FaultProxy proxy, int sessionMs) {
        proxies.add(proxy);
        CuratorFramework client = ZkTesting.client(proxy.connectString(), sessionMs);
        clients.add(client);
        return client;
    }

    /** As many leases as shut a waiter of the recipe out. */
    protected static List<Lease> holdAll(Recipe recipe, DistributedLock lock) throws Exception {
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < recipe.holds(); i++) {
            leases.add(lock.tryAcquire(LONG).orElseThrow(() -> new AssertionError("holder not granted")));
        }
        return leases;
    }

    /** The lock nodes below the test's path. */
    protected List<String> nodes() {
        return ZkTesting.lockNodesBelow(checker, path);
    }

    protected void awaitNodes(int atLeast) {
        Await.until(atLeast + " nodes queued", LONG, () -> nodes().size() >= atLeast);
    }

    protected static long currentSession(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }
}
