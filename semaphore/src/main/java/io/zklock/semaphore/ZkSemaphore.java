package io.zklock.semaphore;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LockCompatibility;
import io.zklock.core.LockDelay;
import io.zklock.core.LockOptions;
import io.zklock.core.Participant;
import io.zklock.core.spi.JucLockView;
import io.zklock.core.spi.LockComponents;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.ThreadPermits;
import io.zklock.core.spi.queue.Deadline;
import org.apache.curator.framework.CuratorFramework;

/**
 * A distributed counting semaphore: at most {@code maxLeases} clients hold a lease on the path
 * at once. Every {@link Lease} is one permit; acquiring twice takes two permits (there is no
 * re-entry).
 *
 * <p><b>Fairness.</b> Permits go in arrival order (node sequence order). When a permit frees,
 * whichever holder released it, the earliest waiter is granted at once; a release wakes that
 * waiter and the one behind it and, through its grant, the third: three clients, whatever the
 * queue length. A waiter whose process dies keeps its place and, once it reaches a permit,
 * that permit until its session expires; it never holds back the live waiters behind it from
 * the other permits.
 * An uncontended acquisition costs two ZooKeeper requests (create, list), a release one; a
 * grant to a waiter with someone queued behind it costs one more small write.
 *
 * <p><b>maxLeases.</b> Every client of one path must use the same {@code maxLeases}. A client
 * that asks with a different value than the clients already queued gets an
 * {@link IllegalStateException} naming both values, and takes no permit.
 *
 * <p><b>Session loss.</b> A holder whose session expires loses its permit (its lease turns
 * {@code LOST}) and the permit goes to the earliest waiter. Fencing tokens are exposed, but
 * with {@code maxLeases > 1} several holders are valid at once, so a token orders holders
 * only in the sense that a later grant has a larger one.
 *
 * <pre>{@code
 * ZkSemaphore pool = new ZkSemaphore(client, "/limits/db-connections", 10);
 * try (Lease permit = pool.acquire()) {
 *     runQuery();
 * }
 * }</pre>
 */
public final class ZkSemaphore implements DistributedLock, AutoCloseable {
    private final LockEngine engine;
    private final CuratorLayoutPermits curatorLayout;    // null unless LockCompatibility.CURATOR
    private final ThreadPermits permits = new ThreadPermits();
    private final Lock view = new JucLockView(this);

    /**
     * @param client a started Curator client; may be shared with other locks
     * @param path the semaphore's ZooKeeper path, absolute
     * @param maxLeases how many permits exist; at least 1, the same for every client of the path
     * @throws IllegalArgumentException if the client is null, the path invalid or maxLeases below 1
     */
    public ZkSemaphore(CuratorFramework client, String path, int maxLeases) {
        this(client, path, maxLeases, LeaseCaching.off());
    }

    /**
     * A semaphore whose permit nodes the process may keep after use and hand out again locally,
     * with no request, until a waiter of any client asks for them (see {@link LeaseCaching}).
     * Each kept node is one permit, used by one lease at a time.
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the semaphore's ZooKeeper path, absolute
     * @param maxLeases how many permits exist; at least 1, the same for every client of the path
     * @param caching whether and how long a permit node is kept after its lease closes;
     *        {@link LeaseCaching#off()} for none
     * @throws IllegalArgumentException if the client or caching is null, the path invalid or
     *         maxLeases below 1
     */
    public ZkSemaphore(CuratorFramework client, String path, int maxLeases, LeaseCaching caching) {
        this(client, path, maxLeases, LockOptions.defaults().withCaching(caching));
    }

    /**
     * A semaphore that writes the node layout of {@code compatibility}. In
     * {@link LockCompatibility#CURATOR} it shares its path safely with Curator's
     * {@code InterProcessSemaphoreV2} <i>and</i> with this class's default mode: a permit takes
     * a node in {@code path} as the default mode does, then Curator's guard lock under
     * {@code path/locks} and a lease node under {@code path/leases}, as Curator's clients do.
     * It gives up the herd-free hand-off and the request counts of the default mode, cached
     * leases, its place in a {@code ZkMultiLock}, and a non-blocking {@link #acquireAsync}
     * (the protocol runs on a thread of its own). The default mode refuses with a
     * {@link io.zklock.core.LockException} while Curator's lease or guard nodes are below the
     * path, but Curator's clients never count its permits: it must not run beside them.
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the semaphore's ZooKeeper path, absolute
     * @param maxLeases holders admitted at once, the same on every client of the path
     * @param compatibility the node layout written
     * @throws IllegalArgumentException if an argument is null, the path is invalid, or
     *         {@code maxLeases < 1}
     */
    public ZkSemaphore(CuratorFramework client, String path, int maxLeases, LockCompatibility compatibility) {
        this(client, path, maxLeases, LockOptions.defaults().withCompatibility(compatibility));
    }

    /**
     * A semaphore with both options; see the constructors above.
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the semaphore's ZooKeeper path, absolute
     * @param maxLeases holders admitted at once, the same on every client of the path
     * @param caching whether and how long permit nodes are kept; must be off in {@link LockCompatibility#CURATOR}
     * @param compatibility the node layout written
     * @throws IllegalArgumentException if an argument is null, the path is invalid,
     *         {@code maxLeases < 1}, or caching is on with {@link LockCompatibility#CURATOR}
     *         (the message names both)
     */
    public ZkSemaphore(CuratorFramework client, String path, int maxLeases, LeaseCaching caching,
            LockCompatibility compatibility) {
        this(client, path, maxLeases, LockOptions.defaults().withCaching(caching).withCompatibility(compatibility));
    }

    /**
     * A semaphore built with {@code options} (see {@link LockOptions}): whether permit nodes are
     * kept after use ({@link LeaseCaching}), the node layout it writes ({@link LockCompatibility},
     * see the constructor with a compatibility), and how long a waiter granted after a permit
     * holder's session ended without a release waits before its lease is granted
     * ({@link LockDelay}; default mode only: Curator's guarded protocol cannot tell a release
     * from a session's end).
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the semaphore's ZooKeeper path, absolute
     * @param maxLeases holders admitted at once, the same on every client of the path
     * @param options the semaphore's options; {@link LockOptions#defaults()} for none
     * @throws IllegalArgumentException if an argument is null, the path is invalid,
     *         {@code maxLeases < 1}, or a lock-delay is on with {@link LockCompatibility#CURATOR}
     *         (the message names both)
     */
    public ZkSemaphore(CuratorFramework client, String path, int maxLeases, LockOptions options) {
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1, was " + maxLeases);
        }
        if (options == null) {
            throw new IllegalArgumentException("options is null; use LockOptions.defaults()");
        }
        if (options.compatibility() == LockCompatibility.CURATOR) {
            if (options.lockDelay().isOn()) {
                throw new IllegalArgumentException(options.lockDelay() + " with compatibility CURATOR on semaphore " + path
                        + ": Curator's guarded protocol cannot tell a release from a session's end; use LockDelay.off() in this mode");
            }
            this.curatorLayout = new CuratorLayoutPermits(client, path, maxLeases, options);
            this.engine = curatorLayout.permits();
            String refusal = "semaphore " + path + " is in LockCompatibility.CURATOR: its permits follow Curator's"
                    + " guarded protocol, which a multi-lock's one transaction cannot; a multi-lock takes default-mode"
                    + " semaphores only";
            LockComponents.register(this, () -> {
                throw new IllegalArgumentException(refusal);
            });
        } else {
            this.curatorLayout = null;
            this.engine = new LockEngine(client, path, SemaphoreDriver.recipe(maxLeases), options);
            LockEngine own = engine;
            LockComponents.register(this, () -> own);   // a permit taken through a multi-lock is one more permit
        }
    }

    /** {@return the node layout this semaphore writes} */
    public LockCompatibility compatibility() {
        return curatorLayout == null ? LockCompatibility.DEFAULT : LockCompatibility.CURATOR;
    }

    /** {@return how many permits this semaphore has} */
    public int maxLeases() {
        return engine.maxLeases();
    }

    @Override
    public String path() {
        return engine.path();
    }

    /**
     * Takes one permit, waiting as long as it takes; see {@link DistributedLock#acquire()}.
     *
     * @throws IllegalStateException if other clients use this path with a different maxLeases
     */
    @Override
    public Lease acquire() throws InterruptedException {
        if (curatorLayout != null) {
            return permits.track(Deadline.grantOfUnbounded(curatorLayout.acquire(Deadline.unbounded()), toString()));
        }
        return permits.track(engine.acquire());
    }

    /**
     * Takes one permit if one is granted within {@code timeout}; see
     * {@link DistributedLock#tryAcquire(Duration)}.
     *
     * @throws IllegalStateException if other clients use this path with a different maxLeases
     */
    @Override
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        if (curatorLayout != null) {
            return curatorLayout.acquire(Deadline.after(timeout)).map(permits::track);
        }
        return engine.tryAcquire(timeout).map(permits::track);
    }

    /**
     * See {@link DistributedLock#acquireAsync(Duration)}; a maxLeases disagreement completes the
     * future with {@link IllegalStateException}.
     */
    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        if (curatorLayout != null) {
            return curatorLayout.acquireAsync(timeout, toString());
        }
        return engine.acquireAsync(timeout);
    }

    /** Whether the current thread holds at least one valid permit taken by a blocking call. */
    @Override
    public boolean isHeldByCurrentThread() {
        return permits.heldByCurrentThread();
    }

    @Override
    public Lock asLock() {
        return view;
    }

    /** {@return the holders and waiters in queue order; each with its owner and whether it holds a permit} */
    public List<Participant> participants() {
        return engine.participants();
    }

    /**
     * Releases the permit nodes this client keeps cached for this semaphore (see
     * {@link LeaseCaching}): idle ones now, one in use when its lease closes. Leases in use stay
     * valid. Nothing to do when caching is off; the semaphore may still be used afterwards (it
     * caches again).
     */
    public void releaseCachedNodes() {
        engine.releaseCachedNodes();
    }

    /**
     * Does {@link #releaseCachedNodes()}, and only that: the semaphore holds nothing else to
     * close, leases in use stay valid, and the semaphore may still be used afterwards. It lets a
     * try-with-resources block let go of cached permits when the block ends.
     */
    @Override
    public void close() {
        releaseCachedNodes();
    }

    @Override
    public String toString() {
        return "ZkSemaphore[" + path() + ", maxLeases " + maxLeases() + "]";
    }
}
