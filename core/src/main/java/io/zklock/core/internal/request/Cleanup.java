package io.zklock.core.internal.request;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.Backoff;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.LockNode;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the nodes a request leaves behind when it gives up. Every node name carries the uuid
 * of the request that made it, so a late or repeated delete can never hit another client's node.
 */
public final class Cleanup {
    private static final Logger LOG = LoggerFactory.getLogger(Cleanup.class);

    private final LockContext context;

    public Cleanup(LockContext context) {
        this.context = context;
    }

    /**
     * Deletes a node of ours, retried through connection loss (a guaranteed delete); completes
     * after the first attempt was answered, or at once if it could not be issued.
     */
    CompletableFuture<Void> delete(String path) {
        return context.port().delete(path, true).handle((reply, error) -> {
            if (error != null) {
                if (context.port().isClosed()) {
                    LOG.debug("not deleting {}: the client is closed, which ends its session and its nodes", path);
                } else {
                    LOG.warn("could not delete {}", path, error);
                }
            } else if (reply.ok() || reply.noNode()) {
                context.view().deleted(NodePaths.name(path));
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
    public CompletableFuture<ZkPort.Reply> release(String path, long session) {
        String serverPath = context.port().serverPath(path);
        return context.port().delete(path, false).whenComplete((reply, error) -> {
            if (error == null && reply.connectionTrouble()) {
                context.monitor().releasing(serverPath, session);
            } else {
                context.monitor().released(serverPath);
            }
        });
    }

    /**
     * Deletes whatever node of the directory carries {@code uuid} (a transaction whose reply was
     * lost may have made one); completes when the deletes were answered. A listing that fails
     * on the connection is tried again until the client closes (or its credentials were refused).
     */
    CompletableFuture<Void> sweep(String uuid) {
        return context.list(null).handle((reply, error) -> {
            // an AuthFailed handle is never answered again: its session, and the nodes it may have made, end on the server
            if (error != null || context.port().isClosed() || context.port().authFailed() || reply.noNode()) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            if (!reply.ok()) {
                return CompletableFuture.supplyAsync(() -> null,
                        CompletableFuture.delayedExecutor(Backoff.CLEANUP_RETRY_MS, TimeUnit.MILLISECONDS, Threads.TIMER))
                        .thenCompose(v -> sweep(uuid));
            }
            List<CompletableFuture<Void>> deletes = reply.children().stream()
                    .filter(child -> LockNode.createdBy(child, uuid))
                    .map(child -> delete(ZKPaths.makePath(context.path(), child)))
                    .toList();
            return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new));
        }).thenCompose(f -> f);
    }
}
