package io.zklock.testing;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
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
     * Packets received so far from each connected session, keyed by session id: how a test
     * counts which clients a release woke (a woken waiter re-reads the directory; a waiter
     * left asleep sends nothing but pings, which a client sends only after a third of its
     * session timeout without other traffic: have every session send a request just before
     * the window, and keep the window short).
     */
    public Map<Long, Long> packetsBySession() {
        Map<Long, Long> out = new HashMap<>();
        try {
            ObjectName pattern = new ObjectName(server.getCanonicalName() + ",name1=Connections,*");
            for (ObjectName name : mbeans.queryNames(pattern, null)) {
                String id = name.getKeyProperty("name3");
                if (id != null) {
                    out.put(Long.parseUnsignedLong(id.replace("0x", ""), 16),
                            ((Number) mbeans.getAttribute(name, "PacketsReceived")).longValue());
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the connection beans", e);
        }
        return out;
    }

    /** Packets each of {@code sessions} has sent so far (0 for one not connected). */
    public Map<Long, Long> packets(Set<Long> sessions) {
        Map<Long, Long> all = packetsBySession();
        Map<Long, Long> out = new HashMap<>();
        sessions.forEach(s -> out.put(s, all.getOrDefault(s, 0L)));
        return out;
    }

    /**
     * Waits until none of {@code sessions} has sent a packet for {@code quiet}: what a count of
     * requests starts from, however slow the machine is to finish what came before.
     *
     * @throws AssertionError if they are not quiet within {@code limit}
     */
    public void awaitQuiet(Set<Long> sessions, Duration quiet, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        Map<Long, Long> last = packets(sessions);
        long since = System.nanoTime();
        while (System.nanoTime() - since < quiet.toNanos()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("sessions " + sessions + " never went quiet");
            }
            Thread.sleep(10);
            Map<Long, Long> now = packets(sessions);
            if (!now.equals(last)) {
                last = now;
                since = System.nanoTime();
            }
        }
    }

    /** Sessions among {@code sessions} that sent at least one packet while {@code action} ran. */
    public Set<Long> sessionsActiveDuring(Set<Long> sessions, ThrowingRunnable action) throws Exception {
        Map<Long, Long> before = packetsBySession();
        action.run();
        Map<Long, Long> after = packetsBySession();
        Set<Long> active = new HashSet<>();
        for (Long session : sessions) {
            if (after.getOrDefault(session, 0L) > before.getOrDefault(session, 0L)) {
                active.add(session);
            }
        }
        return active;
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
