package io.zklock.spring.integration;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration lock registry on ZooKeeper, one zklock {@link io.zklock.mutex.ZkMutex} per key, for
 * everything in Spring Integration that takes a {@code LockRegistry}: aggregators and
 * resequencers, {@code LockRequestHandlerAdvice}, {@code LockRegistryLeaderInitiator}, and
 * {@link #executeLocked executeLocked} in application code.
 *
 * <pre>{@code
 * ZkLockRegistry registry = new ZkLockRegistry(client, "/locks/orders");
 * ZkRegistryLock lock = registry.obtain("order-42");
 * lock.lockInterruptibly();
 * try {
 *     store.write(order, lock.fencingToken());
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <p><b>Keys.</b> A key is a non-empty {@code String} of at most 512 chars. Each key is its own
 * node under the root, its name percent-encoded (see the README), so any key is safe: two keys
 * never share a lock, and no key ({@code ../x}, {@code a/b}, control characters) reaches
 * outside the root. {@link #obtain} returns the same instance for the same key while a thread
 * of this process holds or acquires it; {@link #expireUnusedOlderThan} drops only instances no
 * thread uses, and a dropped instance still in a caller's hands keeps working on the key's
 * current instance. Mutual exclusion never depends on that identity, since the nodes in
 * ZooKeeper decide.
 *
 * <p><b>What the locks do</b> ({@link ZkRegistryLock} says it exactly): re-entrant per thread;
 * {@code lockInterruptibly()} waits on a ZooKeeper watch (no polling); {@code tryLock()} is one
 * attempt; {@code tryLock(time, unit)} keeps its time through connection loss; {@code unlock()}
 * by a thread that does not hold the lock throws {@link IllegalMonitorStateException};
 * {@code lock(ttl)} and {@code tryLock(wait, ttl)} release the lock after {@code ttl}, which
 * {@link #renewLock} starts again; a re-entrant {@code tryLock} by a thread whose lease was lost
 * with its session returns {@code false}, so {@code LockRegistryLeaderInitiator} revokes its
 * leadership.
 *
 * <p><b>No renewal scheduler.</b> {@link #setRenewalTaskScheduler} throws: a lock taken without
 * a TTL never expires while its ZooKeeper session lives (the client's heartbeats keep the
 * session), so there is nothing to renew in the background, and a TTL is a bound the caller
 * chose, renewed only by {@link #renewLock}.
 *
 * <p>The registry does not own the client: closing the registry stops its TTL timer thread
 * only, and closing the client ends every lock it holds.
 */
public final class ZkLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock>, AutoCloseable {
    /** The root used by {@link #ZkLockRegistry(CuratorFramework)}. */
    public static final String DEFAULT_ROOT = "/zklock/spring-integration";

    private static final AtomicInteger TIMERS = new AtomicInteger();
    /**
     * Where the TTL timers hand the close of an expired hold's lease, which may wait for
     * ZooKeeper: the timer thread of a registry serves every lock of it. Daemon threads, kept
     * while in use only.
     */
    static final Executor RELEASES = releases();

    private final CuratorFramework client;
    private final String root;
    private final Map<String, ZkRegistryLock> locks = new ConcurrentHashMap<>();
    private final Object timerLock = new Object();
    private ScheduledThreadPoolExecutor timer;      // guarded by timerLock; made at the first TTL
    private boolean closed;                         // guarded by timerLock

    /**
     * A registry whose locks live under {@value #DEFAULT_ROOT}.
     *
     * @param client a started Curator client; may be shared with other registries and locks
     * @throws IllegalArgumentException if the client is null
     */
    public ZkLockRegistry(CuratorFramework client) {
        this(client, DEFAULT_ROOT);
    }

    /**
     * A registry whose locks live under {@code root}: the lock of key {@code k} is the
     * directory {@code root + "/" + encoded(k)}.
     *
     * @param client a started Curator client; may be shared with other registries and locks
     * @param root an absolute ZooKeeper path, e.g. {@code /locks/orders}; neither {@code /} nor
     *        under {@code /zookeeper}
     * @throws IllegalArgumentException if the client is null or the root is not such a path
     */
    public ZkLockRegistry(CuratorFramework client, String root) {
        if (client == null) {
            throw new IllegalArgumentException("Curator client is null");
        }
        this.client = client;
        this.root = LockKeys.root(root);
    }

    /** {@return the ZooKeeper path under which this registry's locks live} */
    public String root() {
        return root;
    }

    /**
     * The lock of {@code lockKey}: the same instance for the same key while the registry keeps
     * it, and always while a thread of this process holds or acquires it. Makes no call to
     * ZooKeeper.
     *
     * @param lockKey a non-empty {@code String} of at most 512 chars
     * @return the lock
     * @throws IllegalArgumentException if the key is null, not a {@code String}, empty, too long
     *         or holds a lone surrogate char
     */
    @Override
    public ZkRegistryLock obtain(Object lockKey) {
        String name = LockKeys.nodeName(lockKey);
        while (true) {
            ZkRegistryLock lock = locks.computeIfAbsent((String) lockKey,
                    key -> new ZkRegistryLock(key, root + "/" + name, client, this));
            if (!lock.retired()) {
                lock.touch();
                return lock;
            }
            // retired by an expiry whose removal is under way: this waits for it, then the next round makes a new one
            locks.remove(lockKey, lock);
        }
    }

    /**
     * Forgets the locks that no thread of this process holds or is acquiring and that nobody
     * obtained, acquired or released in the last {@code age} milliseconds. A later
     * {@link #obtain} of such a key makes a new instance; a forgotten instance that a caller
     * still has acts on that one. A lock in use is never forgotten, even if a thread takes it
     * while this runs. Makes no call to ZooKeeper.
     *
     * @param age in milliseconds; zero or less forgets every unused lock
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long since = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(Math.max(0, age));
        for (String key : locks.keySet()) {
            locks.computeIfPresent(key, (k, lock) -> lock.retireIfUnused(since) ? null : lock);
        }
    }

    /**
     * Not supported: a lock taken without a TTL never expires while its ZooKeeper session lives
     * (the client's heartbeats keep the session, whatever the thread is doing), so no background
     * renewal is needed; a TTL is a bound the caller chose, which only {@link #renewLock}
     * restarts. Throwing, rather than ignoring the scheduler, tells an application that expects
     * TTL holds to be renewed for it that they are not.
     *
     * @param renewalTaskScheduler ignored
     * @throws UnsupportedOperationException always
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        throw new UnsupportedOperationException("ZkLockRegistry renews nothing in the background: a lock without"
                + " a time to live lasts as long as its ZooKeeper session, and one with a time to live is renewed by"
                + " renewLock only; take the lock without a time to live to hold it for as long as the work takes");
    }

    /**
     * Starts the time to live of the current thread's hold on {@code lockKey} again, for the
     * TTL it was taken with. A hold taken without a TTL has nothing to renew: the call only
     * checks that the thread holds it.
     *
     * @param lockKey the key
     * @throws IllegalStateException if the current thread does not hold the lock, or its lease
     *         was lost with its session
     */
    @Override
    public void renewLock(Object lockKey) {
        held(lockKey).renew(null);
    }

    /**
     * Gives the current thread's hold on {@code lockKey} a time to live of {@code ttl} from now,
     * also to a hold taken without one.
     *
     * @param lockKey the key
     * @param ttl the new time to live, positive
     * @throws IllegalArgumentException if {@code ttl} is null, zero or negative
     * @throws IllegalStateException if the current thread does not hold the lock, or its lease
     *         was lost with its session
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Duration checked = checkTtl(ttl);
        held(lockKey).renew(checked);
    }

    /**
     * Stops the TTL timer thread; a lock still held keeps its node until it is unlocked or the
     * client's session ends. Acquisitions with a TTL fail afterwards with
     * {@link IllegalStateException}. Idempotent.
     */
    @Override
    public void close() {
        synchronized (timerLock) {
            closed = true;
            if (timer != null) {
                timer.shutdownNow();
            }
        }
    }

    @Override
    public String toString() {
        return "ZkLockRegistry[" + root + "]";
    }

    private ZkRegistryLock held(Object lockKey) {
        LockKeys.nodeName(lockKey);
        ZkRegistryLock lock = locks.get((String) lockKey);
        if (lock == null) {
            throw new IllegalStateException("cannot renew lock '" + lockKey + "': the current thread does not hold it");
        }
        return lock;
    }

    /** {@return the key's live instance, or null if the registry keeps none (then no thread holds the key)} */
    ZkRegistryLock live(String key) {
        ZkRegistryLock lock = locks.get(key);
        return lock == null || lock.retired() ? null : lock;
    }

    ScheduledExecutorService timer() {
        synchronized (timerLock) {
            if (closed) {
                throw new IllegalStateException(this + " is closed: no lock with a time to live");
            }
            if (timer == null) {
                String name = "zklock-lock-ttl-" + TIMERS.incrementAndGet();
                timer = new ScheduledThreadPoolExecutor(1, task -> {
                    Thread thread = new Thread(task, name);
                    thread.setDaemon(true);
                    return thread;
                });
                timer.setRemoveOnCancelPolicy(true);
            }
            return timer;
        }
    }

    private static Executor releases() {
        AtomicInteger threads = new AtomicInteger();
        ExecutorService pool = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "zklock-lock-ttl-release-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        return pool;
    }

    static Duration checkTtl(Duration ttl) {
        if (ttl == null) {
            throw new IllegalArgumentException("time to live is null");
        }
        if (ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("time to live must be positive, was " + ttl);
        }
        return ttl;
    }
}
