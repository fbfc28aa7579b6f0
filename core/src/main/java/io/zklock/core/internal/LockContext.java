package io.zklock.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.zklock.core.LeaseValidity;
import io.zklock.core.LockCompatibility;
import io.zklock.core.LockDelay;
import io.zklock.core.LockException;
import io.zklock.core.LockPaths;
import io.zklock.core.internal.zk.ClientTag;
import io.zklock.core.internal.zk.CuratorPort;
import io.zklock.core.internal.zk.DirectoryView;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.TreeWatch;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;

/**
 * What every stage of a request on one lock directory shares, and nothing more: the client and
 * its door ({@link ZkPort}), the session's monitor, the directory, the node name prefix, the
 * driver and {@code maxLeases}, and the directory's {@link Cleanup}, which it is handed (the
 * cleanup needs nothing of the context). It is the one parameter of the stages (creation, wait,
 * lease); the recipes' entry point, {@code LockEngine}, holds one and keeps only what a recipe
 * calls. Immutable.
 */
public final class LockContext {
    private final CuratorFramework client;
    private final String path;
    private final String kind;
    private final String namePrefix;
    private final LockDriver driver;
    private final int maxLeases;
    private final SessionMonitor monitor;
    private final ZkPort port;
    private final Cleanup cleanup;
    private final boolean cachingNodes;
    private final boolean hearsCreations;      // of caching nodes: their holder lets them go on a creation behind
    private final LockCompatibility compatibility;
    private final LockDelay lockDelay;
    private final LeaseValidity validity;      // null: the client's margin (see SessionClock)

    /**
     * The context of {@code path} on a given door.
     *
     * @param client the Curator client (null only under a scripted port)
     * @param monitor the client's session monitor
     * @param port the door to ZooKeeper; null for the client's own
     * @param path the lock directory
     * @param kind the kind written into this directory's node names
     * @param namePrefix what node names carry between the protected prefix and the sequence
     *        number: the kind, or an anchored kind (see {@link LockNode})
     * @param driver decides grants
     * @param maxLeases holders admitted at once
     * @return the context
     * @throws IllegalArgumentException naming the bad argument
     */
    public static LockContext of(CuratorFramework client, SessionMonitor monitor, ZkPort port, String path, String kind,
            String namePrefix, LockDriver driver, int maxLeases) {
        if (driver == null) {
            throw new IllegalArgumentException("driver is null");
        }
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1, was " + maxLeases);
        }
        String directory = LockPaths.validate(path);
        LockNode.checkKind(kind);
        ZkPort door = port != null ? port : new CuratorPort(client, monitor);
        return new LockContext(client, monitor, door, new Cleanup(door, monitor, directory, false), directory, kind, namePrefix,
                driver, maxLeases, false, false, LockCompatibility.DEFAULT, LockDelay.off(), null);
    }

    /** Every field as given; the factories check them, and the derived contexts share the cleanup. */
    private LockContext(CuratorFramework client, SessionMonitor monitor, ZkPort port, Cleanup cleanup, String path, String kind,
            String namePrefix, LockDriver driver, int maxLeases, boolean cachingNodes, boolean hearsCreations,
            LockCompatibility compatibility, LockDelay lockDelay, LeaseValidity validity) {
        this.client = client;
        this.path = path;
        this.kind = kind;
        this.namePrefix = namePrefix;
        this.driver = driver;
        this.maxLeases = maxLeases;
        this.monitor = monitor;
        this.port = port;
        this.cleanup = cleanup;
        this.cachingNodes = cachingNodes;
        this.hearsCreations = hearsCreations;
        this.compatibility = compatibility;
        this.lockDelay = lockDelay;
        this.validity = validity;
    }

    /**
     * The same directory, whose new nodes a lease cache may keep after use: their names carry
     * the caching version of the uuid ({@link LockNode#caches()}), so a waiter knows to ask.
     *
     * @param hearsCreations whether their holder lets them go on hearing a conflicting node
     *        created behind them (a mark in the uuid, {@link LockNode#hearsCreations()}, once
     *        a tree watch was added on the client and its caches hear creations: ClientTag.hearing)
     * @return the context
     */
    public LockContext withCachingNodes(boolean hearsCreations) {
        if (compatibility == LockCompatibility.CURATOR) {
            throw new IllegalArgumentException("caching with compatibility CURATOR on " + path
                    + ": Curator's clients never ask a cached node back; use LeaseCaching.off() in this mode");
        }
        return new LockContext(client, monitor, port, cleanup, path, kind, namePrefix, driver, maxLeases, true, hearsCreations,
                compatibility, lockDelay, validity);
    }

    /** {@return whether this directory's new nodes may be kept by a lease cache (see {@link #withCachingNodes(boolean)})} */
    public boolean cachingNodes() {
        return cachingNodes;
    }

    /** The same context deciding with {@code driver} instead (a multi-lock's wrapper of its component's driver). */
    public LockContext withDriver(LockDriver driver) {
        if (driver == null) {
            throw new IllegalArgumentException("driver is null");
        }
        return new LockContext(client, monitor, port, cleanup, path, kind, namePrefix, driver, maxLeases, cachingNodes, hearsCreations,
                compatibility, lockDelay, validity);
    }

    /**
     * A context that writes the node layout of {@code compatibility}: Curator's names for its
     * kind ({@link LockNode#curatorNamePrefix}), each node with a uuid of zklock's own so that
     * a listing tells it from Curator's nodes.
     *
     * @throws IllegalArgumentException if it is null, or CURATOR on a context whose nodes are cached
     */
    public LockContext withCompatibility(LockCompatibility compatibility) {
        if (compatibility == null) {
            throw new IllegalArgumentException("compatibility is null; use LockCompatibility.DEFAULT");
        }
        if (compatibility == LockCompatibility.CURATOR && cachingNodes) {
            throw new IllegalArgumentException("caching with compatibility CURATOR on " + path
                    + ": Curator's clients never ask a cached node back; use LeaseCaching.off() in this mode");
        }
        String prefix = compatibility == LockCompatibility.CURATOR ? LockNode.curatorNamePrefix(kind) : LockNode.namePrefix(kind);
        return new LockContext(client, monitor, port, cleanup, path, kind, prefix, driver, maxLeases, cachingNodes, hearsCreations,
                compatibility, lockDelay, validity);
    }

    /**
     * The same directory with a lock-delay (see {@link LockDelay}): its releases mark the
     * directory, and its waiters wait out the delay after a node ahead went without a mark.
     *
     * @param delay the lock-delay, or {@link LockDelay#off()}
     * @return the context
     * @throws IllegalArgumentException if {@code delay} is null
     */
    public LockContext withLockDelay(LockDelay delay) {
        if (delay == null) {
            throw new IllegalArgumentException("lock-delay is null; use LockDelay.off()");
        }
        return new LockContext(client, monitor, port, new Cleanup(port, monitor, path, delay.isOn()), path, kind, namePrefix,
                driver, maxLeases, cachingNodes, hearsCreations, compatibility, delay, validity);
    }

    /**
     * The same directory whose leases' {@code validFor()} keeps {@code validity}'s margin
     * instead of the client's (see {@link LeaseValidity}).
     *
     * @param validity the margin, or null for the client's
     * @return the context
     */
    public LockContext withValidityMargin(LeaseValidity validity) {
        return new LockContext(client, monitor, port, cleanup, path, kind, namePrefix, driver, maxLeases, cachingNodes, hearsCreations,
                compatibility, lockDelay, validity);
    }

    /**
     * How long, from now, session {@code sessionId} is certainly kept by the server, less this
     * lock's margin (the client's if none was set); zero if unknown (see SessionClock).
     *
     * @param sessionId the session of the lease that asks
     * @return nanoseconds, never negative
     */
    public long validForNanos(long sessionId) {
        return validity == null ? monitor.clock().validForNanos(sessionId)
                : monitor.clock().validForNanos(sessionId, validity.fixed().toNanos(), validity.rate());
    }

    /** {@return the lock-delay after a holder's session ended; off by default} */
    public LockDelay lockDelay() {
        return lockDelay;
    }

    /**
     * Whether a create may write the directory for sequence-gap inference (see
     * {@link DirectoryView}): not with a lock-delay, which counts the directory's data writes
     * (see {@link Cleanup}).
     */
    public boolean infersCreates() {
        return !lockDelay.isOn();
    }

    /** {@return the node layout this context writes} */
    public LockCompatibility compatibility() {
        return compatibility;
    }

    /**
     * Whether this context's nodes carry a uuid it picks (a cached node's, a node of Curator's
     * layout), so they are created by a transaction rather than Curator's protected create.
     */
    public boolean picksOwnUuids() {
        return cachingNodes || compatibility == LockCompatibility.CURATOR;
    }

    /** {@return the uuid of a new node's protected name: of the caching version for caching nodes, marked if heard} */
    public String newProtectedId() {
        return LockNode.newProtectedId(cachingNodes, cachingNodes && hearsCreations ? ClientTag.hearing(monitor) : null);
    }

    /** The context of {@code path} on {@code client}'s own door. */
    public static LockContext of(CuratorFramework client, String path, String kind, LockDriver driver, int maxLeases) {
        if (client == null) {
            throw new IllegalArgumentException("client is null");
        }
        return of(client, SessionMonitor.of(client), null, path, kind, LockNode.namePrefix(kind), driver, maxLeases);
    }

    /** The same directory and kind, with nodes anchored at {@code anchorSequence}, decided by {@code driver}; never cached. */
    public LockContext anchoredAt(long anchorSequence, LockDriver driver) {
        if (driver == null) {
            throw new IllegalArgumentException("driver is null");
        }
        String prefix = compatibility == LockCompatibility.CURATOR ? LockNode.curatorAnchoredPrefix(kind, anchorSequence)
                : LockNode.anchoredPrefix(kind, anchorSequence) + "-";
        return new LockContext(client, monitor, port, cleanup, path, kind, prefix, driver, maxLeases, false, false,
                compatibility, lockDelay, validity);
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

    /** What this directory's node names carry between the protected prefix and the sequence number. */
    public String namePrefix() {
        return namePrefix;
    }

    public LockDriver driver() {
        return driver;
    }

    public int maxLeases() {
        return maxLeases;
    }

    public SessionMonitor monitor() {
        return monitor;
    }

    public ZkPort port() {
        return port;
    }

    public Cleanup cleanup() {
        return cleanup;
    }

    /** This session's view of the lock directory, for sequence-gap inference. */
    public DirectoryView view() {
        return monitor.view(port.serverPath(path));
    }

    /** Lists the lock directory; the reply updates the directory's view, in reply order. */
    public CompletableFuture<ZkPort.Reply> list(Watcher watcher) {
        return list(watcher, reply -> { });
    }

    /** As {@link #list(Watcher)}, also running {@code inOrder} on the reply, in reply order, after the view's update. */
    public CompletableFuture<ZkPort.Reply> list(Watcher watcher, Consumer<ZkPort.Reply> inOrder) {
        long session = port.sessionId();      // the session it is sent on: a reply read late must not count for a newer one
        return port.children(path, watcher, reply -> {
            view().listed(session, reply);
            TreeWatch tree = TreeWatch.existing(monitor);
            if (tree != null) {
                tree.hearing().listed(port.serverPath(path), session, reply);   // the directory's count (HEAR, cached permits)
            }
            inOrder.accept(reply);
        });
    }

    public TimeoutException timedOut() {
        return new TimeoutException("timed out waiting for lock " + path);
    }

    public LockException clientClosed() {
        return clientClosed("lock " + path);
    }

    /** A call that could not be issued: the closed client as every recipe reports it, or the cause. */
    public LockException refused(String what, Throwable cause) {
        return port.isClosed() ? clientClosed() : Failures.of(what, cause);
    }

    /** How every recipe reports a closed client, before or while waiting: the one home of that message. */
    public static LockException clientClosed(String what) {
        return new LockException("the CuratorFramework client of " + what + " is closed");
    }

    @Override
    public String toString() {
        return "LockContext[" + path + ", " + namePrefix + ", maxLeases " + maxLeases + "]";
    }
}
