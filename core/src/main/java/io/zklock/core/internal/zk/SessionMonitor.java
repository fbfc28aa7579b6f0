package io.zklock.core.internal.zk;

import java.lang.ref.WeakReference;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.zklock.core.LeaseValidity;
import org.apache.curator.CuratorZookeeperClient;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one connection-state listener of a Curator client, shared by every lock on it (and by
 * every namespace facade of it: monitors are keyed by the {@link CuratorZookeeperClient} they
 * all share). It tells the {@link SessionListener}s registered with it (held leases, waiting
 * requests, lost leases whose node is still to be deleted) of every connection and session
 * change, and keeps what the client's locks share: the watch counts of the session, the views
 * of its lock directories, the released nodes whose delete waits for a reconnection, and one
 * attachment per type (the registry of the lease caches, which this package does not know).
 */
public final class SessionMonitor {
    private static final Logger LOG = LoggerFactory.getLogger(SessionMonitor.class);
    private static final Map<CuratorZookeeperClient, SessionMonitor> MONITORS = new WeakHashMap<>();
    /** Directories whose view is kept, most recently used first: the hot locks of a client. */
    private static final int MAX_VIEWS = 1_024;
    /** The class of ZooKeeper's event threads (package-private, so known by name). */
    private static final String ZOOKEEPER_EVENT_THREAD = "org.apache.zookeeper.ClientCnxn$EventThread";

    private final WeakReference<CuratorZookeeperClient> zookeeper;   // the map's key: not held strongly
    private final Set<SessionListener> listeners = ConcurrentHashMap.newKeySet();
    private final Watches.Book watches = new Watches.Book(this::sessionId);
    private final Map<String, DirectoryView> views = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, DirectoryView> eldest) {
            return size() > MAX_VIEWS;
        }
    };                                                                  // guarded by itself
    /** The nodes of released leases whose delete has not landed yet, by server path: the session that owns each. */
    private final Map<String, Long> releasing = new ConcurrentHashMap<>();
    /** What the client's locks share beyond the session (the registry of lease caches), one per type. */
    private final Map<Class<?>, Object> attachments = new ConcurrentHashMap<>();
    private final SessionClock clock = new SessionClock();
    private volatile Thread eventThread;
    private LongSupplier detachedSession;  // set once, before the monitor is shared
    private volatile boolean closed;
    private volatile boolean multiCreateReturnsStat = true;

    private SessionMonitor(CuratorZookeeperClient zookeeper) {
        this.zookeeper = new WeakReference<>(zookeeper);
        LeaseValidity margin = LeaseValidity.fromSystemProperties();
        clock.margin(margin.fixed(), margin.rate());
    }

    /**
     * A monitor of no client, for an engine on a scripted port: its news come from
     * {@link #stateChanged}, its session id from {@code sessionId}.
     */
    public static SessionMonitor detached(LongSupplier sessionId) {
        SessionMonitor monitor = new SessionMonitor(null);
        monitor.detachedSession = sessionId;
        return monitor;
    }

    /**
     * The monitor of {@code client}, made the first time. A client's monitor leaves the registry
     * when the client closes; a closed client gets a closed monitor of its own, kept by nobody.
     */
    public static SessionMonitor of(CuratorFramework client) {
        CuratorZookeeperClient key = client.getZookeeperClient();
        SessionMonitor monitor;
        synchronized (MONITORS) {
            monitor = MONITORS.get(key);
            if (monitor != null) {
                return monitor;
            }
            monitor = new SessionMonitor(key);
            if (client.getState() != CuratorFrameworkState.STOPPED) {
                MONITORS.put(key, monitor.listenTo(client));
            }
        }
        if (client.getState() == CuratorFrameworkState.STOPPED) {
            monitor.clientClosing();           // closed before, or while, its listener was added
        }
        return monitor;
    }

    private SessionMonitor listenTo(CuratorFramework client) {
        try {
            client.getCuratorListenable().addListener((c, event) -> {
                if (event.getType() == CuratorEventType.CLOSING) {
                    clientClosing();
                }
            });
        } catch (UnsupportedOperationException e) {
            // a namespace facade has no CuratorListenable: closing is then seen as
            // CuratorClosedException on the next call, which fails waiters just the same
        }
        client.getConnectionStateListenable().addListener((c, state) -> stateChanged(state));
        clock.timeoutFrom(() -> {
            CuratorZookeeperClient zk = zookeeper.get();
            try {
                return closed || zk == null ? 0 : zk.getZooKeeper().getSessionTimeout();   // the negotiated one
            } catch (Exception e) {
                return 0;
            }
        });
        return this;
    }

    /**
     * The one object of {@code type} this client's locks share, made by {@code make} the first
     * time (the registry of the client's lease caches).
     *
     * @param type the attachment's class, its key
     * @param make makes it the first time
     * @return the client's attachment of that type
     */
    public <T> T attachment(Class<T> type, java.util.function.Supplier<? extends T> make) {
        return type.cast(attachments.computeIfAbsent(type, k -> make.get()));
    }

    /** {@return the attachment of {@code type} if one was made, else null; makes none} */
    public <T> T existingAttachment(Class<T> type) {
        return type.cast(attachments.get(type));
    }

    /**
     * The monitor of {@code client} if one was made (a lock was made on it), else null; makes none.
     *
     * @param client a Curator client
     * @return its monitor, or null
     */
    public static SessionMonitor existing(CuratorFramework client) {
        synchronized (MONITORS) {
            return MONITORS.get(client.getZookeeperClient());
        }
    }

    /** The id of the client's current session, or 0 when it has none. */
    long sessionId() {
        if (detachedSession != null) {
            return closed ? 0 : detachedSession.getAsLong();
        }
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

    /** The clock of the client's session: how long the server certainly keeps it (see SessionClock). */
    public SessionClock clock() {
        return clock;
    }

    /** This client's view of the lock directory at {@code serverPath} (see DirectoryView). */
    public DirectoryView view(String serverPath) {
        synchronized (views) {
            return views.computeIfAbsent(serverPath, p -> new DirectoryView());
        }
    }

    /** False once the server answered a create inside multi() without its Stat (ZOOKEEPER-4026). */
    public boolean multiCreateReturnsStat() {
        return multiCreateReturnsStat;
    }

    public void multiCreateWithoutStat() {
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

    /** The count of this session's waiters per server watch. */
    public Watches.Book watches() {
        return watches;
    }

    /*
     * Releases pending. A lease closed while the client is cut off keeps its node until the
     * delete lands on reconnection; nobody holds that node any more, so this session's own new
     * request must not queue behind it (other clients still see it, which only makes them wait).
     * A node is counted from a delete that met connection trouble until a reply that is not the
     * connection's (it landed, or will never be retried); one of an ended session is dropped at
     * the change. A connected client never counts one, so its hot path pays nothing.
     */

    /** The delete of {@code serverPath}, a released node of {@code session}, met connection trouble: it is retried. */
    public void releasing(String serverPath, long session) {
        releasing.put(serverPath, session);
    }

    /** The delete of {@code serverPath} was answered with something other than connection trouble. */
    public void released(String serverPath) {
        releasing.remove(serverPath);
    }

    /** Whether any release is pending. */
    public boolean anyReleasing() {
        return !releasing.isEmpty();
    }

    /** Whether {@code serverPath} is a node of {@code session} whose lease was released and whose delete is pending. */
    public boolean isReleasing(String serverPath, long session) {
        Long owner = releasing.get(serverPath);
        return owner != null && owner == session;
    }

    /** Registers {@code listener} for the session's news until it is removed. */
    public void addListener(SessionListener listener) {
        listeners.add(listener);
    }

    public void removeListener(SessionListener listener) {
        listeners.remove(listener);
    }

    /** Called by the port on every reply: the thread that delivers the session's replies and events. */
    void noteEventThread() {
        eventThread = Thread.currentThread();
    }

    /**
     * Whether the caller runs on a thread that delivers the session's replies and events, where
     * waiting for a reply would wait forever (the reply needs that very thread): ZooKeeper's
     * event thread of any handle of the client (a new session has a new one), or the last thread
     * a reply of ours arrived on (Curator delivers some callbacks on threads of its own).
     */
    public boolean isEventThread() {
        Thread current = Thread.currentThread();
        return current == eventThread || current.getClass().getName().equals(ZOOKEEPER_EVENT_THREAD);
    }

    /*
     * Listeners are told in no particular order, each from a snapshot: one that registers while
     * the news is delivered (a lease that turns LOST now, say) hears the next news only.
     */
    public void stateChanged(ConnectionState state) {
        List<SessionListener> told = List.copyOf(listeners);
        LOG.debug("connection state {}: {} leases and waiters told", state, told.size());
        switch (state) {
            case SUSPENDED, READ_ONLY -> told.forEach(SessionListener::suspended);
            case CONNECTED, RECONNECTED -> {
                long session = sessionId();
                watches.seen(session);         // before anybody re-registers: a new session's counts start empty
                if (session != 0) {
                    releasing.values().removeIf(owner -> owner != session);   // those went with their session
                }
                told.forEach(listener -> listener.reconnected(session));
            }
            case LOST -> told.forEach(SessionListener::lost);
        }
    }

    void clientClosing() {
        synchronized (MONITORS) {
            if (closed) {
                return;
            }
            closed = true;
            CuratorZookeeperClient key = zookeeper.get();
            if (key != null) {
                MONITORS.remove(key, this);
            }
        }
        clock.stop();
        List.copyOf(listeners).forEach(SessionListener::closing);
    }
}
