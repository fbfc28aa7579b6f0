package io.zklock.benchmarks;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.ACL;
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
 */
public final class NotificationCounter extends NIOServerCnxnFactory {
    /** What a notification was about. */
    enum Kind { READ, WRITE, OTHER }

    private static final LongAdder[] COUNTS = {new LongAdder(), new LongAdder(), new LongAdder()};

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

    /** Notifications sent so far, all kinds. */
    static long total() {
        long sum = 0;
        for (LongAdder c : COUNTS) {
            sum += c.sum();
        }
        return sum;
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
                    COUNTS[kindOf(event.getPath()).ordinal()].increment();
                }
                super.process(event, znodeAcl);
            }
        };
    }
}
