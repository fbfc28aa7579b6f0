package io.zklock.mutex;

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
import io.zklock.core.spi.LockComponents;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.ReentrantLockSupport;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import org.apache.curator.framework.CuratorFramework;

/**
 * A reentrant, fair, distributed mutual-exclusion lock on one ZooKeeper path.
 *
 * <p>At most one client holds the lock at a time. Waiters queue as ephemeral-sequential nodes
 * under {@code path} and are granted in queue order; each waiter watches only its immediate
 * predecessor, so a release wakes exactly one client. An uncontended acquisition costs two
 * ZooKeeper requests once the directory exists (create, list) and a release one (delete).
 *
 * <p><b>Re-entry.</b> A thread that holds the lock through {@link #acquire()} or
 * {@link #tryAcquire} and asks again gets a new {@link Lease} on the same node at once (same
 * node path, same fencing token); the node is deleted when the last of those leases is closed.
 * Leases may be closed on any thread. {@link #acquireAsync} never re-enters.
 *
 * <p><b>Session loss.</b> A held lease turns {@code SUSPENDED} while the connection is down and
 * {@code LOST} if the session expires, after which another client may hold the lock; guard the
 * protected resource with {@link Lease#fencingToken()}.
 *
 * <pre>{@code
 * ZkMutex mutex = new ZkMutex(client, "/locks/orders");
 * try (Lease lease = mutex.acquire()) {
 *     store.write(order, lease.fencingToken());
 * }
 * }</pre>
 */
public final class ZkMutex implements DistributedLock, AutoCloseable {
    /** The kind written into this recipe's node names. */
    public static final String KIND = "lock";
    /** The mutex's facts, stated once: its nodes, the exclusive driver, one holder. */
    static final RecipeDescriptor RECIPE = new RecipeDescriptor(KIND, LockDriver.EXCLUSIVE, 1);

    private final ReentrantLockSupport sync;

    /**
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/orders}
     * @throws IllegalArgumentException if the client is null or the path is invalid
     */
    public ZkMutex(CuratorFramework client, String path) {
        this(client, path, LeaseCaching.off());
    }

    /**
     * A mutex whose node the process may keep after use and take again locally, with no
     * request, until another client asks for the lock (see {@link LeaseCaching}).
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/orders}
     * @param caching whether and how long a node is kept after its last lease closes;
     *        {@link LeaseCaching#off()} for none
     * @throws IllegalArgumentException if the client or caching is null or the path is invalid
     */
    public ZkMutex(CuratorFramework client, String path, LeaseCaching caching) {
        this(client, path, LockOptions.defaults().withCaching(caching));
    }

    /**
     * A mutex built with {@code options} (see {@link LockOptions}): whether its node is kept
     * after use ({@link LeaseCaching}), the node layout it writes ({@link LockCompatibility}:
     * both are safe beside Curator's {@code InterProcessMutex}), and how long the next holder
     * waits after a holder's session ended ({@link LockDelay}).
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/orders}
     * @param options the lock's options; {@link LockOptions#defaults()} for none
     * @throws IllegalArgumentException if an argument is null or the path is invalid
     */
    public ZkMutex(CuratorFramework client, String path, LockOptions options) {
        this(client, path, options, ReentrantLockSupport.ReentryPolicy.RECIPES);
    }

    /**
     * A mutex whose blocking re-entry, by a thread that holds it through a lease that is
     * {@code SUSPENDED} or {@code LOST}, follows {@code policy}; the other constructors re-enter
     * a {@code SUSPENDED} hold at once and queue a new node behind a {@code LOST} one. For an
     * integration whose framework's contract decides that differently.
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/orders}
     * @param caching whether and how long a node is kept after its last lease closes
     * @param policy what such a re-entry does
     * @throws IllegalArgumentException if the client, caching or policy is null or the path is invalid
     */
    public ZkMutex(CuratorFramework client, String path, LeaseCaching caching,
            ReentrantLockSupport.ReentryPolicy policy) {
        this(client, path, LockOptions.defaults().withCaching(caching), policy);
    }

    /**
     * A mutex that writes the node layout of {@code compatibility}. Curator's
     * {@code InterProcessMutex} writes the mutex's own layout ({@code _c_<uuid>-lock-<seq>}) and
     * both libraries grant the head of the queue, so both modes are safe beside Curator's
     * clients; {@link LockCompatibility#CURATOR} only gives up caching, and marks the nodes as
     * zklock's (status tells them from Curator's).
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/orders}
     * @param compatibility the node layout written
     * @throws IllegalArgumentException if an argument is null or the path is invalid
     */
    public ZkMutex(CuratorFramework client, String path, LockCompatibility compatibility) {
        this(client, path, LockOptions.defaults().withCompatibility(compatibility));
    }

    /**
     * A mutex with both options; see the two constructors above.
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/orders}
     * @param caching whether and how long a node is kept; must be off in {@link LockCompatibility#CURATOR}
     * @param compatibility the node layout written
     * @throws IllegalArgumentException if an argument is null, the path is invalid, or caching
     *         is on with {@link LockCompatibility#CURATOR} (the message names both)
     */
    public ZkMutex(CuratorFramework client, String path, LeaseCaching caching, LockCompatibility compatibility) {
        this(client, path, LockOptions.defaults().withCaching(caching).withCompatibility(compatibility));
    }

    /**
     * A mutex built with {@code options} whose blocking re-entry of a {@code SUSPENDED} or
     * {@code LOST} hold follows {@code policy} (see the constructor with a caching and a policy).
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/orders}
     * @param options the lock's options; {@link LockOptions#defaults()} for none
     * @param policy what such a re-entry does
     * @throws IllegalArgumentException if an argument is null or the path is invalid
     */
    public ZkMutex(CuratorFramework client, String path, LockOptions options, ReentrantLockSupport.ReentryPolicy policy) {
        this.sync = new ReentrantLockSupport(new LockEngine(client, path, RECIPE, options), policy);
        LockComponents.register(this, sync);
    }

    @Override
    public String path() {
        return sync.path();
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return sync.acquire();
    }

    @Override
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        return sync.tryAcquire(timeout);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return sync.acquireAsync(timeout);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return sync.isHeldByCurrentThread();
    }

    /** {@return how many open blocking acquisitions the current thread has on this lock (0 if none)} */
    public int holdCount() {
        return sync.holdCount();
    }

    @Override
    public Lock asLock() {
        return sync.asLock();
    }

    /**
     * {@return who holds and who waits on this lock now, in queue order; each with its owner and
     * whether it holds}
     */
    public List<Participant> participants() {
        return sync.engine().participants();
    }

    /**
     * Releases the node this client keeps cached for this lock (see {@link LeaseCaching}): an
     * idle one now, one in use when its leases close. Leases in use stay valid. Nothing to do
     * when caching is off; the mutex may still be used afterwards (it caches again).
     */
    public void releaseCachedNodes() {
        sync.engine().releaseCachedNodes();
    }

    /**
     * Does {@link #releaseCachedNodes()}, and only that: the mutex holds nothing else to close,
     * leases in use stay valid, and the mutex may still be used afterwards. It lets a
     * try-with-resources block let go of a cached node when the block ends.
     */
    @Override
    public void close() {
        releaseCachedNodes();
    }

    @Override
    public String toString() {
        return "ZkMutex[" + path() + "]";
    }
}
