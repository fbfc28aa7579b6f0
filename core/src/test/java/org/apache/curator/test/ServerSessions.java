package org.apache.curator.test;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.Set;

import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.SessionTracker;
import org.apache.zookeeper.server.SessionTrackerImpl;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * The server's own expiry of a session, read from an embedded {@link TestingServer} in this
 * JVM: its session tracker's expiry queue, in the server's milliseconds
 * ({@code System.nanoTime() / 1_000_000}, the same clock as the client's here). Test code
 * only; it lives in Curator's test package because {@code TestingServer} keeps its server
 * package-private.
 */
public final class ServerSessions {
    private ServerSessions() {
    }

    /**
     * The time, in {@code System.nanoTime() / 1_000_000} milliseconds, at or after which the
     * server expires {@code sessionId} if it hears nothing more; -1 if it does not know the session.
     *
     * @param server a started standalone testing server
     * @param sessionId the session
     * @return the expiry, or -1
     */
    public static long expiryMillis(TestingServer server, long sessionId) {
        ZooKeeperServer zk = zooKeeperServer(server.getTestingZooKeeperServer().getMain());
        SessionTracker tracker = zk.getSessionTracker();
        if (!(tracker instanceof SessionTrackerImpl impl)) {
            throw new IllegalStateException("not a standalone server's tracker: " + tracker);
        }
        for (Map.Entry<Long, Set<Long>> e : impl.getSessionExpiryMap().entrySet()) {
            if (e.getValue().contains(sessionId)) {
                return e.getKey();
            }
        }
        return -1;
    }

    /** The server behind Curator's test face: its own, or the embedded server's (read by reflection, test code only). */
    private static ZooKeeperServer zooKeeperServer(ZooKeeperMainFace main) {
        if (main instanceof TestingZooKeeperMain standalone) {
            return standalone.getZkServer();
        }
        try {
            Object embedded = field(main, "zooKeeperEmbedded");
            Object single = field(embedded, "mainsingle");
            ServerCnxnFactory factory = (ServerCnxnFactory) field(single, "cnxnFactory");
            return factory.getZooKeeperServer();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot reach the server of " + main, e);
        }
    }

    private static Object field(Object owner, String name) throws ReflectiveOperationException {
        for (Class<?> c = owner.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(owner);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(name + " in " + owner.getClass());
    }
}
