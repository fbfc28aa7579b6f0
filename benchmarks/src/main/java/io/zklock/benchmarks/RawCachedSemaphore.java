package io.zklock.benchmarks;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import io.zklock.benchmarks.Recipes.Held;
import io.zklock.benchmarks.Recipes.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The floor of a cached semaphore: the least a semaphore whose holders keep their node between
 * acquires must ask of ZooKeeper, and the soonest such a semaphore can hand a permit to a waiter
 * of another session, written on the plain ZooKeeper handle (no retries, no recipe), so that a
 * waiter behind cached permits can be measured with no library in the way. One object per
 * session (per {@link #RECIPES} {@code semaphore} call), holding at most one node: the session's
 * threads take its permit one at a time.
 *
 * <p>Overview. Every object keeps one persistent recursive watch on the semaphore's directory
 * (ZooKeeper 3.6+), set when it is made, and knows the directory's children from one listing
 * made under that watch and the creates and deletes it hears since (the listing's reply and the
 * watch's events arrive on the event thread in the server's order). Nodes queue by their
 * sequence number.
 *
 * <ul>
 *   <li>An acquire with no node creates an ephemeral sequential node and sends the listing
 *       right behind the create (one round trip). It is granted when fewer than {@code permits}
 *       nodes sort ahead of it; otherwise it waits, with no further request, until it has heard
 *       enough of those nodes deleted. Once granted, the node is kept.</li>
 *   <li>An acquire while the session keeps a granted node that is not in use and not being let
 *       go is granted locally: no request.</li>
 *   <li>A session that hears another session's node created while the directory holds more
 *       nodes than permits (someone waits) lets its kept node go at once if no thread uses it,
 *       otherwise at that thread's release: it deletes the node, and its next acquire queues a
 *       new one. Every holder lets go, not only as many as the waiters need: the first release
 *       after the waiter's create frees its permit, the soonest any holder could (which holder
 *       that will be, no session knows beforehand). The others pay a create for it. A node
 *       granted while more nodes than permits are heard is let go at its release too.</li>
 * </ul>
 *
 * <p>What it guarantees: at most {@code permits} holders, on one server and without faults: a
 * node holds only with fewer than {@code permits} nodes ahead of it, a kept node is granted
 * again only while it is in the directory (it is deleted only at 0 local holders, and forgotten
 * when its delete is sent), and a node granted once stays among the first {@code permits} as
 * long as it exists. What it does not: no retries, no recovery from a lost connection or
 * session, no time-outs or interrupts, no re-entrance, no fairness between the session's
 * threads; a failed create fails the acquire, a failed delete is ignored (and would strand a
 * waiter). Every object's watch hears every child change of the directory: a notification per
 * change per session, which costs the server and the clients but adds no round trip to
 * anyone's wait.
 */
final class RawCachedSemaphore {

    /** Only {@code semaphore} is meaningful. */
    static final Recipes RECIPES = new Recipes.Floor() {
        @Override
        public String name() {
            return "cached semaphore floor";
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            throw new UnsupportedOperationException("cached semaphore floor: semaphore only");
        }

        @Override
        public Lock semaphore(CuratorFramework client, String path, int maxLeases) {
            return new RawCachedSemaphore(client, path, maxLeases)::acquire;
        }
    };

    private final ZooKeeper zk;
    private final String dir;
    private final int permits;
    /** The directory's children as last heard (a listing, then creates and deletes). Guarded by {@code this}. */
    private final Set<String> children = new HashSet<>();
    /** The one acquire whose node is created or listed but not granted yet, or null. */
    private Wait waiting;
    /** The session's node (a child name), from its create's reply until its delete is sent. */
    private String node;
    /** {@link #node} was granted: it may be granted again locally. */
    private boolean granted;
    /** A thread holds the permit. */
    private boolean inUse;
    /** Someone waits: delete {@link #node} at its release (set only while it is in use). */
    private boolean letGo;

    /** The acquire that created (or is creating) the session's node and waits for enough nodes ahead to go. */
    private static final class Wait {
        final CompletableFuture<Void> granted = new CompletableFuture<>();
        /** The nodes that sorted ahead in the listing and have not been heard deleted. */
        Set<String> ahead;
    }

    RawCachedSemaphore(CuratorFramework client, String path, int permits) {
        RawFloor.ensureDirectory(client, path);
        this.dir = path;
        this.permits = permits;
        var listed = new CompletableFuture<Void>();
        try {
            this.zk = client.getZookeeperClient().getZooKeeper();
            zk.addWatch(path, this::heard, AddWatchMode.PERSISTENT_RECURSIVE);
            zk.getChildren(path, false, (rc, p, ctx, names) -> known(listed, rc, names), null);
            listed.get();
        } catch (Exception e) {
            throw new IllegalStateException("could not watch " + path, e);
        }
    }

    /** Granted locally on a kept node nobody waits for; otherwise one create with its listing, then kept. */
    Held acquire() throws Exception {
        Wait wait;
        synchronized (this) {
            while (true) {
                if (granted && !inUse) {          // a node let go is deleted at once when not in use
                    inUse = true;
                    return this::released;
                }
                if (node == null && waiting == null) {
                    break;
                }
                wait();
            }
            wait = new Wait();
            waiting = wait;
        }
        zk.create(dir + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
                (rc, p, ctx, name) -> created(wait, rc, name), null);
        zk.getChildren(dir, false, (rc, p, ctx, names) -> listed(wait, rc, names), null);
        try {
            wait.granted.get();     // the grant marked the permit in use for this thread
        } catch (Exception e) {
            synchronized (this) {
                if (waiting == wait) {          // the session's other threads waited for this one
                    if (node != null) {
                        deleteNode();       // created, then the listing failed
                    }
                    waiting = null;
                    notifyAll();
                }
            }
            throw e;
        }
        return this::released;
    }

    private synchronized void known(CompletableFuture<Void> listed, int rc, List<String> names) {
        if (rc != 0) {
            listed.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), dir));
            return;
        }
        children.clear();           // the events heard before this reply are in the listing
        children.addAll(names);
        listed.complete(null);
    }

    private synchronized void created(Wait wait, int rc, String path) {
        if (rc != 0) {
            wait.granted.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), dir));
            return;                 // the acquire's thread ends the wait
        }
        node = path.substring(dir.length() + 1);
    }

    private synchronized void listed(Wait wait, int rc, List<String> names) {
        if (node == null || waiting != wait) {
            return;                 // the create failed
        }
        if (rc != 0) {
            wait.granted.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), dir));
            return;
        }
        long mine = RawCachedReadWrite.sequence(node);
        wait.ahead = names.stream().filter(c -> RawCachedReadWrite.sequence(c) < mine).collect(Collectors.toSet());
        grantIfRoom(wait);
    }

    /** The persistent watch: keeps {@link #children}; a create past the permits lets a granted node go; a delete may grant. */
    private synchronized void heard(WatchedEvent event) {
        String path = event.getPath();
        if (path == null || !path.startsWith(dir + "/")) {
            return;
        }
        String child = path.substring(dir.length() + 1);
        if (event.getType() == EventType.NodeCreated) {
            children.add(child);
            if (granted && !child.equals(node) && children.size() > permits) {
                letGo = true;
                if (!inUse) {
                    deleteNode();
                }
            }
        } else if (event.getType() == EventType.NodeDeleted) {
            children.remove(child);
            Wait wait = waiting;
            if (wait != null && wait.ahead != null && wait.ahead.remove(child)) {
                grantIfRoom(wait);
            }
        }
    }

    /**
     * Under the monitor: grants {@code wait} once fewer than {@code permits} nodes it saw ahead
     * remain; with more nodes than permits heard (a waiter behind, whose create came before
     * this grant), the node is let go at its release.
     */
    private void grantIfRoom(Wait wait) {
        if (wait.ahead.size() < permits) {
            waiting = null;
            granted = true;
            inUse = true;
            letGo = children.size() > permits;
            notifyAll();
            wait.granted.complete(null);
        }
    }

    private synchronized void released() {
        inUse = false;
        if (letGo) {
            deleteNode();
        } else {
            notifyAll();
        }
    }

    /** Under the monitor: the delete is sent and the node forgotten; the next acquire creates one again. */
    private void deleteNode() {
        zk.delete(dir + "/" + node, -1, (rc, p, ctx) -> { }, null);
        node = null;
        granted = false;
        letGo = false;
        notifyAll();
    }
}
