package io.zklock.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntPredicate;
import java.util.function.Predicate;

import org.apache.zookeeper.ZooDefs.OpCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP proxy between one ZooKeeper client and the servers, so that a test can fault
 * exactly that client's traffic and leave every other client alone.
 *
 * <pre>
 * Overview.
 *
 *   client ──► 127.0.0.1:p_i (one listening port per server i) ──► server i
 *
 * Each accepted connection gets an upstream socket to its server and two daemon pump threads,
 * one per direction. A pump moves whole ZooKeeper frames (4-byte big-endian length, then the
 * payload), never loose bytes, so a fault always falls on a packet boundary.
 * The client-to-server pump, for each frame, repeatedly:
 *   1. reads one frame; the first is the ConnectRequest, forwarded as is;
 *   2. parses xid, opcode and the path (of the first op, for multi and multiRead);
 *   3. waits while the proxy is frozen; stops if the connection was cut meanwhile;
 *   4. calls the request hook (not for pings);
 *   5. if a lost reply is armed for this opcode and path, takes it and remembers the xid;
 *   6. forwards the frame.
 * The server-to-client pump, for each frame:
 *   1. reads one frame (the first is the ConnectResponse);
 *   2. waits while frozen; drops the frame if deafened (heal then closes the connection);
 *   3. if its xid is the remembered one, closes the connection instead of delivering it
 *      (the server applied the request; the client sees a connection loss);
 *   4. forwards the frame.
 * </pre>
 *
 * The faults a test switches on and off are {@link #freeze}, {@link #deafen}, {@link #cut},
 * {@link #dropReplyTo} and a {@link #beforeRequest} hook; {@link #heal} undoes the first
 * three. A client routed through this proxy must be built with {@code ensembleTracker(false)},
 * or Curator replaces the proxy's addresses with the servers' own from {@code /zookeeper/config}.
 */
public final class FaultProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
    private static final int MAX_FRAME = 64 << 20;
    private static final int PING_XID = -2;

    /** Called on the proxy's thread before a client request is forwarded. */
    @FunctionalInterface
    public interface RequestHook {
        /**
         * @param opcode the request's {@link OpCode}
         * @param path the request's path; for {@code multi}/{@code multiRead} the first op's
         *        path; null when the request has none
         */
        void onRequest(int opcode, String path) throws Exception;
    }

    private record DropRule(IntPredicate opcode, Predicate<String> path) {
    }

    private final List<InetSocketAddress> servers;
    private final List<ServerSocket> listeners = new ArrayList<>();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition thawed = lock.newCondition();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final AtomicInteger deafened = new AtomicInteger();
    private final String chroot;
    private volatile boolean frozen;
    private volatile boolean deaf;
    private volatile boolean refusing;
    private volatile boolean closed;
    private volatile RequestHook hook;
    private DropRule armed;                 // guarded by lock

    /** Listens on one loopback port per server in {@code servers}, in that order. */
    public FaultProxy(List<InetSocketAddress> servers) {
        this(servers, "");
    }

    private FaultProxy(List<InetSocketAddress> servers, String chroot) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("no server to proxy: " + servers);
        }
        this.servers = List.copyOf(servers);
        this.chroot = chroot;
        try {
            for (InetSocketAddress server : this.servers) {
                ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                listeners.add(listener);
                Thread acceptor = new Thread(() -> acceptLoop(listener, server),
                        "fault-proxy-accept-" + listener.getLocalPort() + "->" + server.getPort());
                acceptor.setDaemon(true);
                acceptor.start();
            }
        } catch (IOException e) {
            close();
            throw new IllegalStateException("cannot listen on loopback", e);
        }
    }

    /** A proxy for every server of {@code connectString} ("host:port,host:port[/chroot]"). */
    public static FaultProxy to(String connectString) {
        int slash = connectString.indexOf('/');
        String hosts = slash < 0 ? connectString : connectString.substring(0, slash);
        String chroot = slash < 0 ? "" : connectString.substring(slash);
        List<InetSocketAddress> servers = new ArrayList<>();
        for (String hostPort : hosts.split(",")) {
            String trimmed = hostPort.trim();
            int colon = trimmed.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("no port in \"" + trimmed + "\" of " + connectString);
            }
            servers.add(new InetSocketAddress(trimmed.substring(0, colon), Integer.parseInt(trimmed.substring(colon + 1))));
        }
        return new FaultProxy(servers, chroot);
    }

    /** The proxy's own addresses, "127.0.0.1:p1,127.0.0.1:p2,...", to give the client instead of the servers'. */
    public String connectString() {
        StringBuilder out = new StringBuilder();
        for (ServerSocket listener : listeners) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append("127.0.0.1:").append(listener.getLocalPort());
        }
        return out.append(chroot).toString();
    }

    /**
     * Stops forwarding both ways: every frame read from now on is held, sockets stay open, new
     * connections are accepted but carry nothing. What a GC-paused client or a silent network
     * looks like. {@link #heal} forwards what was held.
     */
    public void freeze() {
        frozen = true;
        LOG.debug("frozen");
    }

    /**
     * Drops every server-to-client frame, on current and new connections, while requests
     * (pings included) still reach the server: the server sees a live session, the client hears
     * nothing.
     */
    public void deafen() {
        deaf = true;
        LOG.debug("deafened");
    }

    /** Closes every connection now and refuses new ones until {@link #heal}: a connection loss. */
    public void cut() {
        refusing = true;
        for (Connection c : connections) {
            c.close();
        }
        signalAll();
        LOG.debug("cut");
    }

    /**
     * Back to normal: frames held by a freeze are forwarded, nothing is dropped, connections are
     * accepted. A connection that lost frames to {@link #deafen} is closed rather than resumed:
     * a byte stream with a hole in it is not something TCP ever delivers.
     */
    public void heal() {
        refusing = false;
        deaf = false;
        frozen = false;
        for (Connection c : connections) {
            if (c.damaged) {
                c.close();
            }
        }
        signalAll();
        LOG.debug("healed");
    }

    /**
     * One lost reply: the next client request whose opcode is {@code opcode} (exactly: create,
     * create2, createContainer and createTTL are different opcodes, and Curator 5 sends a plain
     * create as create2) and whose path satisfies
     * {@code path} is forwarded, and when the server's reply to it arrives, the connection is
     * closed instead. The server has applied the request; the client sees a connection loss.
     * For {@code multi} and {@code multiRead} the path tested is that of the first op in the
     * transaction (null for an empty one: the predicate must accept null there; a predicate
     * that throws counts as no match). If the connection dies before the reply arrives, the
     * rule is armed again.
     * Arming a new rule replaces one not yet taken.
     */
    public void dropReplyTo(int opcode, Predicate<String> path) {
        dropReplyTo(op -> op == opcode, path);
    }

    /**
     * As {@link #dropReplyTo(int, Predicate)}, for the next request whose opcode satisfies
     * {@code opcode} (a create, whichever of create2 or multi a library sends it as).
     */
    public void dropReplyTo(IntPredicate opcode, Predicate<String> path) {
        lock.lock();
        try {
            armed = new DropRule(opcode, path);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code hook} is called synchronously on the proxy's thread before each client request
     * (every request but pings) is forwarded, after any freeze is over; null removes it. The
     * request waits for the hook, so a test can make a race happen on purpose. The hook must not
     * wait for a reply through this same proxy. An exception from the hook is logged and the
     * request is forwarded anyway.
     */
    public void beforeRequest(RequestHook hook) {
        this.hook = hook;
    }

    /** {@return how many server-to-client frames {@link #deafen} dropped so far} */
    public int framesDeafened() {
        return deafened.get();
    }

    /** How many replies {@link #dropReplyTo} rules have dropped. */
    public int repliesDropped() {
        return dropped.get();
    }

    /** How many client connections the proxy has accepted and forwarded (refused ones not counted). */
    public int connectionsAccepted() {
        return accepted.get();
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        closed = true;
        for (ServerSocket listener : listeners) {
            try {
                listener.close();
            } catch (IOException e) {
                LOG.debug("closing listener: {}", e.toString());
            }
        }
        for (Connection c : connections) {
            c.close();
        }
        signalAll();
    }

    // ---- internals -----------------------------------------------------------------------------

    private void signalAll() {
        lock.lock();
        try {
            thawed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits while frozen; false if {@code c} was closed meanwhile. */
    private boolean awaitThaw(Connection c) throws InterruptedException {
        if (!frozen) {
            return !c.closed;
        }
        lock.lock();
        try {
            while (frozen && !c.closed && !closed) {
                thawed.await();
            }
        } finally {
            lock.unlock();
        }
        return !c.closed;
    }

    /** Takes the armed rule if {@code opcode} and {@code path} match it. */
    private boolean takeDrop(int opcode, String path) {
        lock.lock();
        try {
            if (armed != null && armed.opcode.test(opcode) && matches(armed.path, path)) {
                armed = null;
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    private static boolean matches(Predicate<String> rule, String path) {
        try {
            return rule.test(path);
        } catch (RuntimeException e) {
            LOG.warn("dropReplyTo predicate failed on path {}: {}", path, e.toString());
            return false;
        }
    }

    private void rearm(DropRule rule) {
        lock.lock();
        try {
            if (armed == null) {
                armed = rule;
            }
        } finally {
            lock.unlock();
        }
    }

    private void acceptLoop(ServerSocket listener, InetSocketAddress server) {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("proxy listener on {} stopped: {}", listener.getLocalPort(), e.toString());
                }
                return;
            }
            if (refusing || closed) {
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(server, 5_000);
            } catch (IOException e) {
                LOG.debug("cannot reach {}: {}", server, e.toString());
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            Connection c = new Connection(client, upstream);
            connections.add(c);
            accepted.incrementAndGet();
            if (refusing) {            // a cut raced this accept
                c.close();
                continue;
            }
            c.start(listener.getLocalPort() + "->" + server.getPort());
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to do with it
        }
    }

    /** The two sockets of one proxied connection and what is in flight on it. */
    private final class Connection {
        private final Socket client;
        private final Socket upstream;
        private volatile boolean closed;
        private volatile boolean damaged;        // frames were dropped by deafen
        private volatile int dropXid;
        private volatile DropRule pendingDrop;   // taken by this connection, reply not yet seen

        Connection(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        public void start(String name) {
            Thread up = new Thread(this::pumpRequests, "fault-proxy-c2s-" + name);
            Thread down = new Thread(this::pumpReplies, "fault-proxy-s2c-" + name);
            up.setDaemon(true);
            down.setDaemon(true);
            up.start();
            down.start();
        }

        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            connections.remove(this);
            closeQuietly(client);
            closeQuietly(upstream);
            DropRule pending = pendingDrop;
            if (pending != null) {
                pendingDrop = null;
                rearm(pending);
            }
            signalAll();
        }

        private void pumpRequests() {
            try (var in = new DataInputStream(new BufferedInputStream(client.getInputStream()));
                 var out = new DataOutputStream(new BufferedOutputStream(upstream.getOutputStream()))) {
                boolean first = true;
                while (true) {
                    byte[] frame = readFrame(in);
                    Request request = first ? null : Request.parse(frame);
                    first = false;
                    if (!awaitThaw(this)) {
                        return;
                    }
                    if (request != null && request.xid != PING_XID) {
                        RequestHook h = hook;
                        if (h != null) {
                            try {
                                h.onRequest(request.opcode, request.path);
                            } catch (Exception e) {
                                LOG.warn("request hook failed on opcode {} {}: {}", request.opcode, request.path, e.toString());
                            }
                        }
                        if (takeDrop(request.opcode, request.path)) {
                            dropXid = request.xid;
                            pendingDrop = sameRequest(request);
                        }
                    }
                    if (closed) {
                        return;
                    }
                    writeFrame(out, frame);
                }
            } catch (IOException | InterruptedException e) {
                logEnd("client->server", e);
            } catch (RuntimeException e) {
                LOG.warn("client->server pump failed: {}", e.toString());
            } finally {
                close();
            }
        }

        /** The rule armed again if this connection dies before the reply: the same request, retried. */
        private DropRule sameRequest(Request request) {
            String path = request.path;
            int opcode = request.opcode;
            return new DropRule(op -> op == opcode, p -> Objects.equals(p, path));
        }

        private void pumpReplies() {
            try (var in = new DataInputStream(new BufferedInputStream(upstream.getInputStream()));
                 var out = new DataOutputStream(new BufferedOutputStream(client.getOutputStream()))) {
                boolean first = true;
                while (true) {
                    byte[] frame = readFrame(in);
                    boolean connectResponse = first;
                    first = false;
                    if (!awaitThaw(this)) {
                        return;
                    }
                    if (deaf) {
                        damaged = true;
                        deafened.incrementAndGet();
                        continue;
                    }
                    if (!connectResponse && pendingDrop != null && frame.length >= 4
                            && ByteBuffer.wrap(frame).getInt() == dropXid) {
                        pendingDrop = null;
                        dropped.incrementAndGet();
                        LOG.debug("dropping the reply to xid {}", dropXid);
                        close();
                        return;
                    }
                    if (closed) {
                        return;
                    }
                    writeFrame(out, frame);
                }
            } catch (IOException | InterruptedException e) {
                logEnd("server->client", e);
            } catch (RuntimeException e) {
                LOG.warn("server->client pump failed: {}", e.toString());
            } finally {
                close();
            }
        }

        private void logEnd(String direction, Exception e) {
            if (!closed && !(e instanceof EOFException) && !(e instanceof SocketException)) {
                LOG.debug("{} pump ended: {}", direction, e.toString());
            }
        }
    }

    private static byte[] readFrame(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_FRAME) {
            throw new IOException("bad frame length " + length);
        }
        byte[] frame = new byte[length];
        in.readFully(frame);
        return frame;
    }

    private static void writeFrame(DataOutputStream out, byte[] frame) throws IOException {
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
    }

    /** The header of a client request: xid, opcode and, where the request has one, its path. */
    public record Request(int xid, int opcode, String path) {
        public static Request parse(byte[] frame) {
            ByteBuffer b = ByteBuffer.wrap(frame);
            if (b.remaining() < 8) {
                return new Request(0, -1, null);
            }
            int xid = b.getInt();
            int opcode = b.getInt();
            String path = null;
            try {
                if (opcode == OpCode.multi || opcode == OpCode.multiRead) {
                    // MultiHeader {int type; boolean done; int err} then the op's record, which starts with its path
                    int type = b.getInt();
                    boolean done = b.get() != 0;
                    b.getInt();
                    if (!done && type != -1) {
                        path = readString(b);
                    }
                } else if (hasPath(opcode)) {
                    path = readString(b);
                }
            } catch (RuntimeException e) {
                path = null;                 // a body we do not understand: no path
            }
            return new Request(xid, opcode, path);
        }

        private static boolean hasPath(int opcode) {
            return switch (opcode) {
                case OpCode.create, OpCode.delete, OpCode.exists, OpCode.getData, OpCode.setData,
                        OpCode.getACL, OpCode.setACL, OpCode.getChildren, OpCode.sync, OpCode.getChildren2,
                        OpCode.check, OpCode.create2, OpCode.checkWatches, OpCode.removeWatches,
                        OpCode.createContainer, OpCode.deleteContainer, OpCode.createTTL,
                        OpCode.getEphemerals, OpCode.getAllChildrenNumber, OpCode.addWatch -> true;
                default -> false;
            };
        }

        private static String readString(ByteBuffer b) {
            int length = b.getInt();
            if (length < 0) {
                return null;
            }
            byte[] bytes = new byte[length];
            b.get(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }
}
