package io.zklock.core.internal.zk;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * The nodes a client keeps after use (cached nodes) want to hear of every write into them and of
 * their deletion. A data watch per node costs the server one watch per node; on a server with
 * persistent recursive watches (ZooKeeper 3.6+) one watch per lock root and session does it: the
 * root is the parent of a lock directory (the lock directory itself if its parent is "/"), so a
 * client whose locks share a parent, however many, holds one watch. Per node path one watcher
 * is routed (route/unroute); one listener hears every node created under a covered root.
 *   1. ROUTE   the first route under a root (or the first after a session change, a failed add or
 *              a removal) issues addWatch(root, PERSISTENT_RECURSIVE). Its answer says how the
 *              node is watched: COVERED (the node's events come through its route from now on;
 *              the caller reads the node afterwards, with no watch), UNSUPPORTED (the server
 *              answered UNIMPLEMENTED: never asked again on this client, the caller keeps its
 *              own data watch; a 3.5 server also closes the connection then, once per client,
 *              which its leases ride out; any other refusal: the same, for this root while it is
 *              in use; the system property PROPERTY=false: never asked),
 *              TROUBLE (outcome unknown: route again on reconnection).
 *   2. EVENTS  every event of a node with a route goes to it; a creation goes to its directory's
 *              listener (the client's lease caches). A removal of the root's watch that we did not make (PersistentWatchRemoved
 *              while in use) goes to every route under it, which routes again (1). A persistent
 *              watch is set again by the ZooKeeper client when the same session reconnects, but
 *              events missed while disconnected are not replayed: a route's owner reads its node
 *              again at every reconnection.
 *   3. UNROUTE the last route under a root going starts a linger; a route within it keeps the
 *              watch, otherwise the watch is removed (if set on the current session), so
 *              adopting and releasing one node after another costs no addWatch each time.
 *   4. COUNT   the creations and deletions it hears, and the listings made under a covered root,
 *              keep a count of the lock nodes of the directories asked about (DirectoryCounts,
 *              read through Hearing). A waiter that hears nodes go pins the root (pin / unpin: a
 *              route with no node; covers: watched on this session already) and awaits their deletions there (HEAR).
 *   5. FRESH   a node this client created, its create answered OK while its root was COVERED on
 *              the create's session (told on the event thread, in reply order): the add was
 *              answered first, so it was applied first, and every write into the node or its
 *              deletion comes as an event after the create's reply. The node is noted fresh;
 *              any event of it, a write of this client into it (CuratorPort.setData: its event
 *              may reach the route after the note is taken), connection news, or the route's
 *              first answer COVERED takes the note. Taken by the route with nothing of the
 *              above before (untouched, under this monitor, as the event's lookup of its route
 *              is: an event either takes the note or finds the route), the node holds the data
 *              it was created with as of its route, and its owner need not read it. Where the
 *              note is gone, or its root's watch changed since (another generation, another
 *              session), the owner reads. At most MAX_FRESH notes (the oldest forgotten first).
 * Guarded by this monitor; calls are issued under it, so a removal never overtakes an add
 * issued before it (one session's requests are processed in order).
 */
/** One client's persistent recursive watches, one per lock root; see the comment above. */
public final class TreeWatch {
    private static final Logger LOG = LoggerFactory.getLogger(TreeWatch.class);
    /** Turns tree watches off ({@code false}): each cached node keeps a data watch, the server is never probed (a 3.5 fleet). */
    public static final String PROPERTY = "zklock.cache.treeWatch";
    /** How long a root's watch outlives its last route. */
    static final long LINGER_MS = 200;
    /** Fresh nodes noted at once, at most (FRESH). */
    static final int MAX_FRESH = 4096;
    private static final BiConsumer<String, String> NOBODY = (dir, name) -> { };   // no listener of creations yet

    /** How a routed node is watched. */
    public enum Cover { COVERED, UNSUPPORTED, TROUBLE }

    /** One root's watch: the session it was added on, its add's answer, the routes under it, its linger. */
    private static final class Root {
        long session;
        CompletableFuture<Cover> set;          // null: not added on this session (or removed)
        int routes;
        ScheduledFuture<?> linger;
        long generation;                       // changes with set: what a directory count holds for (DirectoryCounts)
    }

    private final ZkPort port;
    private final Watcher watcher = this::event;
    private final Map<String, Watcher> routes = new ConcurrentHashMap<>();            // node server path -> its watcher
    private volatile BiConsumer<String, String> creations = NOBODY;               // told (directory, name) of each creation
    private final Map<String, Root> roots = new HashMap<>();                          // guarded by this
    private final Map<String, Integer> ownRemovals = new HashMap<>();                 // guarded by this: root -> removals sent
    private long generations;                  // guarded by this
    private final DirectoryCounts counts = new DirectoryCounts();
    private final Hearing hearing;
    private final Map<String, Long> fresh = new LinkedHashMap<>(16, 0.75f, false) {   // guarded by this: node -> root generation
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_FRESH;
        }
    };
    private volatile boolean unsupported = "false".equalsIgnoreCase(System.getProperty(PROPERTY));   // or answered UNIMPLEMENTED once
    private volatile boolean proven;           // a root's watch was added on this client once: the server has them

    private TreeWatch(ZkPort port) {
        this.port = port;
        this.hearing = new Hearing(port, counts, this);
    }

    /** {@return the tree watch of {@code monitor}'s client, made the first time} */
    public static TreeWatch of(SessionMonitor monitor, ZkPort port) {
        return monitor.attachment(TreeWatch.class, () -> new TreeWatch(port));
    }

    /** {@return the tree watch of {@code monitor}'s client if one was made, else null} */
    public static TreeWatch existing(SessionMonitor monitor) {
        return monitor.existingAttachment(TreeWatch.class);
    }

    /** {@return whether the server was found to have no persistent recursive watches} */
    public boolean unsupported() {
        return unsupported;
    }

    /** {@return whether a root's watch was added on this client once, so that another costs no probe of the server} */
    public boolean proven() {
        return proven && !unsupported;
    }

    /**
     * Routes the events of the node at {@code nodePath} (a server path) to {@code owner}; answers how it is watched
     * (see ROUTE), maybe in the call. Routing it again keeps one route; one {@link #unroute} ends it.
     */
    public synchronized CompletableFuture<Cover> route(String nodePath, Watcher owner) {
        if (unsupported) {
            return CompletableFuture.completedFuture(Cover.UNSUPPORTED);
        }
        return cover(NodePaths.rootOf(nodePath), routes.put(nodePath, owner) == null);
    }

    /**
     * HEAR: keeps the watch of the root over the lock directory at {@code dir} (a server path) as
     * a route does, with no node routed, and counts the directory from now on; answers how it is
     * watched (see ROUTE), or null if tree watches are off or unsupported (nothing is held).
     * Each pin answered ends with one {@link #unpin}.
     */
    public synchronized CompletableFuture<Cover> pin(String dir) {
        if (unsupported) {
            return null;
        }
        counts.counted(dir);
        return cover(NodePaths.rootOf(dir + "/-"), true);
    }

    /** HEAR: whether the root over the lock directory {@code dir} is watched on this session (a pin adds nothing). */
    public synchronized boolean covers(String dir) {
        Root r = roots.get(NodePaths.rootOf(dir + "/-"));
        return r != null && r.set != null && r.session == port.sessionId() && r.set.getNow(null) == Cover.COVERED;
    }

    /** HEAR: one {@link #pin} of {@code dir} ends. */
    public synchronized void unpin(String dir) {
        release(NodePaths.rootOf(dir + "/-"));
    }

    /** The root's watch, added on this session unless it is or is being; {@code oneMore}: one more route under it. */
    private CompletableFuture<Cover> cover(String rootPath, boolean oneMore) {
        Root root = roots.computeIfAbsent(rootPath, p -> new Root());
        if (oneMore) {
            root.routes++;
            if (root.linger != null) {
                root.linger.cancel(false);
                root.linger = null;
            }
        }
        long session = port.sessionId();
        if (root.set == null || root.session != session || root.set.getNow(null) == Cover.TROUBLE) {
            root.session = session;
            root.generation = ++generations;
            root.set = port.addTreeWatch(rootPath, watcher).handle((reply, error) -> added(rootPath, reply, error));
        }
        return root.set;
    }

    private Cover added(String rootPath, ZkPort.Reply reply, Throwable error) {
        if (error != null || reply.connectionTrouble()) {
            return Cover.TROUBLE;
        }
        if (reply.ok()) {
            proven = true;
            return Cover.COVERED;
        }
        if (reply.rc() == KeeperException.Code.UNIMPLEMENTED) {
            LOG.info("the server has no persistent recursive watches (before ZooKeeper 3.6): cached nodes keep a data watch each");
            unsupported = true;
        } else {
            LOG.warn("cannot set a recursive watch on {} ({}): its cached nodes keep a data watch each", rootPath, reply.rc());
        }
        return Cover.UNSUPPORTED;
    }

    /** FRESH: this client's create of {@code nodePath} (a server path) on {@code session} was answered OK; call in reply order. */
    public synchronized void created(String nodePath, long session) {
        long generation = coveredGeneration(nodePath, session);
        if (generation >= 0 && session == port.sessionId()) {
            fresh.put(nodePath, generation);
        }
    }

    /**
     * {@return whether the node at {@code nodePath}, routed now, was noted fresh and nothing
     * happened to it since under the same watch (FRESH): it holds the data it was created with}
     * Takes the note; call after its route's answer COVERED.
     */
    public synchronized boolean untouched(String nodePath) {
        Long generation = fresh.remove(nodePath);
        return generation != null && routes.containsKey(nodePath) && port.isConnected()
                && generation == coveredGeneration(nodePath, port.sessionId());
    }

    /** FRESH: this client writes into the node at {@code nodePath} (a server path): its event must not reach a route as news. */
    public synchronized void touched(String nodePath) {
        fresh.remove(nodePath);
    }

    /** The node at {@code nodePath} needs its route no more; the last one under a root starts the linger. */
    public synchronized void unroute(String nodePath) {
        if (routes.remove(nodePath) != null) {
            release(NodePaths.rootOf(nodePath));
        }
    }

    private void release(String rootPath) {
        Root root = roots.get(rootPath);
        if (root != null && --root.routes == 0) {
            root.linger = Threads.TIMER.schedule(() -> lingered(rootPath, root), LINGER_MS, TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void lingered(String rootPath, Root root) {
        if (root.routes > 0 || roots.get(rootPath) != root) {
            return;
        }
        roots.remove(rootPath);
        fresh.keySet().removeIf(p -> NodePaths.rootOf(p).equals(rootPath));
        if (root.set != null && root.session == port.sessionId() && root.set.getNow(Cover.COVERED) != Cover.UNSUPPORTED) {
            ownRemovals.merge(rootPath, 1, Integer::sum);
            port.removeWatches(new WatchKey(rootPath, WatcherType.Any)).whenComplete((reply, error) -> ownRemovalAnswered(rootPath));
        }
    }

    /** Tells {@code listener} (directory, name; server paths) of every node created under a covered root; one listener, set once. */
    public void onCreated(BiConsumer<String, String> listener) {
        creations = listener;
    }

    /** {@return whether a root's watch was added on this client ({@link #proven}) and a listener hears its creations} */
    public boolean tellsCreations() {
        return creations != NOBODY && proven();
    }

    private void event(WatchedEvent event) {
        String path = event.getPath();
        if (event.getType() == Watcher.Event.EventType.None || path == null) {
            synchronized (this) {
                fresh.clear();
            }
            DirectoryCounts.tell(counts.cutOff());
            return;                            // connection news: each route's owner reads again on reconnection
        }
        if (event.getType() == Watcher.Event.EventType.PersistentWatchRemoved) {
            removed(path, event);
            return;
        }
        Watcher owner;
        synchronized (this) {                  // with untouched(): an event either takes the note or finds the route
            fresh.remove(path);
            owner = routes.get(path);
        }
        Watcher.Event.EventType type = event.getType();
        List<Runnable> told = type == Watcher.Event.EventType.NodeDeleted || type == Watcher.Event.EventType.NodeCreated
                ? counts.changed(path, type == Watcher.Event.EventType.NodeCreated ? 1 : -1) : List.of();   // first: whatever a route does
        try {
            if (owner != null) {
                owner.process(event);
            }
        } finally {
            DirectoryCounts.tell(told);
        }
        int slash = path.lastIndexOf('/');
        if (type == Watcher.Event.EventType.NodeCreated && slash > 0) {
            creations.accept(path.substring(0, slash), path.substring(slash + 1));
        }
    }

    /** The root's watch was removed by someone else (not lingered): each route under it routes again, each waiter lists. */
    private void removed(String rootPath, WatchedEvent event) {
        List<Watcher> owners;
        synchronized (this) {
            Root root = roots.get(rootPath);
            if (ownRemovals.containsKey(rootPath) || root == null) {
                return;                        // our own removal (a watch removed while ours is pending is: its add comes after)
            }
            root.set = null;                   // lingering or not: the next route or pin adds it again
            root.generation = ++generations;
            owners = routes.entrySet().stream().filter(e -> NodePaths.rootOf(e.getKey()).equals(rootPath)).map(Map.Entry::getValue).toList();
        }
        owners.forEach(owner -> owner.process(event));
        DirectoryCounts.tell(counts.cutOff());   // a waiter hearing under it lists again, and pins it again
    }

    private synchronized void ownRemovalAnswered(String rootPath) {
        ownRemovals.computeIfPresent(rootPath, (p, n) -> n == 1 ? null : n - 1);
    }

    /** {@return what this client's watch tells of the lock directories under it (COUNT)} */
    public Hearing hearing() {
        return hearing;
    }

    /** {@return the generation of the watch covering the node at {@code nodePath} on {@code session} now, or -1 if none does} */
    synchronized long coveredGeneration(String nodePath, long session) {
        Root root = roots.get(NodePaths.rootOf(nodePath));
        boolean covered = root != null && root.set != null && session != 0 && root.session == session
                && root.set.getNow(null) == Cover.COVERED;
        return covered ? root.generation : -1;
    }
}
