package io.zklock.benchmarks;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.NIOServerCnxn;
import org.apache.zookeeper.server.NIOServerCnxnFactory;

/**
 * The embedded server's connection factory with one addition: it counts every watch
 * notification the server sends to a client session (one per session, path and event, however
 * many watchers that session registered for it), by the kind of node the event is about. A
 * notification is a client woken over the network: the count is the same for any client
 * library, with no hook in either. Installed through ZooKeeper's own
 * {@code zookeeper.serverCnxnFactory} property by {@link #install()} before the server starts.
 *
 * <p>Kinds come from the node's name: a name with {@code read} in it (zklock's {@code -read-},
 * Curator's {@code __READ__}) is a read node, with {@code writ} a write node, any other name
 * (a mutex node, a directory's child event) is counted as {@code OTHER}. Connection-state
 * events (type {@code None}) are not notifications of a watch and are not counted.
 *
 * <p>A notification of a deletion is also judged, against the server's tree as it is when the
 * notification is sent (the commit thread deletes and notifies in one step, so the tree is the
 * one just after the deletion): it is <b>premature</b> when none of the woken session's own
 * nodes in that directory was blocked by the deleted node and is free now. Blocked and free
 * follow the read-write rule with the queue in sequence order (the last ten characters of a
 * name): a read node waits for every earlier write node, any other node for every earlier
 * node. A premature wake-up costs the woken client a read and a new watch and moves nobody.
 * (The rule is the mutex's and the read-write lock's; on a semaphore the judgement means
 * nothing.)
 */
public final class NotificationCounter extends NIOServerCnxnFactory {
    /** What a notification was about. */
    enum Kind { READ, WRITE, OTHER }

    private static final LongAdder[] COUNTS = {new LongAdder(), new LongAdder(), new LongAdder()};
    private static final LongAdder[] PREMATURE = {new LongAdder(), new LongAdder(), new LongAdder()};

    /** Made by ZooKeeper's {@code ServerCnxnFactory.createFactory()}, by reflection. */
    public NotificationCounter() {
    }

    /** Makes the next embedded server in this JVM count its notifications; returns the old setting. */
    static String install() {
        return System.setProperty("zookeeper.serverCnxnFactory", NotificationCounter.class.getName());
    }

    /** Undoes {@link #install()} once the server has started. */
    static void uninstall(String previous) {
        if (previous == null) {
            System.clearProperty("zookeeper.serverCnxnFactory");
        } else {
            System.setProperty("zookeeper.serverCnxnFactory", previous);
        }
    }

    /** Notifications sent so far about nodes of {@code kind}. */
    static long count(Kind kind) {
        return COUNTS[kind.ordinal()].sum();
    }

    /** Notifications of a deletion of a node of {@code kind} sent so far that freed none of the woken session's nodes. */
    static long premature(Kind kind) {
        return PREMATURE[kind.ordinal()].sum();
    }

    /**
     * The counts so far as one array: notifications about nodes of each kind (by ordinal),
     * then the premature ones of each kind (at {@link #PREMATURE_AT} + ordinal).
     */
    static long[] snapshot() {
        var kinds = Kind.values();
        long[] counts = new long[2 * kinds.length];
        for (Kind kind : kinds) {
            counts[kind.ordinal()] = count(kind);
            counts[PREMATURE_AT + kind.ordinal()] = premature(kind);
        }
        return counts;
    }

    /** Where {@link #snapshot()} puts the premature counts. */
    static final int PREMATURE_AT = Kind.values().length;

    /** {@code after - before}, element by element. */
    static long[] delta(long[] before, long[] after) {
        long[] d = new long[after.length];
        for (int i = 0; i < after.length; i++) {
            d[i] = after[i] - before[i];
        }
        return d;
    }

    /** The queue position of a node from the last ten characters of its name; -1 when they are no number. */
    static long sequenceOf(String name) {
        if (name.length() < 10) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(name.length() - 10));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whether node {@code waiter} waits for node {@code ahead} of the same directory. */
    static boolean waitsFor(String waiter, String ahead) {
        long w = sequenceOf(waiter);
        long a = sequenceOf(ahead);
        return a >= 0 && w >= 0 && a < w && !(kindOf(waiter) == Kind.READ && kindOf(ahead) == Kind.READ);
    }

    /** Whether deleting {@code deletedPath} freed a node of {@code session}, judged on the tree after the deletion. */
    static boolean freedOne(DataTree tree, long session, String deletedPath) {
        int slash = deletedPath.lastIndexOf('/');
        String dir = deletedPath.substring(0, slash);
        String deleted = deletedPath.substring(slash + 1);
        DataNode directory = tree.getNode(dir);
        if (directory == null) {
            return false;
        }
        List<String> children;
        synchronized (directory) {
            children = new ArrayList<>(directory.getChildren());
        }
        Set<String> own = tree.getEphemerals(session);
        for (String path : own) {
            if (!path.startsWith(dir + "/") || path.indexOf('/', dir.length() + 1) >= 0) {
                continue;
            }
            String mine = path.substring(dir.length() + 1);
            if (!waitsFor(mine, deleted)) {
                continue;
            }
            boolean free = true;
            for (String child : children) {
                if (waitsFor(mine, child)) {
                    free = false;
                    break;
                }
            }
            if (free) {
                return true;
            }
        }
        return false;
    }

    static Kind kindOf(String path) {
        String name = path == null ? "" : path.substring(path.lastIndexOf('/') + 1).toLowerCase(java.util.Locale.ROOT);
        if (name.contains("read")) {
            return Kind.READ;
        }
        return name.contains("writ") ? Kind.WRITE : Kind.OTHER;
    }

    @Override
    protected NIOServerCnxn createConnection(SocketChannel sock, SelectionKey sk, SelectorThread selectorThread)
            throws IOException {
        return new NIOServerCnxn(getZooKeeperServer(), sock, sk, this, selectorThread) {
            @Override
            public void process(WatchedEvent event, List<ACL> znodeAcl) {
                if (event.getType() != EventType.None) {
                    int kind = kindOf(event.getPath()).ordinal();
                    COUNTS[kind].increment();
                    if (event.getType() == EventType.NodeDeleted
                            && !freedOne(getZooKeeperServer().getZKDatabase().getDataTree(), getSessionId(),
                                    event.getPath())) {
                        PREMATURE[kind].increment();
                    }
                }
                super.process(event, znodeAcl);
            }
        };
    }
}
