package io.zklock.core.observe;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.zklock.core.spi.queue.LockKind;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LockObserver}s of this process. Any number may be installed, each until its
 * {@link Installation} is closed, each either for the locks of one {@code CuratorFramework}
 * client ({@link #install(CuratorFramework, LockObserver)}: an application's, so two
 * applications in one JVM each hear only their own locks) or for every lock of the process
 * ({@link #install(LockObserver)}); each hears its events in the order they were installed.
 * A lock is the client's it was made with; a multi-lock's, its locks' client.
 *
 * <p>The installed observers are one array, replaced on each change: with none installed the
 * engine reads it once per request, finds it empty and does nothing else (no clock read, no
 * allocation). With some installed, a request picks those for its client when it begins
 * ({@link #requestStarted}), and only they hear of it and of the nodes it was granted.
 */
public final class LockObservers {
    private static final Logger LOG = LoggerFactory.getLogger(LockObservers.class);
    private static final Entry[] NONE = new Entry[0];

    private static volatile Entry[] installed = NONE;   // replaced, never changed, under the class lock

    private LockObservers() {
    }

    /** An installed observer: closing it uninstalls it. */
    public interface Installation extends AutoCloseable {
        /** Uninstalls the observer: it hears no event that starts after this returns. Idempotent. */
        @Override
        void close();
    }

    /**
     * Installs {@code observer} for every lock of this process.
     *
     * @param observer hears every acquisition's end and every lease's state change from now on
     * @return what uninstalls it
     * @throws IllegalArgumentException if the observer is null
     */
    public static Installation install(LockObserver observer) {
        return install(null, observer, "observer");
    }

    /**
     * Installs {@code observer} for the locks made with {@code client} (a namespace facade of it,
     * {@code client.usingNamespace(...)}, is a client of its own).
     *
     * @param client whose locks it hears of
     * @param observer hears of the requests that begin from now on for the client's locks
     * @return what uninstalls it
     * @throws IllegalArgumentException if the client or the observer is null
     */
    public static Installation install(CuratorFramework client, LockObserver observer) {
        if (client == null) {
            throw new IllegalArgumentException("client is null; install(observer) observes every client");
        }
        return install(client, observer, "observer");
    }

    private static Installation install(CuratorFramework client, LockObserver observer, String what) {
        if (observer == null) {
            throw new IllegalArgumentException(what + " is null");
        }
        Entry entry = new Entry(client, observer);
        synchronized (LockObservers.class) {
            Entry[] more = Arrays.copyOf(installed, installed.length + 1);
            more[more.length - 1] = entry;
            installed = more;
        }
        return entry;
    }

    private static synchronized void uninstall(Entry entry) {
        Entry[] now = installed;
        int at = Arrays.asList(now).indexOf(entry);
        if (at < 0) {
            return;
        }
        Entry[] fewer = new Entry[now.length - 1];
        System.arraycopy(now, 0, fewer, 0, at);
        System.arraycopy(now, at + 1, fewer, at, now.length - at - 1);
        installed = fewer.length == 0 ? NONE : fewer;
    }

    /**
     * Whether any observer is installed: the only cost the engine pays when none is.
     *
     * @return true if at least one observer is installed
     */
    public static boolean active() {
        return installed.length != 0;
    }

    /**
     * The engine's side: a request on {@code client}'s lock begins, on the caller's thread. Each
     * observer installed for the client (or for every client) hears {@link LockObserver#acquireStarted}.
     *
     * @param client the lock's client (null only for a lock on a scripted door: only observers of every client hear it)
     * @param start the lock and mode
     * @return what tells those observers of the rest of the request, or null if none is installed for the client
     */
    public static ObservedRequest requestStarted(CuratorFramework client, LockObserver.AcquireStart start) {
        Entry[] now = installed;
        if (now.length == 0) {
            return null;
        }
        int count = 0;
        for (Entry entry : now) {
            if (entry.hears(client)) {
                count++;
            }
        }
        if (count == 0) {
            return null;
        }
        Entry[] audience = new Entry[count];
        RequestObserver[] followers = new RequestObserver[count];
        String traceId = null;
        int i = 0;
        for (Entry entry : now) {
            if (!entry.hears(client)) {
                continue;
            }
            audience[i] = entry;
            try {
                RequestObserver follower = entry.observer.acquireStarted(start);
                followers[i] = follower;
                String id = follower == null ? null : follower.traceId();
                if (traceId == null && id != null) {
                    traceId = id;
                }
            } catch (RuntimeException e) {
                entry.threw(e);
            }
            i++;
        }
        return new ObservedRequest(audience, followers, traceId);
    }

    /**
     * The engine's side: tells every installed observer that an acquisition ended. An observer
     * that throws is logged and the others are still told.
     *
     * @param event what ended
     */
    public static void acquireEnded(LockObserver.AcquireEvent event) {
        tell(observer -> observer.acquireEnded(event));
    }

    /**
     * The engine's side: tells every installed observer that a granted lease changed state.
     *
     * @param event the change
     */
    public static void leaseChanged(LockObserver.LeaseEvent event) {
        tell(observer -> observer.leaseChanged(event));
    }

    private static void tell(Consumer<LockObserver> event) {
        for (Entry entry : installed) {
            try {
                event.accept(entry.observer);
            } catch (RuntimeException e) {
                entry.threw(e);
            }
        }
    }

    /**
     * The mode a node kind reports under (see {@link LockObserver}): what the recipe module that
     * owns the kind names it ({@link LockKind#mode}, the one home of that fact); a kind no
     * installed recipe owns is its own name.
     *
     * @param kind a node kind
     * @return the mode it reports under
     */
    public static String modeOf(String kind) {
        return LockKind.of(kind).map(k -> k.mode(kind)).orElse(kind);
    }

    static final class Entry implements Installation {
        private final CuratorFramework client;   // null: every client
        private final LockObserver observer;
        private final AtomicBoolean warned = new AtomicBoolean();
        private volatile boolean installed = true;

        Entry(CuratorFramework client, LockObserver observer) {
            this.client = client;
            this.observer = observer;
        }

        boolean hears(CuratorFramework of) {
            return client == null || client == of;
        }

        boolean installed() {
            return installed;
        }

        LockObserver observer() {
            return observer;
        }

        /** A throwing observer is a bug of its own: said once loudly, then quietly, so it cannot flood the log. */
        void threw(RuntimeException e) {
            if (warned.compareAndSet(false, true)) {
                LOG.warn("lock observer {} threw; ignored (further failures of it are logged at debug)", observer, e);
            } else {
                LOG.debug("lock observer {} threw; ignored", observer, e);
            }
        }

        @Override
        public void close() {
            installed = false;
            uninstall(this);
        }

        @Override
        public String toString() {
            return "LockObservers.Installation[" + observer + "]";
        }
    }
}
