package io.zklock.core.internal.zk;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * The {@link ZkPort} of a Curator client (or of one of its namespace facades). Creates, lists,
 * reads and deletes go through Curator (namespace, ACL provider, protected creates, guaranteed
 * deletes); transactions and watch removals go to the ZooKeeper handle itself, which never
 * retries them behind our back. Every reply notes the thread it arrives on as the session's
 * event thread (see {@link SessionMonitor#isEventThread()}).
 */
public final class CuratorPort implements ZkPort {
    private final CuratorFramework client;
    private final SessionMonitor monitor;

    public CuratorPort(CuratorFramework client, SessionMonitor monitor) {
        this.client = client;
        this.monitor = monitor;
        if (monitor != null) {                 // a port used for its paths only has none
            monitor.clock().probeWith(this::probe);
        }
    }

    /** One cheap request for the session clock: an exists of the root, no watch; its answer is noted like any other. */
    private void probe() {
        call(reply -> handle().exists("/", false,
                (rc, path, ctx, stat) -> answer(reply, Reply.of(KeeperException.Code.get(rc)), null), null));
    }

    @Override
    public long sessionId() {
        return monitor.sessionId();
    }

    @Override
    public boolean isConnected() {
        return monitor.isConnected();
    }

    @Override
    public boolean isClosed() {
        return monitor.isClosed() || client.getState() == CuratorFrameworkState.STOPPED;
    }

    @Override
    public boolean authFailed() {
        return authFailed(client);
    }

    /** Whether {@code client}'s ZooKeeper handle was refused its credentials (AuthFailed); it serves no call again. */
    public static boolean authFailed(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getState() == ZooKeeper.States.AUTH_FAILED;
        } catch (Exception e) {                // no handle yet, or the client is closing: not an authentication failure
            return false;
        }
    }

    /*
     * A missing directory is made here, not by Curator's creatingParentContainersIfNeeded, which
     * makes it on the client's one background thread with blocking calls (an exists per level,
     * the create, then a listing for the protected node): a client creating in many new
     * directories at once waited for them one after another, and sent two requests more for
     * each than here (the storm scenario's holders, ten new locks each). The create answered NoNode
     * made nothing, so nothing is looked for: the directory is made (one request while its parent
     * exists) and the create sent again.
     */
    @Override
    public CompletableFuture<Reply> createProtected(String dir, String suffix, byte[] data, Consumer<Reply> inOrder) {
        var result = new CompletableFuture<Reply>();
        createProtectedOnce(dir, suffix, data, reply -> {
            if (!reply.noNode() && inOrder != null) {
                inOrder.accept(reply);         // a NoNode is not the create's answer: the one sent again is
            }
        }).whenComplete((first, error) -> {
            if (error != null || !first.noNode()) {
                relay(result, first, error);
                return;
            }
            makeContainer(dir).whenComplete((made, failed) -> {
                if (failed == null && (made.ok() || made.rc() == KeeperException.Code.NODEEXISTS)) {
                    createProtectedOnce(dir, suffix, data, inOrder).whenComplete((again, e) -> relay(result, again, e));
                } else {
                    relay(result, made, failed);
                }
            });
        });
        return result;
    }

    private CompletableFuture<Reply> createProtectedOnce(String dir, String suffix, byte[] data, Consumer<Reply> inOrder) {
        Stat stat = new Stat();
        return call(reply -> client.create().storingStatIn(stat).withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .inBackground(curator(reply, stat, inOrder)).forPath(ZKPaths.makePath(dir, suffix), data));
    }

    private static void relay(CompletableFuture<Reply> to, Reply reply, Throwable error) {
        if (error != null) {
            to.completeExceptionally(error);
        } else {
            to.complete(reply);
        }
    }

    @Override
    public CompletableFuture<Reply> children(String dir, Watcher watcher, Consumer<Reply> inOrder) {
        if (watcher == null) {
            return call(reply -> client.getChildren().inBackground(curator(reply, null, inOrder)).forPath(dir));
        }
        return call(reply -> client.getChildren().usingWatcher(watcher).inBackground(curator(reply, null, inOrder)).forPath(dir));
    }

    @Override
    public CompletableFuture<Reply> data(String path, Watcher watcher) {
        if (watcher == null) {
            return call(reply -> client.getData().inBackground(curator(reply, null, null)).forPath(path));
        }
        return call(reply -> client.getData().usingWatcher(watcher).inBackground(curator(reply, null, null)).forPath(path));
    }

    @Override
    public CompletableFuture<Reply> exists(String path, Watcher watcher) {
        if (watcher == null) {
            return call(reply -> client.checkExists().inBackground(curator(reply, null, null)).forPath(path));
        }
        return call(reply -> client.checkExists().usingWatcher(watcher).inBackground(curator(reply, null, null)).forPath(path));
    }

    @Override
    public CompletableFuture<Reply> delete(String path, boolean guaranteed) {
        if (guaranteed) {
            return call(reply -> client.delete().guaranteed().inBackground(curator(reply, null, null)).forPath(path));
        }
        return call(reply -> client.delete().inBackground(curator(reply, null, null)).forPath(path));
    }

    @Override
    public CompletableFuture<Reply> setData(String path, byte[] data, int version) {
        TreeWatch tree = monitor == null ? null : TreeWatch.existing(monitor);
        if (tree != null) {
            tree.touched(serverPath(path));    // this client's own write (a grant notice, say): see TreeWatch, FRESH
        }
        return call(reply -> client.setData().withVersion(version).inBackground(curator(reply, null, null)).forPath(path, data));
    }

    @Override
    public CompletableFuture<Reply> makeContainer(String dir) {
        return call(reply -> client.create().creatingParentContainersIfNeeded().withMode(CreateMode.CONTAINER)
                .inBackground(curator(reply, null, null)).forPath(dir));
    }

    @Override
    public CompletableFuture<Reply> multi(List<Op> ops, Consumer<Reply> inOrder) {
        return call(reply -> handle().multi(ops, (rc, path, ctx, results) ->
                answer(reply, new Reply(KeeperException.Code.get(rc), null, null, null, results), inOrder), null));
    }

    @Override
    public CompletableFuture<Reply> removeWatches(WatchKey key) {
        return call(reply -> handle().removeAllWatches(key.path(), key.type(), false,
                (rc, path, ctx) -> answer(reply, Reply.of(KeeperException.Code.get(rc)), null), null));
    }

    @Override
    public CompletableFuture<Reply> addTreeWatch(String serverPath, Watcher watcher) {
        return call(reply -> handle().addWatch(serverPath, watcher, AddWatchMode.PERSISTENT_RECURSIVE,
                (rc, path, ctx) -> answer(reply, Reply.of(KeeperException.Code.get(rc)), null), null));
    }

    /** Curator's own transaction op gives the server path and ACL its create would use; create2 returns the Stat. */
    @Override
    public Op createOp(String path, byte[] data) {
        try {
            Op curators = client.transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(path, data).get();
            List<ACL> acl = ((CreateRequest) curators.toRequestRecord()).getAcl();
            return Op.create(curators.getPath(), data,
                    CreateOptions.newBuilder(acl == null || acl.isEmpty() ? ZooDefs.Ids.OPEN_ACL_UNSAFE : acl,
                            CreateMode.EPHEMERAL_SEQUENTIAL).build());
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot build a create of " + path + ": " + e, e);
        }
    }

    /**
     * What {@code ZKPaths.fixForNamespace} gives for a valid path, without validating it again
     * (a char array per call on the hot path): the engine's paths are its lock directory,
     * checked when the lock was made, and paths under it.
     */
    @Override
    public String serverPath(String path) {
        String namespace = client.getNamespace();
        if (namespace == null || namespace.isEmpty()) {
            return path;
        }
        return path.equals("/") ? "/" + namespace : "/" + namespace + path;
    }

    @Override
    public String clientPath(String serverPath) {
        String namespace = client.getNamespace();
        return namespace == null || namespace.isEmpty() ? serverPath : serverPath.substring(namespace.length() + 1);
    }

    private ZooKeeper handle() throws Exception {
        return client.getZookeeperClient().getZooKeeper();
    }

    private BackgroundCallback curator(CompletableFuture<Reply> reply, Stat stored, Consumer<Reply> inOrder) {
        return (c, event) -> answer(reply, replyOf(event, stored), inOrder);
    }

    private void answer(CompletableFuture<Reply> future, Reply reply, Consumer<Reply> inOrder) {
        monitor.noteEventThread();
        if (future instanceof Call call && !reply.connectionTrouble() && reply.rc() != KeeperException.Code.AUTHFAILED
                && call.session == monitor.sessionId()) {
            monitor.clock().answered(call.session, call.sentNanos);   // the server received it at or after the send
        }
        try {
            if (inOrder != null) {
                inOrder.accept(reply);
            }
        } finally {
            future.complete(reply);
        }
    }

    private static Reply replyOf(CuratorEvent event, Stat stored) {
        Stat stat = event.getStat();
        if (stat == null && stored != null && stored.getCzxid() != 0) {
            stat = stored;                     // Curator's create leaves its Stat only here
        }
        String path = event.getType() == CuratorEventType.CREATE ? event.getName() : event.getPath();
        return new Reply(KeeperException.Code.get(event.getResultCode()), path, stat, event.getChildren(), null, event.getData());
    }

    /**
     * Issues one call. A call refused at once (a closed client, say) fails its future on
     * another thread, so that a caller holding its own lock never sees the failure inside the call.
     */
    private CompletableFuture<Reply> call(Issue issue) {
        CompletableFuture<Reply> reply = new Call(monitor.clock().now(), monitor.sessionId());
        try {
            issue.run(reply);
        } catch (Exception e) {
            Threads.COMPLETION.execute(() -> reply.completeExceptionally(e));
        }
        return reply;
    }

    /** A call's future, with when and on which session it was sent: what the session clock needs of its answer. */
    private static final class Call extends CompletableFuture<Reply> {
        final long sentNanos;
        final long session;

        Call(long sentNanos, long session) {
            this.sentNanos = sentNanos;
            this.session = session;
        }
    }

    @FunctionalInterface
    private interface Issue {
        void run(CompletableFuture<Reply> reply) throws Exception;
    }
}
