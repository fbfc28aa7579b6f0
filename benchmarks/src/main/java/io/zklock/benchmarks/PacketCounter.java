package io.zklock.benchmarks;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The embedded server's own count of packets received (requests, plus pings: a client pings
 * only after a third of its session timeout without other traffic, which a measured run never
 * leaves it), read through JMX. The server's number, not what a client believes it sent.
 */
final class PacketCounter {
    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName server;

    /** Counts for the standalone server listening on {@code port} in this JVM. */
    PacketCounter(int port) {
        try {
            server = new ObjectName("org.apache.ZooKeeperService:name0=StandaloneServer_port" + port);
        } catch (JMException e) {
            throw new IllegalArgumentException("port " + port, e);
        }
        if (mbeans.queryNames(server, null).isEmpty()) {
            throw new IllegalStateException("no ZooKeeper server bean for port " + port);
        }
    }

    long packetsReceived() {
        try {
            return ((Number) mbeans.getAttribute(server, "PacketsReceived")).longValue();
        } catch (JMException e) {
            throw new IllegalStateException("cannot read PacketsReceived of " + server, e);
        }
    }
}
