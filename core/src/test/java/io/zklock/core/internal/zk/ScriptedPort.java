package io.zklock.core.internal.zk;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.curator.framework.imps.ProtectedUtils;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;

/**
 * A {@link ZkPort} whose server is the test: every call is recorded, in order, with an
 * uncompleted future, and is answered only when the test says so, in the order it chooses.
 * The test answers from its own thread after the engine's call returned, so a future never
 * completes inside the call that returned it, as the port's contract requires.
 *
 * <p>An answer has two moments, which {@link #reply} joins: {@link #deliver} is the reply
 * reaching the session's event thread (the call's {@code inOrder} hook runs, as in
 * {@link CuratorPort}); {@link #complete} hands it to the handlers waiting on the call's
 * future. Splitting them lets handlers run in another order than the replies arrived, as
 * they may when a handler is attached after its future completed.
 *
 * <p>No namespace: server paths are client paths. The session's flags are plain fields.
 */
public final class ScriptedPort implements ZkPort {

    public enum Kind { CREATE, CHILDREN, WATCH_DATA, EXISTS, DELETE, SET_DATA, MAKE_CONTAINER, MULTI, REMOVE_WATCHES }

    /**
     * One call the engine made. Beside its kind and path it holds what the call carried: the
     * watcher it leaves, the data it writes, a transaction's ops, whether a delete is
     * guaranteed, the watch a removal removes.
     */
    public static final class Call {
        final int index;
        final Kind kind;
        public final String path;
        public final Watcher watcher;
        public final byte[] data;
        final List<Op> ops;
        public final boolean guaranteed;
        public final WatchKey removed;
        private final Consumer<Reply> inOrder;
        private final CompletableFuture<Reply> future = new CompletableFuture<>();
        private Reply delivered;               // guarded by the port

        private Call(int index, Kind kind, String path, Consumer<Reply> inOrder, Watcher watcher, byte[] data, List<Op> ops,
                boolean guaranteed, WatchKey removed) {
            this.index = index;
            this.kind = kind;
            this.path = path;
            this.inOrder = inOrder;
            this.watcher = watcher;
            this.data = data;
            this.ops = ops == null ? List.of() : List.copyOf(ops);
            this.guaranteed = guaranteed;
            this.removed = removed;
        }

        /** For a create or an inferring transaction: the path of the node it makes, numbered {@code sequence}. */
        public String nodePath(long sequence) {
            String prefix = switch (kind) {
                case CREATE -> path;
                case MULTI -> ops.get(1).getPath();
                default -> throw new IllegalStateException(this + " makes no node");
            };
            return prefix + String.format(Locale.ENGLISH, "%010d", sequence);
        }

        /** The name of the node {@link #nodePath} names. */
        public String nodeName(long sequence) {
            return ZKPaths.getNodeFromPath(nodePath(sequence));
        }

        @Override
        public String toString() {
            return "#" + index + " " + kind + " " + path + (watcher != null ? " (watch)" : "");
        }
    }

    private final List<Call> calls = new ArrayList<>();   // guarded by this
    public volatile long sessionId;
    public volatile boolean connected = true;
    volatile boolean closed;
    /**
     * Runs once, inside the next {@link #isClosed()} check, then is cleared: lets the test put
     * session news (delivered on Curator's own thread) between that check and the engine's
     * next step, where no call of the port returns control to the test.
     */
    public volatile Runnable onClosedCheck;
    /**
     * Runs once, inside the next {@link #isConnected()} check after the flag was read, then is
     * cleared: the connection comes back (or goes) just after the engine looked.
     */
    public volatile Runnable onConnectedCheck;

    public ScriptedPort(long sessionId) {
        this.sessionId = sessionId;
    }

    // ---- the test's side --------------------------------------------------------------------

    /** The calls of {@code kind}, in the order they were made. */
    public synchronized List<Call> calls(Kind kind) {
        return calls.stream().filter(c -> c.kind == kind).toList();
    }

    public int count(Kind kind) {
        return calls(kind).size();
    }

    /** The latest call of {@code kind}. */
    public synchronized Call last(Kind kind) {
        List<Call> of = calls(kind);
        if (of.isEmpty()) {
            throw new AssertionError("no " + kind + " call was made; calls: " + calls);
        }
        return of.get(of.size() - 1);
    }

    /** Answers {@code call}: delivers the reply, then completes the call's future. */
    public void reply(Call call, Reply reply) {
        deliver(call, reply);
        complete(call);
    }

    /** The reply reaches the event thread: the call's in-order hook sees it, its handlers not yet. */
    public void deliver(Call call, Reply reply) {
        synchronized (this) {
            if (call.delivered != null) {
                throw new IllegalStateException(call + " was answered already");
            }
            call.delivered = reply;
        }
        if (call.inOrder != null) {
            call.inOrder.accept(reply);
        }
    }

    /** Hands the delivered reply to the handlers of the call's future: they run now, on this thread. */
    public void complete(Call call) {
        Reply reply;
        synchronized (this) {
            reply = call.delivered;
        }
        if (reply == null) {
            throw new IllegalStateException(call + " was not delivered");
        }
        call.future.complete(reply);
    }

    /** The server fires the watch that {@code call} left. */
    public void fire(Call call, Watcher.Event.EventType type) {
        call.watcher.process(new WatchedEvent(type, Watcher.Event.KeeperState.SyncConnected, call.path));
    }

    // ---- replies ----------------------------------------------------------------------------

    /** A node's Stat: its czxid (the fencing token) and the session that owns it. */
    public static Stat nodeStat(long czxid, long ephemeralOwner) {
        Stat stat = new Stat();
        stat.setCzxid(czxid);
        stat.setEphemeralOwner(ephemeralOwner);
        return stat;
    }

    /** A directory's Stat: its incarnation (czxid), with cversion = 2 x creations - children. */
    public static Stat dirStat(long czxid, int creations, int children) {
        Stat stat = new Stat();
        stat.setCzxid(czxid);
        stat.setCversion(2 * creations - children);
        stat.setNumChildren(children);
        return stat;
    }

    /** A create, read or watch that found {@code path} with {@code stat}. */
    public static Reply ok(String path, Stat stat) {
        return new Reply(KeeperException.Code.OK, path, stat, null, null);
    }

    /** A listing of {@code dir}'s {@code children}, with the directory's Stat. */
    public static Reply listing(String dir, Stat stat, String... children) {
        return new Reply(KeeperException.Code.OK, dir, stat, Arrays.asList(children), null);
    }

    /** An inferring transaction that set the directory's data (its Stat: {@code dir}) and created {@code nodePath}. */
    public static Reply transacted(Stat dir, String nodePath, Stat node) {
        return new Reply(KeeperException.Code.OK, null, null, null,
                List.of(new OpResult.SetDataResult(dir), new OpResult.CreateResult(nodePath, node)));
    }

    /** A failure: NoNode, ConnectionLoss, or OK for a call whose reply carries nothing. */
    public static Reply rc(KeeperException.Code code) {
        return Reply.of(code);
    }

    // ---- the engine's side ------------------------------------------------------------------

    private synchronized CompletableFuture<Reply> record(Kind kind, String path, Consumer<Reply> inOrder, Watcher watcher,
            byte[] data, List<Op> ops, boolean guaranteed, WatchKey removed) {
        Call call = new Call(calls.size(), kind, path, inOrder, watcher, data, ops, guaranteed, removed);
        calls.add(call);
        return call.future;
    }

    @Override
    public long sessionId() {
        return closed ? 0 : sessionId;
    }

    @Override
    public boolean isConnected() {
        boolean now = connected && !closed;
        Runnable hook = onConnectedCheck;
        if (hook != null) {
            onConnectedCheck = null;
            hook.run();
        }
        return now;
    }

    @Override
    public boolean isClosed() {
        Runnable hook = onClosedCheck;
        if (hook != null) {
            onClosedCheck = null;
            hook.run();
        }
        return closed;
    }

    /** Named as Curator names it, with a uuid of its own; {@link Call#nodePath} adds the number. */
    @Override
    public CompletableFuture<Reply> createProtected(String dir, String suffix, byte[] data, Consumer<Reply> inOrder) {
        String path = ZKPaths.makePath(dir, ProtectedUtils.toProtectedZNode(suffix, UUID.randomUUID().toString()));
        return record(Kind.CREATE, path, inOrder, null, data, null, false, null);
    }

    @Override
    public CompletableFuture<Reply> children(String dir, Watcher watcher, Consumer<Reply> inOrder) {
        return record(Kind.CHILDREN, dir, inOrder, watcher, null, null, false, null);
    }

    @Override
    public CompletableFuture<Reply> data(String path, Watcher watcher) {
        return record(Kind.WATCH_DATA, path, null, watcher, null, null, false, null);
    }

    @Override
    public CompletableFuture<Reply> exists(String path, Watcher watcher) {
        return record(Kind.EXISTS, path, null, watcher, null, null, false, null);
    }

    @Override
    public CompletableFuture<Reply> delete(String path, boolean guaranteed) {
        return record(Kind.DELETE, path, null, null, null, null, guaranteed, null);
    }

    @Override
    public CompletableFuture<Reply> setData(String path, byte[] data, int version) {
        return record(Kind.SET_DATA, path, null, null, data, null, false, null);
    }

    @Override
    public CompletableFuture<Reply> makeContainer(String dir) {
        return record(Kind.MAKE_CONTAINER, dir, null, null, null, null, false, null);
    }

    @Override
    public CompletableFuture<Reply> multi(List<Op> ops, Consumer<Reply> inOrder) {
        return record(Kind.MULTI, ops.get(0).getPath(), inOrder, null, null, ops, false, null);
    }

    @Override
    public CompletableFuture<Reply> removeWatches(WatchKey key) {
        return record(Kind.REMOVE_WATCHES, key.path(), null, null, null, null, false, key);
    }

    @Override
    public Op createOp(String path, byte[] data) {
        return Op.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
    }

    @Override
    public String serverPath(String path) {
        return path;
    }

    @Override
    public String clientPath(String serverPath) {
        return serverPath;
    }
}
