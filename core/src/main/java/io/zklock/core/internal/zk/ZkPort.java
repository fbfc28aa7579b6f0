package io.zklock.core.internal.zk;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The engine's one door to ZooKeeper: every call the engine makes goes through here, so that a
 * test can script the order of replies and watch events and hit a race on purpose.
 *
 * <p>Paths are the client's (without a namespace) unless a method says otherwise. Every call
 * returns at once; its future completes with the server's {@link Reply} on the session's event
 * thread, in the order the server answered, or exceptionally if the call could not even be
 * issued (the client is closed, say). A future never completes inside the call that returned it,
 * but it may complete before the caller attaches to it: what must run in the order of the replies
 * (updates of a {@link DirectoryView}) is passed as {@code inOrder}, which runs on the event
 * thread before the future completes.
 */
public interface ZkPort {

    /** The id of the client's current session, or 0 when it has none. */
    long sessionId();

    /** Whether the client is connected to a server now. */
    boolean isConnected();

    /** Whether the client is closed (or closing): no call will ever be answered again. */
    boolean isClosed();

    /**
     * Whether the server refused the client's credentials (AuthFailed): the handle serves no
     * call again, although the client is not closed; its calls look like connection losses.
     */
    default boolean authFailed() {
        return false;
    }

    /**
     * Creates a protected ephemeral-sequential node {@code <dir>/_c_<uuid>-<suffix><seq>},
     * making the directory and its parents as containers if needed; retried through connection
     * loss without making a second node.
     */
    CompletableFuture<Reply> createProtected(String dir, String suffix, byte[] data, Consumer<Reply> inOrder);

    /** Lists {@code dir}; with a watcher, leaves a children watch (unless the directory is missing). */
    CompletableFuture<Reply> children(String dir, Watcher watcher, Consumer<Reply> inOrder);

    /** Reads {@code path}'s data; with a watcher, leaves a data watch (unless the node is missing). */
    CompletableFuture<Reply> data(String path, Watcher watcher);

    /** Reads {@code path}'s Stat; with a watcher, leaves a watch on the node (an exists watch if it is missing). */
    CompletableFuture<Reply> exists(String path, Watcher watcher);

    /** Deletes {@code path}; {@code guaranteed}: retried through connection loss until it is answered. */
    CompletableFuture<Reply> delete(String path, boolean guaranteed);

    /** Overwrites {@code path}'s data if its data version is {@code version} (any version: -1). */
    CompletableFuture<Reply> setData(String path, byte[] data, int version);

    /** Makes {@code dir} a container, and its parents. */
    CompletableFuture<Reply> makeContainer(String dir);

    /** Runs {@code ops} as one transaction on the session's handle; never retried. */
    CompletableFuture<Reply> multi(List<Op> ops, Consumer<Reply> inOrder);

    /** Removes every watch of this session of {@code key}'s type on {@code key}'s server path; never retried. */
    CompletableFuture<Reply> removeWatches(WatchKey key);

    /**
     * Sets a persistent recursive watch of this session on {@code serverPath} (a server path,
     * taken as is), whose events {@code watcher} hears with server paths; never retried. A
     * server without such watches (before 3.6) answers UNIMPLEMENTED, and so does a port that
     * has none.
     */
    default CompletableFuture<Reply> addTreeWatch(String serverPath, Watcher watcher) {
        return CompletableFuture.supplyAsync(() -> Reply.of(KeeperException.Code.UNIMPLEMENTED), Threads.COMPLETION);
    }

    /** A create2 of an ephemeral-sequential node for {@link #multi}, with the client's ACL and namespace. */
    Op createOp(String path, byte[] data);

    /** {@code path} as the server knows it: with the client's namespace, if it has one. */
    String serverPath(String path);

    /** {@code serverPath} as this client names it: without the client's namespace. */
    String clientPath(String serverPath);

    /**
     * A server's answer.
     *
     * @param rc the result code
     * @param path the node the call named or created (the client's path), if any
     * @param stat the node's Stat, if the reply carries one
     * @param children a listing's names, else empty
     * @param results a transaction's results, else empty
     * @param data a read's data, else null
     */
    record Reply(KeeperException.Code rc, String path, Stat stat, List<String> children, List<OpResult> results, byte[] data) {
        public Reply {
            children = children == null ? List.of() : children;
            results = results == null ? List.of() : results;
        }

        Reply(KeeperException.Code rc, String path, Stat stat, List<String> children, List<OpResult> results) {
            this(rc, path, stat, children, results, null);
        }

        static Reply of(KeeperException.Code rc) {
            return new Reply(rc, null, null, null, null);
        }

        public boolean ok() {
            return rc == KeeperException.Code.OK;
        }

        public boolean noNode() {
            return rc == KeeperException.Code.NONODE;
        }

        /** The server did not answer this call, or this session can no longer be answered. */
        public boolean connectionTrouble() {
            return isConnectionTrouble(rc);
        }

        public static boolean isConnectionTrouble(KeeperException.Code rc) {
            return rc == KeeperException.Code.CONNECTIONLOSS
                    || rc == KeeperException.Code.SESSIONEXPIRED
                    || rc == KeeperException.Code.SESSIONMOVED
                    || rc == KeeperException.Code.OPERATIONTIMEOUT
                    || rc == KeeperException.Code.REQUESTTIMEOUT;
        }
    }
}
