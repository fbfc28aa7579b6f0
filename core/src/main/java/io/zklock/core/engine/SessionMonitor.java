package io.zklock.core.engine;

import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.curator.CuratorZookeeperClient;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.state.ConnectionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one connection-state listener of a Curator client, shared by every lock on it (and by
 * every namespace facade of it: monitors are keyed by the {@link CuratorZookeeperClient} they
 * all share). It moves held leases between HELD, SUSPENDED and LOST, and wakes waiters and
 * unfinished releases when the connection comes back or the session is lost.
 *
 * <p>A lease is bound to the session that created its node: on reconnection with a different
 * session id the node is gone, so the lease is LOST even if Curator reported no LOST state.
 */
final class SessionMonitor {
    private static final Logger LOG = LoggerFactory.getLogger(SessionMonitor.class);
    private static final Map<CuratorZookeeperClient, SessionMonitor> MONITORS = new WeakHashMap<>();
    /** Directories whose view is kept, most recently used first: the hot locks of a client. */
    private static final int MAX_VIEWS = 1_024;

    private final WeakReference<CuratorZookeeperClient> zookeeper;   // the map's key: not held strongly
    final Set<ZkLease> held = ConcurrentHashMap.newKeySet();
    final Set<Acquisition> waiting = ConcurrentHashMap.newKeySet();
    final Set<ZkLease> releasing = ConcurrentHashMap.newKeySet();
    /** Lost leases whose node may outlive their session on the server: deleted on reconnection. */
    final Set<ZkLease> orphans = ConcurrentHashMap.newKeySet();
    private final Map<WatchKey, Integer> watchRefs = new HashMap<>();   // guarded by itself
    private final Map<String, DirectoryView> views = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, DirectoryView> eldest) {
            return size() > MAX_VIEWS;
        }
    };                                                                  // guarded by itself
    private volatile boolean closed;
    private volatile boolean multiCreateReturnsStat = true;

    private SessionMonitor(CuratorZookeeperClient zookeeper) {
        this.zookeeper = new WeakReference<>(zookeeper);
    }

    static SessionMonitor of(CuratorFramework client) {
        CuratorZookeeperClient key = client.getZookeeperClient();
        synchronized (MONITORS) {
            SessionMonitor monitor = MONITORS.get(key);
            if (monitor == null) {
                monitor = new SessionMonitor(key);
                SessionMonitor m = monitor;
                try {
                    client.getCuratorListenable().addListener((c, event) -> {
                        if (event.getType() == CuratorEventType.CLOSING) {
                            m.clientClosing();
                        }
                    });
                } catch (UnsupportedOperationException e) {
                    // a namespace facade has no CuratorListenable: closing is then seen as
                    // CuratorClosedException on the next call, which fails waiters just the same
                }
                client.getConnectionStateListenable().addListener((c, state) -> m.stateChanged(state));
                MONITORS.put(key, monitor);
            }
            return monitor;
        }
    }

    /** The id of the client's current session, or 0 when it has none. */
    long sessionId() {
        CuratorZookeeperClient zk = zookeeper.get();
        if (closed || zk == null) {
            return 0;
        }
        try {
            return zk.getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /** This client's view of the lock directory at {@code serverPath} (see DirectoryView). */
    DirectoryView view(String serverPath) {
        synchronized (views) {
            return views.computeIfAbsent(serverPath, p -> new DirectoryView());
        }
    }

    /** False once the server answered a create inside multi() without its Stat (ZOOKEEPER-4026). */
    boolean multiCreateReturnsStat() {
        return multiCreateReturnsStat;
    }

    void multiCreateWithoutStat() {
        if (multiCreateReturnsStat) {
            multiCreateReturnsStat = false;
            LOG.info("the ZooKeeper server returns no Stat for a create inside multi() (a server before 3.7.2, "
                    + "3.8.2 or 3.9.0); fencing tokens are read with one more request, and re-acquires take the plain path");
        }
    }

    boolean isConnected() {
        CuratorZookeeperClient zk = zookeeper.get();
        return !closed && zk != null && zk.isConnected();
    }

    boolean isClosed() {
        return closed;
    }

    /*
     * Server-side watches. ZooKeeper keeps one watch per path and session, whatever number of
     * client-side watchers share it, and removing one watcher does not remove the server's
     * watch: only "remove all watches of this path" does. So the monitor counts the waiters of
     * this session watching each path, and asks the server to remove the watch only when the
     * last of them gives up. Registration and removal are issued under the same lock, so a
     * removal can never overtake a registration issued before it (one session's requests are
     * processed in order). A registration whose outcome is unknown is never uncounted: an
     * overcount leaves a watch until its node goes, an undercount could strand a waiter.
     */

    /** Issues a watch registration and counts it. */
    void watchIssued(WatchKey key, Runnable issue) {
        synchronized (watchRefs) {
            watchRefs.merge(key, 1, Integer::sum);
            issue.run();
        }
    }

    /**
     * One registration is over. If it was the last of its key and {@code remove} is set, the
     * server's watch is removed through {@code engine}; the future completes after that.
     */
    CompletableFuture<Void> watchEnded(WatchKey key, boolean remove, LockEngine engine) {
        synchronized (watchRefs) {
            Integer left = watchRefs.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
            if (left == null && remove) {
                return engine.removeAllWatches(key);
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    private void stateChanged(ConnectionState state) {
        LOG.debug("connection state {}: {} held, {} waiting, {} releasing",
                state, held.size(), waiting.size(), releasing.size());
        switch (state) {
            case SUSPENDED, READ_ONLY -> {
                held.forEach(ZkLease::suspend);
                releasing.forEach(ZkLease::stopWaiting);   // a close waiting on the delete returns; retried on reconnection
            }
            case CONNECTED, RECONNECTED -> {
                orphans.forEach(ZkLease::deleteOrphan);   // first: leases lost below delete their own
                long session = sessionId();
                held.forEach(lease -> lease.reconnected(session));
                releasing.forEach(ZkLease::retryDelete);
                waiting.forEach(Acquisition::kick);
            }
            case LOST -> {
                // Curator posts LOST after it made a new handle, and listeners before us may
                // delay it: leases granted on the new session meanwhile are not lost. The
                // session is read again for each lease, since the new one may connect midway.
                held.forEach(lease -> loseUnlessCurrent(lease));
                releasing.forEach(lease -> loseUnlessCurrent(lease));
                waiting.forEach(Acquisition::kick);
            }
        }
    }

    private void loseUnlessCurrent(ZkLease lease) {
        if (lease.sessionId() != sessionId()) {
            lease.lose();
        }
    }

    private void clientClosing() {
        closed = true;
        orphans.clear();                       // closing the client ends the session and its nodes
        held.forEach(ZkLease::lose);
        releasing.forEach(ZkLease::lose);
        waiting.forEach(Acquisition::clientClosing);
    }
}
