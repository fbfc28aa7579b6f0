package io.zklock.benchmarks;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.apache.zookeeper.proto.RequestHeader;
import org.apache.zookeeper.server.NIOServerCnxn;
import org.apache.zookeeper.server.NIOServerCnxnFactory;
import org.apache.zookeeper.server.Request;

/**
 * The embedded servers' connection factory with one addition: it counts every packet a client
 * sends, by operation ({@code create}, {@code getData}, {@code setWatches}, {@code ping}, ...;
 * a session's connection handshake as {@code connect}). Every server in this JVM started while
 * it is installed adds to the same counts. A packet is one request the server had to read,
 * whichever library sent it: the counts are the server's, with no hook in either client.
 * Installed through ZooKeeper's own {@code zookeeper.serverCnxnFactory} property.
 *
 * <p>The server reads a handshake through a path of its own and every other packet's header
 * through {@link #incrOutstandingAndCheckThrottle}: {@code connect} is the packets received
 * less the headers read.
 */
public final class RequestCounter extends NIOServerCnxnFactory {
    private static final LongAdder PACKETS = new LongAdder();
    private static final Map<Integer, LongAdder> BY_OP = new ConcurrentHashMap<>();

    /** Made by ZooKeeper's {@code ServerCnxnFactory.createFactory()}, by reflection. */
    public RequestCounter() {
    }

    /** Makes the embedded servers started next in this JVM count their requests; returns the old setting. */
    static String install() {
        return System.setProperty("zookeeper.serverCnxnFactory", RequestCounter.class.getName());
    }

    /** Undoes {@link #install()}. */
    static void uninstall(String previous) {
        if (previous == null) {
            System.clearProperty("zookeeper.serverCnxnFactory");
        } else {
            System.setProperty("zookeeper.serverCnxnFactory", previous);
        }
    }

    /** Requests received so far by every counting server, by operation name (sorted). */
    static Map<String, Long> snapshot() {
        var out = new TreeMap<String, Long>();
        long headers = 0;
        for (var e : BY_OP.entrySet()) {
            long n = e.getValue().sum();
            headers += n;
            out.merge(Request.op2String(e.getKey()), n, Long::sum);
        }
        long connects = PACKETS.sum() - headers;
        if (connects > 0) {
            out.put("connect", connects);
        }
        return out;
    }

    /** Packets received so far by every counting server: requests, pings and handshakes. */
    static long packets() {
        return PACKETS.sum();
    }

    /** {@code after - before} by operation, leaving out operations that did not change. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        var out = new TreeMap<String, Long>();
        after.forEach((op, n) -> {
            long d = n - before.getOrDefault(op, 0L);
            if (d != 0) {
                out.put(op, d);
            }
        });
        return out;
    }

    @Override
    protected NIOServerCnxn createConnection(SocketChannel sock, SelectionKey sk, SelectorThread selectorThread)
            throws IOException {
        return new NIOServerCnxn(getZooKeeperServer(), sock, sk, this, selectorThread) {
            @Override
            protected void packetReceived(long bytes) {
                PACKETS.increment();
                super.packetReceived(bytes);
            }

            @Override
            public void incrOutstandingAndCheckThrottle(RequestHeader h) {
                BY_OP.computeIfAbsent(h.getType(), k -> new LongAdder()).increment();
                super.incrOutstandingAndCheckThrottle(h);
            }
        };
    }
}
