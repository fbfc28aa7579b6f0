package io.zklock.core.engine;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LockException;
import io.zklock.core.OwnerInfo;
import io.zklock.core.Participant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.proto.CreateRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queueing engine every recipe runs on: one lock directory, one node kind, one
 * {@link LockDriver}. Recipes are thin classes over an engine; the algorithm is stated at the
 * top of {@code Acquisition}.
 *
 * <p>This class is the SPI between {@code core} and the recipe modules; applications use the
 * recipes.
 */
public final class LockEngine {
    private static final Logger LOG = LoggerFactory.getLogger(LockEngine.class);
    private static final long GIVE_UP_WAIT_MS = 10_000;

    private final CuratorFramework client;
    private final String path;
    private final String kind;
    private final LockDriver driver;
    private final int maxLeases;
    private final SessionMonitor monitor;
    private final String namePrefix;

    /**
     * @param client a Curator client; it may be shared by many locks
     * @param path the lock directory
     * @param kind the kind written into this engine's node names
     * @param driver decides grants
     * @param maxLeases holders admitted at once
     * @throws IllegalArgumentException naming the bad argument
     */
    public LockEngine(CuratorFramework client, String path, String kind, LockDriver driver, int maxLeases) {
        if (client == null) {
            throw new IllegalArgumentException("client is null");
        }
        if (driver == null) {
            throw new IllegalArgumentException("driver is null");
        }
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1, was " + maxLeases);
        }
        this.client = client;
        this.path = LockPaths.validate(path);
        this.kind = LockNode.checkKind(kind);
        this.driver = driver;
        this.maxLeases = maxLeases;
        this.monitor = SessionMonitor.of(client);
        this.namePrefix = this.kind;
    }

    private LockEngine(LockEngine base, String namePrefix, LockDriver driver) {
        this.client = base.client;
        this.path = base.path;
        this.kind = base.kind;
        this.driver = driver;
        this.maxLeases = base.maxLeases;
        this.monitor = base.monitor;
        this.namePrefix = namePrefix;
    }

    /**
     * An engine on the same directory, of the same kind, whose nodes are anchored at
     * {@code anchorSequence} (see {@link LockNode}): they queue at that sequence number's place
     * instead of their own. A read lock's downgrade takes its read node through one.
     *
     * @param anchorSequence the sequence number of the node whose place the new nodes take
     * @param driver decides the new engine's grants
     * @throws IllegalArgumentException if the driver is null
     */
    public LockEngine anchoredAt(long anchorSequence, LockDriver driver) {
        if (driver == null) {
            throw new IllegalArgumentException("driver is null");
        }
        return new LockEngine(this, LockNode.anchoredPrefix(kind, anchorSequence), driver);
    }

    public CuratorFramework client() {
        return client;
    }

    public String path() {
        return path;
    }

    public String kind() {
        return kind;
    }

    /** What this engine's node names carry between the protected prefix and the sequence number. */
    public String namePrefix() {
        return namePrefix;
    }

    public LockDriver driver() {
        return driver;
    }

    public int maxLeases() {
        return maxLeases;
    }

    SessionMonitor monitor() {
        return monitor;
    }

    /** This client's view of the lock directory, for sequence-gap inference. */
    DirectoryView view() {
        return monitor.view(serverPath(path));
    }

    /** See {@link DistributedLock#acquire()}; never re-enters. */
    public Lease acquire() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return await(start(-1)).orElseThrow(() -> new LockException("acquisition of lock " + path + " ended without a grant"));
    }

    /** See {@link DistributedLock#tryAcquire(Duration)}; never re-enters. */
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        long nanos = timeoutNanos(timeout);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return await(start(nanos));
    }

    /** See {@link DistributedLock#acquireAsync(Duration)}. */
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        long nanos = timeoutNanos(timeout);
        Acquisition acquisition;
        try {
            acquisition = start(nanos);
        } catch (LockException e) {
            return CompletableFuture.failedFuture(e);   // a closed client fails the future, as while waiting
        }
        CompletableFuture<Lease> user = new CompletableFuture<>();
        acquisition.result.whenCompleteAsync((lease, error) -> {
            if (lease == null) {
                user.completeExceptionally(error);
            } else if (!user.complete(lease)) {
                lease.release();               // cancelled while the grant was on its way
            }
        }, Threads.COMPLETION);
        user.whenComplete((lease, error) -> {
            if (error != null) {
                acquisition.giveUp(new Withdrawn("cancelled"));   // no-op unless the user ended it early
            }
        });
        return user;
    }

    private Acquisition start(long timeoutNanos) {
        checkStarted(client, "lock " + path);
        return new Acquisition(this, timeoutNanos).start();
    }

    /**
     * Refuses a request on a client that cannot serve it: a closed client the same way every
     * recipe reports it while waiting ({@link LockException}), one never started as misuse.
     */
    static void checkStarted(CuratorFramework client, String what) {
        CuratorFrameworkState state = client.getState();
        if (state == CuratorFrameworkState.STOPPED) {
            throw clientClosed(what);
        }
        if (state != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the CuratorFramework client of " + what + " is " + state
                    + "; start it before acquiring");
        }
    }

    /** How every recipe reports a closed client, before or while waiting. */
    static LockException clientClosed(String what) {
        return new LockException("the CuratorFramework client of " + what + " is closed");
    }

    private Optional<Lease> await(Acquisition acquisition) throws InterruptedException {
        return LockEngine.<ZkLease>await(acquisition.result, () -> acquisition.giveUp(new Withdrawn("interrupted")),
                ZkLease::release, "acquisition of lock " + path).map(Lease.class::cast);
    }

    /**
     * The blocking side of every acquisition, single or multi: waits for {@code result}; on
     * an interrupt withdraws the request, releases a grant that beat the withdrawal, waits
     * for the cleanup and throws; maps a timeout to empty, a driver's refusal to
     * IllegalStateException and anything else to LockException.
     */
    static <T> Optional<T> await(CompletableFuture<T> result, Runnable withdraw, Consumer<? super T> release,
            String what) throws InterruptedException {
        try {
            return Optional.of(result.get());
        } catch (InterruptedException e) {
            withdraw.run();
            result.thenAccept(release);        // granted as we were interrupted: release, never leak
            awaitQuietly(result);              // its nodes are gone when we throw
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TimeoutException) {
                return Optional.empty();
            }
            if (cause instanceof IllegalStateException) {
                throw new IllegalStateException(cause.getMessage(), cause);   // refused by a driver
            }
            throw new LockException(what + " failed: " + cause.getMessage(), cause);
        }
    }

    /** Waits, ignoring interrupts, for a withdrawn request's cleanup; the caller re-throws the interrupt. */
    private static void awaitQuietly(CompletableFuture<?> future) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GIVE_UP_WAIT_MS);
        while (true) {
            try {
                future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                return;
            } catch (InterruptedException e) {
                // keep waiting: the caller throws InterruptedException once the node is gone
            } catch (ExecutionException | TimeoutException | CancellationException e) {
                return;                        // the withdrawal itself is the outcome waited for
            }
        }
    }

    /** Why a request was withdrawn by its caller (interrupt or cancel). */
    static final class Withdrawn extends Exception {
        private static final long serialVersionUID = 1L;

        Withdrawn(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * Converts a user's timeout: negative nanos means unbounded (a timeout too large for a
     * long of nanoseconds), 0 one attempt.
     */
    public static long timeoutNanos(Duration timeout) {
        if (timeout == null) {
            throw new IllegalArgumentException("timeout is null");
        }
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout is negative: " + timeout);
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException e) {
            return -1;
        }
    }

    /** The children of the lock directory that are lock nodes, in queue order; foreign names dropped. */
    public static List<LockNode> parseSorted(List<String> children) {
        List<LockNode> nodes = new ArrayList<>(children.size());
        for (String child : children) {
            LockNode.parse(child).ifPresent(nodes::add);
        }
        nodes.sort(LockNode.QUEUE_ORDER);
        return nodes;
    }

    /**
     * Deletes a node of ours, retrying through connection loss (the node's name carries a
     * uuid, so a late retry can never hit another client's node). Completes after the first
     * attempt.
     */
    CompletableFuture<Void> deleteGuaranteed(String node) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            client.delete().guaranteed().inBackground((c, event) -> {
                int rc = event.getResultCode();
                if (rc == KeeperException.Code.OK.intValue() || rc == KeeperException.Code.NONODE.intValue()) {
                    nodeDeleted(node);
                }
                done.complete(null);
            }).forPath(node);
        } catch (Exception e) {
            if (monitor.isClosed() || client.getState() == CuratorFrameworkState.STOPPED) {
                LOG.debug("not deleting {}: the client is closed, which ends its session and its nodes", node);
            } else {
                LOG.warn("could not delete {}", node, e);
            }
            done.complete(null);
        }
        return done;
    }

    /**
     * Removes this session's watch {@code key} from the server (see SessionMonitor.watchEnded
     * for when that is safe); completes after the attempt. Sent on the ZooKeeper handle
     * itself, not through Curator, whose retry of a removal lost to a connection blip could
     * land after a newer registration on the same path and remove that instead; a removal
     * that fails is dropped (a leftover watch fires once, harmlessly).
     */
    CompletableFuture<Void> removeAllWatches(WatchKey key) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            client.getZookeeperClient().getZooKeeper().removeAllWatches(key.path(), key.type(), false,
                    (rc, path, ctx) -> done.complete(null), null);
        } catch (Exception e) {
            LOG.debug("could not remove the watch on {}", key.path(), e);
            done.complete(null);
        }
        return done;
    }

    /** {@code serverPath} as this client names it: without the client's namespace. */
    String clientPath(String serverPath) {
        String namespace = client.getNamespace();
        return namespace == null || namespace.isEmpty() ? serverPath : serverPath.substring(namespace.length() + 1);
    }

    /**
     * Deletes whatever node of this directory carries {@code uuid} (a transaction whose reply
     * was lost may have created one); completes when the deletes were answered. A listing that
     * fails on the connection is tried again until the client closes.
     */
    CompletableFuture<Void> sweep(String uuid) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        sweep(uuid, done);
        return done;
    }

    private void sweep(String uuid, CompletableFuture<Void> done) {
        try {
            client.getChildren().inBackground((c, event) -> {
                KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
                if (rc == KeeperException.Code.OK) {
                    List<CompletableFuture<Void>> deletes = new ArrayList<>();
                    for (String child : event.getChildren()) {
                        if (child.startsWith("_c_" + uuid + "-")) {
                            deletes.add(deleteGuaranteed(path + "/" + child));
                        }
                    }
                    CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> done.complete(null));
                } else if (rc == KeeperException.Code.NONODE || monitor.isClosed()) {
                    done.complete(null);
                } else {
                    Threads.TIMER.schedule(() -> sweep(uuid, done), 100, TimeUnit.MILLISECONDS);
                }
            }).forPath(path);
        } catch (Exception e) {
            LOG.warn("could not list {} to remove a node of an unanswered transaction", path, e);
            done.complete(null);
        }
    }

    /** Our node at {@code nodePath} is confirmed gone: the directory view forgets it. */
    void nodeDeleted(String nodePath) {
        view().deleted(ZKPaths.getNodeFromPath(nodePath));
    }

    /**
     * An ephemeral-sequential create2 operation for {@code path}, sent on the ZooKeeper handle
     * (so its reply carries the node's Stat): the server path and ACL are those Curator's own
     * create would use (namespace, ACLProvider), taken from Curator's transaction op, whose
     * create returns no Stat.
     */
    Op createOp(String path, byte[] data) throws Exception {
        Op curators = client.transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(path, data).get();
        List<ACL> acl = ((CreateRequest) curators.toRequestRecord()).getAcl();
        return Op.create(curators.getPath(), data,
                CreateOptions.newBuilder(acl == null || acl.isEmpty() ? ZooDefs.Ids.OPEN_ACL_UNSAFE : acl,
                        CreateMode.EPHEMERAL_SEQUENTIAL).build());
    }

    /** {@code path} as the server knows it: with the client's namespace, if it has one. */
    String serverPath(String path) {
        return ZKPaths.fixForNamespace(client.getNamespace(), path);
    }

    /**
     * Who holds and who waits on this lock now, in queue order, as this engine's driver
     * judges it. Foreign children are left out. Reads the directory with one call per node.
     *
     * @throws LockException if ZooKeeper cannot be read
     */
    public List<Participant> participants() {
        try {
            List<String> children;
            try {
                children = client.getChildren().forPath(path);
            } catch (KeeperException.NoNodeException e) {
                return List.of();
            }
            List<LockNode> sorted = parseSorted(children);
            List<Participant> result = new ArrayList<>(sorted.size());
            for (LockNode node : sorted) {
                String nodePath = path + "/" + node.name();
                byte[] data;
                try {
                    data = client.getData().forPath(nodePath);
                } catch (KeeperException.NoNodeException e) {
                    continue;
                }
                boolean holding = driver.decide(sorted, node, maxLeases).getsTheLock();
                result.add(new Participant(nodePath, node.kind(), node.sequence(), OwnerInfo.parse(data), holding));
            }
            return result;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new LockException("could not read lock directory " + path, e);
        }
    }

    @Override
    public String toString() {
        return "LockEngine[" + path + ", " + kind + ", maxLeases " + maxLeases + "]";
    }
}
