package io.zklock.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import io.zklock.core.Lease;
import io.zklock.core.LockException;
import io.zklock.core.Participant;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.Watcher;

/**
 * The queueing engine every recipe runs on: one lock directory, one node kind, one
 * {@link LockDriver}. Recipes are thin classes over an engine; how a request obtains a node and
 * waits for its grant is stated at the top of {@code Acquisition}, {@code NodeCreation} and
 * {@code GrantWait}. The engine's requests never re-enter: re-entry is
 * {@link ReentrantLockSupport}'s.
 *
 * <p>This class is the SPI between {@code core} and the recipe modules; applications use the
 * recipes.
 */
public final class LockEngine {
    private final CuratorFramework client;
    private final String path;
    private final String kind;
    private final LockDriver driver;
    private final int maxLeases;
    private final SessionMonitor monitor;
    private final ZkPort port;
    private final String namePrefix;
    private final Cleanup cleanup = new Cleanup(this);

    /**
     * @param client a Curator client; it may be shared by many locks
     * @param path the lock directory
     * @param kind the kind written into this engine's node names
     * @param driver decides grants
     * @param maxLeases holders admitted at once
     * @throws IllegalArgumentException naming the bad argument
     */
    public LockEngine(CuratorFramework client, String path, String kind, LockDriver driver, int maxLeases) {
        this(client, SessionMonitor.of(requireClient(client)), null, path, kind, kind, driver, maxLeases);
    }

    /** The engine of {@code path} on {@code port}: a test scripts the port. */
    LockEngine(CuratorFramework client, SessionMonitor monitor, ZkPort port, String path, String kind, String namePrefix,
            LockDriver driver, int maxLeases) {
        if (driver == null) {
            throw new IllegalArgumentException("driver is null");
        }
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1, was " + maxLeases);
        }
        this.client = client;
        this.path = LockPaths.validate(path);
        this.kind = LockNode.checkKind(kind);
        this.namePrefix = namePrefix;
        this.driver = driver;
        this.maxLeases = maxLeases;
        this.monitor = monitor;
        this.port = port != null ? port : new CuratorPort(client, monitor);
    }

    private static CuratorFramework requireClient(CuratorFramework client) {
        if (client == null) {
            throw new IllegalArgumentException("client is null");
        }
        return client;
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
        return new LockEngine(client, monitor, port, path, kind, LockNode.anchoredPrefix(kind, anchorSequence), driver, maxLeases);
    }

    public String path() {
        return path;
    }

    public String kind() {
        return kind;
    }

    public int maxLeases() {
        return maxLeases;
    }

    // ---- requests ---------------------------------------------------------------------------

    /** See {@link io.zklock.core.DistributedLock#acquire()}; never re-enters. */
    public Lease acquire() throws InterruptedException {
        return acquire(Deadline.unbounded()).orElseThrow(() -> new LockException("acquisition of lock " + path + " ended without a grant"));
    }

    /** See {@link io.zklock.core.DistributedLock#tryAcquire(Duration)}; never re-enters. */
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        return acquire(Deadline.after(timeout));
    }

    /** Acquires before {@code deadline}: empty when it passes first; never re-enters. */
    public Optional<Lease> acquire(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return Blocking.await(start(deadline), outcome -> ZkLease.releaseAll(List.of(lease(outcome))), "acquisition of lock " + path)
                .map(LockEngine::lease);
    }

    /** See {@link io.zklock.core.DistributedLock#acquireAsync(Duration)}. */
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        Deadline deadline = Deadline.after(timeout);
        return Blocking.userFuture(() -> start(deadline), LockEngine::lease, LockEngine::release);
    }

    private Acquisition start(Deadline deadline) {
        AcquireTally tally = AcquireTally.begin(this);
        tally.checkBeforeStart(client, "lock " + path);
        return Acquisition.start(this, deadline, tally);
    }

    private static ZkLease lease(Acquisition.Outcome outcome) {
        return ((Acquisition.Outcome.Leased) outcome).lease();   // a request that made its own node is never Lost
    }

    private static void release(Acquisition.Outcome outcome) {
        if (outcome instanceof Acquisition.Outcome.Leased leased) {
            leased.lease().release();
        }
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

    // ---- what the engine's parts share ------------------------------------------------------

    CuratorFramework client() {
        return client;
    }

    /** What this engine's node names carry between the protected prefix and the sequence number. */
    String namePrefix() {
        return namePrefix;
    }

    LockDriver driver() {
        return driver;
    }

    SessionMonitor monitor() {
        return monitor;
    }

    ZkPort port() {
        return port;
    }

    Cleanup cleanup() {
        return cleanup;
    }

    /** This session's view of the lock directory, for sequence-gap inference. */
    DirectoryView view() {
        return monitor.view(port.serverPath(path));
    }

    /** Lists the lock directory; the reply updates the directory's view, in reply order. */
    CompletableFuture<ZkPort.Reply> list(Watcher watcher) {
        return port.children(path, watcher, reply -> view().listed(port.sessionId(), reply));
    }

    TimeoutException timedOut() {
        return new TimeoutException("timed out waiting for lock " + path);
    }

    LockException clientClosed() {
        return clientClosed("lock " + path);
    }

    /** A call that could not be issued: the closed client as every recipe reports it, or the cause. */
    LockException refused(String what, Throwable cause) {
        return port.isClosed() ? clientClosed() : new LockException(what + " failed: " + cause, cause);
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
     * Who holds and who waits on this lock now, in queue order, each judged by its own
     * recipe's driver (see {@link Inspection}). Foreign children are left out.
     *
     * @throws LockException if ZooKeeper cannot be read
     */
    public List<Participant> participants() {
        return new Inspection(port, this).status(path, null).participants();
    }

    @Override
    public String toString() {
        return "LockEngine[" + path + ", " + kind + ", maxLeases " + maxLeases + "]";
    }
}
