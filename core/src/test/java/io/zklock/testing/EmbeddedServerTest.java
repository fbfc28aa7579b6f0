package io.zklock.testing;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of a recipe's contract tests: a fresh embedded ZooKeeper per test, on a {@linkplain
 * QuietPorts quiet port} so that a test may stop and restart it, and two connected clients on it
 * ({@code client} and {@code other}, two sessions), closed after the test.
 */
public abstract class EmbeddedServerTest {
    /** How long a test waits on observable state before it fails (scaled by {@link Await#FACTOR}). */
    protected static final Duration LONG = Duration.ofSeconds(30);

    protected TestingServer server;
    protected CuratorFramework client;
    protected CuratorFramework other;

    @BeforeEach
    void startServerAndClients() throws Exception {
        server = new TestingServer(QuietPorts.next(), true);     // tests stop and restart it
        client = ZkTesting.client(server.getConnectString(), 20_000);
        other = ZkTesting.client(server.getConnectString(), 20_000);
    }

    @AfterEach
    void stopServerAndClients() throws Exception {
        other.close();
        client.close();
        server.close();
    }
}
