package io.zklock.benchmarks;

import java.util.ArrayList;
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
 * The floor of a cached read-write lock: the least a read-write lock whose readers keep their
 * node between reads must ask of ZooKeeper, written on the plain ZooKeeper handle (no retries,
 * no recipe), so that a writer behind cached readers can be measured against Curator's writer
 * with no library in the way. One object per session (per {@link #RECIPES} {@code readWrite}
 * call); its read half is shared by the session's threads.
 *
 * <p>Overview. Every object keeps one persistent recursive watch on the lock's directory
 * (ZooKeeper 3.6+), armed when it is made: it hears every create and delete of a child, with
 * the child's name, on the client's event thread, in the server's order, together with the
 * replies of the object's own asynchronous calls. Nodes queue by their sequence number (the
 * last ten characters: {@code read-} and {@code write-} share the directory's counter).
 *
 * <ul>
 *   <li>A read with no kept node creates an ephemeral sequential {@code read-} node and sends
 *       the listing right behind the create (one round trip). It is granted when no write node
 *       sorts ahead of its node; otherwise it waits, with no further request, until the
 *       deletions it hears have removed every write node that was ahead in the listing. The
 *       session's other threads wait for that one create. Once granted, the node is kept.</li>
 *   <li>A read while the session keeps a granted node and has heard no write node behind it is
 *       granted locally: a count under the object's monitor, no request.</li>
 *   <li>On hearing the create of a write node that sorts after its kept node, the session
 *       stops local grants at once and deletes its node (asynchronously) when its local
 *       holders reach 0: on the event thread itself if they are 0 already, otherwise in the
 *       last holder's release. Its next read creates a node again, which sorts after the
 *       writer's.</li>
 *   <li>A write creates an ephemeral sequential {@code write-} node with the listing right
 *       behind it and is granted when every node that sorted ahead of it in the listing has
 *       been heard deleted (no request while it waits). Its release deletes the node and
 *       waits for the reply, as Curator's does.</li>
 * </ul>
 *
 * <p>What it guarantees: the holder count of a read-write lock, on one server and without
 * faults. A writer holds only once every node ahead of it is gone, and a read node ahead of
 * it is deleted only when no thread of its session holds it and none will be granted on it
 * again; a reader holds only on a node with no write node ahead. Local grants are safe on any
 * kept, granted node (a later writer waits for it); hearing the writer only ends them, so
 * that the writer is not starved. What it does not: no retries, no recovery from a lost
 * connection or session, no time-outs or interrupts, no re-entrance, no fairness between the
 * session's threads; a failed create fails the acquire, a failed delete is ignored (and
 * would strand the writer). Every object's watch hears every child change of the directory,
 * the readers' own creates and deletes included: a notification per change per session,
 * which costs the server and the clients but adds no round trip to anyone's wait.
 */
final class RawCachedReadWrite {

    /** Only {@code readWrite} is meaningful: a cached read half and a raw write half per session. */
    static final Recipes RECIPES = new Recipes.Floor() {
        @Override
        public String name() {
            return "cached floor";
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            throw new UnsupportedOperationException("cached floor: read-write lock only");
        }

        @Override
        public Lock[] readWrite(CuratorFramework client, String path) {
            var rw = new RawCachedReadWrite(client, path);
            return new Lock[] {rw::read, rw::write};
        }
    };

    private static final String READ = "read-";
    private static final String WRITE = "write-";

    private final ZooKeeper zk;
    private final String dir;
    /** Acquires whose node is created or listed but not granted yet. Guarded by {@code this}. */
    private final List<Wait> waits = new ArrayList<>();
    /** The session's read node (a child name), from its create's reply until its delete is sent. */
    private String readNode;
    /** No write node sorts ahead of {@link #readNode}: it may be granted locally. */
    private boolean readGranted;
    /** A write node sorts after {@link #readNode}: no more local grants, delete it at 0 holders. */
    private boolean letGo;
    /** A thread is creating the read node; the session's other readers wait for it. */
    private boolean creating;
    /** The session's threads holding the read lock. */
    private int holders;

    /** One acquire that created (or is creating) a node and waits for the nodes ahead of it to go. */
    private static final class Wait {
        final boolean write;
        final CompletableFuture<String> granted = new CompletableFuture<>();
        /** The child name, once the create's reply is in. */
        String node;
        /** What it waits to hear deleted, once the listing's reply is in. */
        Set<String> ahead;

        Wait(boolean write) {
            this.write = write;
        }
    }

    RawCachedReadWrite(CuratorFramework client, String path) {
        RawFloor.ensureDirectory(client, path);
        this.dir = path;
        try {
            this.zk = client.getZookeeperClient().getZooKeeper();
            zk.addWatch(path, this::heard, AddWatchMode.PERSISTENT_RECURSIVE);
        } catch (Exception e) {
            throw new IllegalStateException("could not watch " + path, e);
        }
    }

    /** Granted locally on a kept node nobody waits behind; otherwise one create with its listing, then kept. */
    Held read() throws Exception {
        Wait wait;
        synchronized (this) {
            while (true) {
                if (readGranted && !letGo) {
                    holders++;
                    return this::readReleased;
                }
                if (!creating && readNode == null) {
                    break;
                }
                wait();
            }
            creating = true;
            wait = new Wait(false);
            waits.add(wait);
        }
        send(wait, READ);
        try {
            wait.granted.get();     // the grant counted this thread among the holders
        } catch (Exception e) {
            synchronized (this) {
                if (wait.node != null && wait.node.equals(readNode)) {
                    letGoOfRead();      // created, then the listing failed
                }
                creating = false;
                notifyAll();
            }
            throw e;
        }
        return this::readReleased;
    }

    /** Create with the listing; granted once every node ahead was heard deleted; release deletes. */
    Held write() throws Exception {
        var wait = new Wait(true);
        synchronized (this) {
            waits.add(wait);
        }
        send(wait, WRITE);
        String node = wait.granted.get();
        return () -> zk.delete(dir + "/" + node, -1);
    }

    /** The create and the listing right behind it; both replies arrive on the event thread, in this order. */
    private void send(Wait wait, String prefix) {
        zk.create(dir + "/" + prefix, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
                (rc, p, ctx, name) -> created(wait, rc, name), null);
        zk.getChildren(dir, false, (rc, p, ctx, children) -> listed(wait, rc, children), null);
    }

    private synchronized void created(Wait wait, int rc, String path) {
        if (rc != 0) {
            waits.remove(wait);
            wait.granted.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), dir));
            return;
        }
        wait.node = path.substring(dir.length() + 1);
        if (!wait.write) {
            readNode = wait.node;
        }
    }

    private synchronized void listed(Wait wait, int rc, List<String> children) {
        if (wait.node == null) {
            return;                 // the create failed
        }
        if (rc != 0) {
            waits.remove(wait);
            wait.granted.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), dir));
            return;
        }
        long mine = sequence(wait.node);
        wait.ahead = children.stream()
                .filter(c -> sequence(c) < mine && (wait.write || c.startsWith(WRITE)))
                .collect(Collectors.toSet());
        if (wait.ahead.isEmpty()) {
            grant(wait);
        }
    }

    /** The persistent watch: a write node behind the kept read node ends local grants; a deletion may grant a waiter. */
    private synchronized void heard(WatchedEvent event) {
        String path = event.getPath();
        if (path == null || !path.startsWith(dir + "/")) {
            return;
        }
        String child = path.substring(dir.length() + 1);
        if (event.getType() == EventType.NodeCreated && child.startsWith(WRITE)
                && readNode != null && sequence(child) > sequence(readNode)) {
            letGo = true;
            if (readGranted && holders == 0) {
                letGoOfRead();
            }
        } else if (event.getType() == EventType.NodeDeleted) {
            for (Wait wait : List.copyOf(waits)) {
                if (wait.ahead != null && wait.ahead.remove(child) && wait.ahead.isEmpty()) {
                    grant(wait);
                }
            }
        }
    }

    /** Under the monitor. A read grant counts its thread as a holder here, before any let-go can see 0. */
    private void grant(Wait wait) {
        waits.remove(wait);
        if (!wait.write) {
            readGranted = true;
            holders++;
            creating = false;
            notifyAll();
        }
        wait.granted.complete(wait.node);
    }

    private synchronized void readReleased() {
        holders--;
        if (holders == 0 && letGo) {
            letGoOfRead();
        }
    }

    /** Under the monitor: the delete is sent and the node forgotten; the next read creates one again. */
    private void letGoOfRead() {
        zk.delete(dir + "/" + readNode, -1, (rc, p, ctx) -> { }, null);
        readNode = null;
        readGranted = false;
        letGo = false;
        notifyAll();
    }

    /** The sequence number ZooKeeper appended to {@code child}'s name. */
    static long sequence(String child) {
        return Long.parseLong(child.substring(child.length() - 10));
    }
}
