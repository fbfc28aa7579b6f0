package io.zklock.conformance.harness;

import io.zklock.testing.ZkProbe;
import org.apache.curator.test.TestingServer;

/**
 * One embedded ZooKeeper for the whole conformance run. Every try works under a fresh path,
 * so tries never see each other's nodes. Empty containers are reaped every 100 ms so that the
 * cleanup property can observe it.
 */
public final class SharedServer {
    private static SharedServer instance;

    public final TestingServer server;
    public final ZkProbe probe;

    private SharedServer() throws Exception {
        System.setProperty("znode.container.checkIntervalMs", "100");
        server = new TestingServer(true);
        probe = new ZkProbe(server.getPort());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                // the JVM is exiting
            }
        }));
    }

    public static synchronized SharedServer get() {
        if (instance == null) {
            try {
                instance = new SharedServer();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the embedded ZooKeeper", e);
            }
        }
        return instance;
    }

    public String connectString() {
        return server.getConnectString();
    }
}
