package io.zklock.core.internal.cache;

import java.time.Duration;

import io.zklock.core.internal.zk.SessionMonitor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;

/**
 * What tests read of a client's lease caches, through their package-private state (not API; the
 * caches keep no count for it): the threads waiting inside the process, and the escalation
 * bound a test lengthens so that none happens within it.
 */
public final class CacheProbe {
    private CacheProbe() {
    }

    /**
     * How many threads wait, on {@code client}'s caches of the lock directory {@code path} (any
     * kind), for a node their client holds or is queueing instead of queueing one of their own:
     * local waits for a busy permit, readers blocked on the read node another reader of the
     * client queues. A thread leaves the count before it moves on to queue a node.
     *
     * @param client a Curator client
     * @param path a lock directory, as the client names it
     * @return the number of such threads now; 0 if the client has no cache
     */
    public static int localWaits(CuratorFramework client, String path) {
        SessionMonitor monitor = SessionMonitor.existing(client);
        LeaseCaches caches = monitor == null ? null : LeaseCaches.existing(monitor);
        if (caches == null) {
            return 0;
        }
        int n = 0;
        for (LeaseCache cache : caches.on(ZKPaths.fixForNamespace(client.getNamespace(), path))) {
            n += cache.localWaits();
        }
        return n;
    }

    /** {@return how many caches {@code client} has on {@code path} now (an empty one is dropped)} */
    public static int caches(CuratorFramework client, String path) {
        SessionMonitor monitor = SessionMonitor.existing(client);
        LeaseCaches caches = monitor == null ? null : LeaseCaches.existing(monitor);
        return caches == null ? 0 : caches.on(ZKPaths.fixForNamespace(client.getNamespace(), path)).size();
    }

    /** Sets {@code client}'s escalation bound (asks and local waits) to {@code bound}. */
    static void escalateAfter(CuratorFramework client, Duration bound) {
        LeaseCaches.of(SessionMonitor.of(client)).escalateAfter(bound);
    }
}
