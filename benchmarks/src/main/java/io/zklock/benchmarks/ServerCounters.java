package io.zklock.benchmarks;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The embedded server's own counts, read through JMX: packets received (requests, plus pings:
 * a client pings only after a third of its session timeout without other traffic, which a
 * measured run never leaves it) and the watches it holds now. The server's numbers, not what
 * a client believes it sent or registered. Notifications are counted by
 * {@link NotificationCounter}.
 */
final class ServerCounters {
    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName server;
    private final ObjectName dataTree;
    private final long[] serverThreads;
    private final long madeBy;

    /** Counts for the standalone server listening on {@code port} in this JVM. */
    ServerCounters(int port) {
        try {
            server = new ObjectName("org.apache.ZooKeeperService:name0=StandaloneServer_port" + port);
            dataTree = new ObjectName("org.apache.ZooKeeperService:name0=StandaloneServer_port" + port
                    + ",name1=InMemoryDataTree");
        } catch (JMException e) {
            throw new IllegalArgumentException("port " + port, e);
        }
        if (mbeans.queryNames(server, null).isEmpty()) {
            throw new IllegalStateException("no ZooKeeper server bean for port " + port);
        }
        // made right after the server started, before any client: every other live thread is the server's
        long self = Thread.currentThread().getId();
        madeBy = self;
        serverThreads = java.util.Arrays.stream(ManagementFactory.getThreadMXBean().getAllThreadIds())
                .filter(id -> id != self).toArray();
    }

    /**
     * CPU time used so far by the threads that were alive when this counter was made (right
     * after the embedded server started): the server's threads, and the JVM's few service
     * threads, which are idle. Garbage collection and compilation are in no Java thread and
     * count as the clients' with the rest of the process.
     */
    long serverCpuNanos() {
        var threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : serverThreads) {
            long t = threads.getThreadCpuTime(id);
            if (t > 0) {
                sum += t;
            }
        }
        return sum;
    }

    /** Ids of the threads that are not the clients': the server's and the JVM's, and the thread that made this. */
    java.util.Set<Long> nonClientThreads() {
        var ids = new java.util.HashSet<Long>();
        for (long id : serverThreads) {
            ids.add(id);
        }
        ids.add(madeBy);
        return ids;
    }

    long packetsReceived() {
        try {
            return ((Number) mbeans.getAttribute(server, "PacketsReceived")).longValue();
        } catch (JMException e) {
            throw new IllegalStateException("cannot read PacketsReceived of " + server, e);
        }
    }

    /** Packets received so far from each connected session (requests, plus pings), keyed by session id. */
    java.util.Map<Long, Long> packetsBySession() {
        java.util.Map<Long, Long> out = new java.util.HashMap<>();
        try {
            ObjectName pattern = new ObjectName(server.getCanonicalName() + ",name1=Connections,*");
            for (ObjectName name : mbeans.queryNames(pattern, null)) {
                String id = name.getKeyProperty("name3");
                if (id != null) {
                    out.put(Long.parseUnsignedLong(id.replace("0x", ""), 16), ((Number) mbeans.getAttribute(name, "PacketsReceived")).longValue());
                }
            }
        } catch (JMException e) {
            throw new IllegalStateException("cannot read the connection beans of " + server, e);
        }
        return out;
    }

    /** Watches the server holds now, data and child watches of every session (its {@code wchs} total). */
    int watchCount() {
        try {
            return ((Number) mbeans.getAttribute(dataTree, "WatchCount")).intValue();
        } catch (JMException e) {
            throw new IllegalStateException("cannot read WatchCount of " + dataTree, e);
        }
    }

    /** Nodes in the server's tree now. */
    long nodeCount() {
        try {
            return ((Number) mbeans.getAttribute(dataTree, "NodeCount")).longValue();
        } catch (JMException e) {
            throw new IllegalStateException("cannot read NodeCount of " + dataTree, e);
        }
    }
}
