package io.zklock.mutex;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LockDelay;
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
        this.sync = new ReentrantLockSupport(new LockEngine(client, path, RECIPE, caching));
        LockComponents.register(this, sync);
    }

    /**
     * A mutex with a lock-delay: after a holder's session ends without a release, the next
     * holder waits {@code lockDelay} before its lease is granted (see {@link LockDelay}).
     *
     * @param client a started Curator client; it may be shared by many locks
     * @param path the lock's ZooKeeper path
     * @param caching how long a node is kept after its last local lease closes;
     *        {@link LeaseCaching#off()} for none
     * @param lockDelay the lock-delay; {@link LockDelay#off()} for none
     * @throws IllegalArgumentException if an argument is null, or the path is invalid
     */
    public ZkMutex(CuratorFramework client, String path, LeaseCaching caching, LockDelay lockDelay) {
        this.sync = new ReentrantLockSupport(new LockEngine(client, path, RECIPE, caching, lockDelay));
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
