package io.zklock.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.core.internal.zk.Backoff;
import io.zklock.core.internal.zk.DirectoryView;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes our nodes in one lock directory: those a request leaves behind when it gives up
 * ({@link #delete}, {@link #sweep}), and a released lease's ({@link #release}). Every node name
 * carries the uuid of the request that made it, so a late or repeated delete can never hit
 * another client's node.
 *
 * <p>With a lock-delay ({@link io.zklock.core.LockDelay}) every delete of ours is <em>marked</em>:
 * the same transaction writes the directory's data. ZooKeeper counts a directory's child
 * creations and deletions in its {@code cversion} ({@code 2 x deletions + children}) and its
 * data writes in its {@code version}, so once every marked delete wrote the directory and no
 * create did, {@code (cversion - numChildren) / 2 - version} is the number of deletions nobody
 * marked: nodes whose session ended (expiry, a delete after the session was lost, an operator's
 * forced delete). Any listing's Stat gives it, at no extra request. A holder that waited out the
 * delay for such deletions then writes the directory once per deletion ({@link #absorb}), so
 * that later clients do not wait again for them.
 *
 * <p>It stands below {@link LockContext}, which is handed one: the request's stages and the
 * lease find it there, and it needs nothing of the context but the door, the session's monitor
 * and the directory.
 */
public final class Cleanup {
    private static final Logger LOG = LoggerFactory.getLogger(Cleanup.class);

    private final ZkPort port;
    private final SessionMonitor monitor;
    private final String path;
    private final boolean markReleases;

    /**
     * @param port the door to ZooKeeper
     * @param monitor the session's monitor, told of releases still pending
     * @param path the lock directory
     * @param markReleases whether a release also writes the directory, in the same transaction
     *        (a lock with a lock-delay: its waiters tell a clean release from a session's end by it)
     */
    public Cleanup(ZkPort port, SessionMonitor monitor, String path, boolean markReleases) {
        this.port = port;
        this.monitor = monitor;
        this.path = path;
        this.markReleases = markReleases;
    }

    /** The most deletions one {@link #absorb} writes off (one write each, in one transaction). */
    static final int MAX_ABSORBED = 1_000;

    /** The marker a clean release writes into the directory: the released node's name (for a reader's eyes only). */
    public static byte[] releaseMark(String nodeName) {
        return ("released=" + nodeName + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Deletions of a directory's children that no marked delete accounted for, as of one Stat
     * of the directory (see the class comment), and that Stat's data version.
     *
     * @param count the deletions not marked (zero or less: none)
     * @param version the directory's data version they were counted at
     */
    public record Unmarked(long count, int version) {
        /** Nothing to wait out. */
        public static final Unmarked NONE = new Unmarked(0, -1);

        /** {@return the unmarked deletions of the directory whose Stat (from a listing) this is} */
        public static Unmarked of(Stat directory) {
            long deletions = ((long) directory.getCversion() - directory.getNumChildren()) / 2;
            return new Unmarked(deletions - directory.getVersion(), directory.getVersion());
        }

        /** {@return whether any deletion went unmarked} */
        public boolean any() {
            return count > 0;
        }
    }

    /**
     * The operations of a clean release of {@code nodePath}: its delete and, with a lock-delay, the
     * directory's marker in the same transaction (see {@link io.zklock.core.LockDelay}).
     *
     * @param nodePath the node, a child of this directory
     * @return one or two operations for {@link ZkPort#multi}
     */
    public List<Op> releaseOps(String nodePath) {
        Op delete = Op.delete(port.serverPath(nodePath), -1);
        if (!markReleases) {
            return List.of(delete);
        }
        return List.of(delete, Op.setData(port.serverPath(path), releaseMark(NodePaths.name(nodePath)), -1));
    }

    /** This session's view of the directory, told of our deletes. */
    private DirectoryView view() {
        return monitor.view(port.serverPath(path));
    }

    /**
     * Deletes a node of ours, retried through connection loss (a guaranteed delete); completes
     * after the first attempt was answered, or at once if it could not be issued. With a
     * lock-delay the delete is marked as a release's is (one transaction, one request): a
     * waiter that withdraws hands over as cleanly as a holder that releases. If that transaction
     * meets connection trouble, the guaranteed plain delete follows (a waiter behind may then
     * wait out the delay: late, never early).
     */
    public CompletableFuture<Void> delete(String nodePath) {
        if (!markReleases) {
            return guaranteedDelete(nodePath);
        }
        return port.multi(releaseOps(nodePath), null).handle((reply, error) -> {
            if (error == null && (reply.ok() || reply.noNode())) {
                view().deleted(NodePaths.name(nodePath));
                return CompletableFuture.<Void>completedFuture(null);
            }
            return guaranteedDelete(nodePath);
        }).thenCompose(f -> f);
    }

    /**
     * Writes off {@code honoured}, the unmarked deletions a holder waited out the lock-delay for:
     * one write of the directory per deletion (at most {@link #MAX_ABSORBED}), in one transaction
     * that applies only if the directory was not written since they were counted. Otherwise
     * nothing is written, and the next grant waits the delay out again: two holders that waited
     * for the same deletions can never both write them off, which would hide a later one.
     */
    public void absorb(Unmarked honoured) {
        if (!honoured.any()) {
            return;
        }
        int n = (int) Math.min(honoured.count(), MAX_ABSORBED);
        String dir = port.serverPath(path);
        byte[] mark = ("lock-delay-waited-out=" + n + "\n").getBytes(StandardCharsets.UTF_8);
        List<Op> ops = new ArrayList<>(n);
        ops.add(Op.setData(dir, mark, honoured.version()));
        for (int i = 1; i < n; i++) {
            ops.add(Op.setData(dir, mark, -1));
        }
        port.multi(ops, null).whenComplete((reply, error) -> LOG.debug("{}: wrote off {} unmarked deletion(s) after a lock-delay: {}",
                path, n, error != null ? error.toString() : reply.rc()));
    }

    private CompletableFuture<Void> guaranteedDelete(String nodePath) {
        return port.delete(nodePath, true).handle((reply, error) -> {
            if (error != null) {
                if (port.isClosed()) {
                    LOG.debug("not deleting {}: the client is closed, which ends its session and its nodes", nodePath);
                } else {
                    LOG.warn("could not delete {}", nodePath, error);
                }
            } else if (reply.ok() || reply.noNode()) {
                view().deleted(NodePaths.name(nodePath));
            }
            return null;
        });
    }

    /**
     * Deletes the node of a released lease of {@code session}, once (the lease retries). Once an
     * attempt met connection trouble, and until one gets another reply, the session's own
     * requests do not queue behind the node (see
     * {@link io.zklock.core.internal.zk.SessionMonitor#isReleasing}).
     *
     * @return the delete's reply
     */
    public CompletableFuture<ZkPort.Reply> release(String nodePath, long session) {
        String serverPath = port.serverPath(nodePath);
        CompletableFuture<ZkPort.Reply> delete = markReleases ? port.multi(releaseOps(nodePath), null) : port.delete(nodePath, false);
        return delete.whenComplete((reply, error) -> {
            if (error == null && reply.connectionTrouble()) {
                monitor.releasing(serverPath, session);
            } else {
                monitor.released(serverPath);
            }
        });
    }

    /**
     * Deletes whatever node of the directory carries {@code uuid} (a transaction whose reply was
     * lost may have made one); completes when the deletes were answered. A listing that fails
     * on the connection is tried again until the client closes (or its credentials were refused).
     */
    public CompletableFuture<Void> sweep(String uuid) {
        long session = port.sessionId();
        return port.children(path, null, reply -> view().listed(session, reply)).handle((reply, error) -> {
            // an AuthFailed handle is never answered again: its session, and the nodes it may have made, end on the server
            if (error != null || port.isClosed() || port.authFailed() || reply.noNode()) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            if (!reply.ok()) {
                return CompletableFuture.supplyAsync(() -> null,
                        CompletableFuture.delayedExecutor(Backoff.CLEANUP_RETRY_MS, TimeUnit.MILLISECONDS, Threads.TIMER))
                        .thenCompose(v -> sweep(uuid));
            }
            List<CompletableFuture<Void>> deletes = reply.children().stream()
                    .filter(child -> LockNode.createdBy(child, uuid))
                    .map(child -> delete(ZKPaths.makePath(path, child)))
                    .toList();
            return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new));
        }).thenCompose(f -> f);
    }
}
