package io.zklock.testing;

import java.lang.management.ManagementFactory;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Reads an in-process ZooKeeper server's own counters through JMX: requests received, watches
 * registered and znodes stored. These are the server's numbers, not the client's belief.
 */
public final class ZkProbe {
    private final ObjectName server;
    private final ObjectName dataTree;
    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();

    /** Probes the standalone server listening on {@code port} in this JVM. */
    public ZkProbe(int port) {
        try {
            this.server = new ObjectName("org.apache.ZooKeeperService:name0=StandaloneServer_port" + port);
            this.dataTree = new ObjectName("org.apache.ZooKeeperService:name0=StandaloneServer_port" + port
                    + ",name1=InMemoryDataTree");
            Set<ObjectName> found = mbeans.queryNames(server, null);
            if (found.isEmpty()) {
                throw new IllegalStateException("no ZooKeeper server bean for port " + port);
            }
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Packets the server has received from all clients (requests and pings). */
    public long packetsReceived() {
        return ((Number) attribute(server, "PacketsReceived")).longValue();
    }

    /** Watches registered on the server, over all sessions. */
    public int watchCount() {
        return ((Number) attribute(dataTree, "WatchCount")).intValue();
    }

    /** Znodes stored on the server. */
    public long nodeCount() {
        return ((Number) attribute(dataTree, "NodeCount")).longValue();
    }

    /**
     * Requests the server receives while {@code action} runs. Pings also count, so the caller
     * uses a client whose session timeout makes a ping within the window unlikely, and takes
     * the least of a few windows: a ping can only add.
     */
    public long requestsDuring(ThrowingRunnable action) throws Exception {
        long before = packetsReceived();
        action.run();
        return packetsReceived() - before;
    }

    private Object attribute(ObjectName name, String attribute) {
        try {
            return mbeans.getAttribute(name, attribute);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + name + " " + attribute, e);
        }
    }

    /** An action that may throw. */
    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }
}
