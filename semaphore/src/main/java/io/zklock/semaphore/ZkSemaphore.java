package io.zklock.semaphore;

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
import io.zklock.core.spi.JucLockView;
import io.zklock.core.spi.LockComponents;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.ThreadPermits;
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
        this(client, path, maxLeases, caching, LockDelay.off());
    }

    /**
     * A semaphore with a lock-delay: a waiter granted after a permit holder's session ended
     * without a release waits {@code lockDelay} before its lease is granted (see {@link LockDelay}).
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the semaphore's ZooKeeper path, absolute
     * @param maxLeases how many permits exist; at least 1, the same for every client of the path
     * @param caching whether and how long a permit node is kept after its lease closes;
     *        {@link LeaseCaching#off()} for none
     * @param lockDelay the lock-delay; {@link LockDelay#off()} for none
     * @throws IllegalArgumentException if an argument is null, the path invalid or maxLeases below 1
     */
    public ZkSemaphore(CuratorFramework client, String path, int maxLeases, LeaseCaching caching, LockDelay lockDelay) {
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1, was " + maxLeases);
        }
        this.engine = new LockEngine(client, path, SemaphoreDriver.recipe(maxLeases), caching, lockDelay);
        LockEngine own = engine;
        LockComponents.register(this, () -> own);   // a permit taken through a multi-lock is one more permit
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
        return engine.tryAcquire(timeout).map(permits::track);
    }

    /**
     * See {@link DistributedLock#acquireAsync(Duration)}; a maxLeases disagreement completes the
     * future with {@link IllegalStateException}.
     */
    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
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
