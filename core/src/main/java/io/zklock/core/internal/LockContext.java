package io.zklock.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.zklock.core.LeaseCaching;
import io.zklock.core.LockDelay;
import io.zklock.core.LockException;
import io.zklock.core.LockPaths;
import io.zklock.core.internal.zk.CuratorPort;
import io.zklock.core.internal.zk.DirectoryView;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;
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
    private final LeaseCaching caching;
    private final boolean sharedLocally;
    private final long escalateMs;
    private final LockDelay lockDelay;

    /**
     * How long, by default, a request may wait on a permit that another thread or process keeps
     * cached before it asks back every cached permit ahead of it: a waiter of a lock of several
     * holders asks the ones it needs at once and the rest after this long (AskBack), and a
     * thread waiting inside its process for its own client's busy permit goes to ZooKeeper after
     * this long (LeaseCache.awaitLocal). A cached permit idles at most this long while a
     * request needs it.
     */
    public static final long ESCALATE_MS = 25;

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
        return new LockContext(client, monitor, door, new Cleanup(door, monitor, directory, false), directory, kind, namePrefix, driver,
                maxLeases, LeaseCaching.off(), false, ESCALATE_MS, LockDelay.off());
    }

    /** Every field as given; the factories check them, and the derived contexts share the cleanup. */
    private LockContext(CuratorFramework client, SessionMonitor monitor, ZkPort port, Cleanup cleanup, String path, String kind,
            String namePrefix, LockDriver driver, int maxLeases, LeaseCaching caching, boolean sharedLocally, long escalateMs, LockDelay lockDelay) {
        this.client = client;
        this.path = path;
        this.kind = kind;
        this.namePrefix = namePrefix;
        this.driver = driver;
        this.maxLeases = maxLeases;
        this.monitor = monitor;
        this.port = port;
        this.cleanup = cleanup;
        this.caching = caching;
        this.sharedLocally = sharedLocally;
        this.escalateMs = escalateMs;
        this.lockDelay = lockDelay;
    }

    /**
     * The same directory, whose nodes may be kept cached after use.
     *
     * @param caching whether and how long a node is kept after its last local lease
     * @param sharedLocally whether one cached node serves many local leases at once (a read
     *        lock's) or one at a time (a mutex's, a semaphore permit's)
     * @return the context
     * @throws IllegalArgumentException if {@code caching} is null
     */
    public LockContext withCaching(LeaseCaching caching, boolean sharedLocally) {
        if (caching == null) {
            throw new IllegalArgumentException("caching is null; use LeaseCaching.off()");
        }
        return new LockContext(client, monitor, port, cleanup, path, kind, namePrefix, driver, maxLeases, caching, sharedLocally,
                escalateMs, lockDelay);
    }

    /**
     * The same directory with another escalation bound (see {@link #ESCALATE_MS}); tests
     * lengthen it so that no escalation happens within them, however slow the machine.
     *
     * @param millis the bound, in milliseconds
     * @return the context
     * @throws IllegalArgumentException if {@code millis} is negative
     */
    public LockContext withEscalation(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("escalation must not be negative, was " + millis + " ms");
        }
        return new LockContext(client, monitor, port, cleanup, path, kind, namePrefix, driver, maxLeases, caching, sharedLocally,
                millis, lockDelay);
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
                driver, maxLeases, caching, sharedLocally, escalateMs, delay);
    }

    /** {@return the lock-delay after a holder's session ended; off by default} */
    public LockDelay lockDelay() {
        return lockDelay;
    }

    /** {@return how long a request waits on cached permits it needs before asking every cached one ahead (see {@link #ESCALATE_MS})} */
    public long escalateMs() {
        return escalateMs;
    }

    /** {@return whether this directory's nodes may be kept cached after use} */
    public LeaseCaching caching() {
        return caching;
    }

    /** {@return whether one cached node serves many local leases at once} */
    public boolean sharedLocally() {
        return sharedLocally;
    }

    /** {@return the uuid of a new node's protected name: of the caching version when caching is on} */
    public String newProtectedId() {
        return LockNode.newProtectedId(caching.isOn());
    }

    /** The context of {@code path} on {@code client}'s own door. */
    public static LockContext of(CuratorFramework client, String path, String kind, LockDriver driver, int maxLeases) {
        if (client == null) {
            throw new IllegalArgumentException("client is null");
        }
        return of(client, SessionMonitor.of(client), null, path, kind, kind, driver, maxLeases);
    }

    /** The same directory and kind, with nodes anchored at {@code anchorSequence}, decided by {@code driver}; never cached. */
    public LockContext anchoredAt(long anchorSequence, LockDriver driver) {
        if (driver == null) {
            throw new IllegalArgumentException("driver is null");
        }
        return new LockContext(client, monitor, port, cleanup, path, kind, LockNode.anchoredPrefix(kind, anchorSequence), driver,
                maxLeases, LeaseCaching.off(), false, escalateMs, lockDelay);
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
        return port.children(path, watcher, reply -> {
            view().listed(port.sessionId(), reply);
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

    /**
     * Refuses a request on a client that cannot serve it: a closed client the same way every
     * recipe reports it while waiting ({@link LockException}), one never started as misuse.
     */
    public static void checkStarted(CuratorFramework client, String what) {
        checkStarted(client, () -> what);
    }

    /** {@link #checkStarted(CuratorFramework, String)}, naming the request only if it is refused (no string per request). */
    public static void checkStarted(CuratorFramework client, Supplier<String> what) {
        CuratorFrameworkState state = client.getState();
        if (state == CuratorFrameworkState.STOPPED) {
            throw clientClosed(what.get());
        }
        if (CuratorPort.authFailed(client)) {
            throw Failures.of(what.get(), KeeperException.Code.AUTHFAILED, null);
        }
        if (state != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the CuratorFramework client of " + what.get() + " is " + state
                    + "; start it before acquiring");
        }
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
