package io.zklock.spring.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p><b>Capacity.</b> The registry keeps at most {@link #setCacheCapacity cacheCapacity}
 * instances ({@value #DEFAULT_CAPACITY} by default, as Spring Integration's own ZooKeeper
 * registry): past it, obtaining a new key forgets the least recently used instances that no
 * thread holds or waits for. Instances in use are never forgotten, so the map can exceed the
 * capacity by the locks held or waited for at once, and by nothing else; an aggregator that
 * locks an unbounded stream of correlation keys keeps a bounded map.
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
 * <p><b>Lost locks.</b> {@code unlock()} by a thread whose lock was lost (its TTL ran out, its
 * session expired, or its node was deleted by an operator) throws
 * {@link java.util.ConcurrentModificationException}, as Spring Integration documents for its
 * registries, with the reason as its cause. Listeners added with {@link #addLockLostListener}
 * hear each held lock whose lease is lost, when it is lost, on a ZooKeeper event thread.
 *
 * <p><b>No renewal scheduler.</b> {@link #setRenewalTaskScheduler} is accepted and ignored
 * (logged once): a lock taken without a TTL never expires while its ZooKeeper session lives
 * (the client's heartbeats keep the session), so there is nothing to renew in the background,
 * and a TTL is a bound the caller chose, renewed only by {@link #renewLock}.
 *
 * <p>The registry does not own the client: closing the registry stops its TTL timer thread
 * only, and closing the client ends every lock it holds.
 */
public final class ZkLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock>, AutoCloseable {
    /** The root used by {@link #ZkLockRegistry(CuratorFramework)}. */
    public static final String DEFAULT_ROOT = "/zklock/spring-integration";
    /** The default {@linkplain #setCacheCapacity capacity}: Spring Integration's ZooKeeper registry's. */
    public static final int DEFAULT_CAPACITY = 30_000;

    private static final Logger LOG = LoggerFactory.getLogger(ZkLockRegistry.class);

    private static final AtomicInteger TIMERS = new AtomicInteger();
    /**
     * Where the TTL timers hand the close of an expired hold's lease, which may wait for
     * ZooKeeper: the timer thread of a registry serves every lock of it. Daemon threads, kept
     * while in use only.
     */
    static final Executor RELEASES = releases();

    private final CuratorFramework client;
    private final String root;
    /** Least recently obtained first; every access under its own monitor. */
    private final Map<String, ZkRegistryLock> locks = new LinkedHashMap<>(64, 0.75f, true);
    private final List<LockLostListener> lostListeners = new CopyOnWriteArrayList<>();
    private final AtomicBoolean schedulerIgnored = new AtomicBoolean();
    private volatile int capacity = DEFAULT_CAPACITY;
    private volatile boolean watchNodes;
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
        String key = (String) lockKey;
        synchronized (locks) {
            ZkRegistryLock lock = locks.get(key);
            if (lock == null || lock.retired()) {
                lock = new ZkRegistryLock(key, root + "/" + name, client, this);
                locks.put(key, lock);
                trim();
            }
            lock.touch();
            return lock;
        }
    }

    /**
     * Sets how many lock instances the registry keeps: past it, obtaining a new key forgets
     * the least recently used instances that no thread of this process holds or waits for.
     * Call it before the registry is used (a smaller capacity takes effect at the next new key).
     *
     * @param capacity at least 1; {@value #DEFAULT_CAPACITY} by default
     * @throws IllegalArgumentException if {@code capacity} is less than 1
     */
    public void setCacheCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("cache capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Whether each held lock watches its node, so that a deletion by another client (an
     * operator's forced revocation, {@code zklock revoke --force}) makes it lost at once: its
     * {@link LockLostListener}s hear it and its holder's {@code unlock()} throws
     * {@link java.util.ConcurrentModificationException}. Off by default: the watch costs one more
     * request per acquisition (3 instead of 2 when uncontended), and without it such a deletion
     * goes unnoticed until the session ends. A revocation request (not a deletion) is logged and
     * otherwise ignored: Spring Integration's locks have no way to be asked to let go.
     *
     * @param watch whether acquisitions from now on watch their node
     */
    public void setWatchForcedRevocation(boolean watch) {
        this.watchNodes = watch;
    }

    boolean watchesNodes() {
        return watchNodes;
    }

    /** {@return how many lock instances the registry keeps at most, besides those in use} */
    public int cacheCapacity() {
        return capacity;
    }

    /** {@return how many lock instances the registry keeps now} */
    public int size() {
        synchronized (locks) {
            return locks.size();
        }
    }

    /** Forgets the least recently used unused instances past the capacity; under the map's monitor. */
    private void trim() {
        int excess = locks.size() - capacity;
        for (Iterator<ZkRegistryLock> it = locks.values().iterator(); excess > 0 && it.hasNext(); ) {
            if (it.next().retireIfIdle()) {
                it.remove();
                excess--;
            }
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
        synchronized (locks) {
            List<String> retired = new ArrayList<>();
            locks.forEach((key, lock) -> {
                if (lock.retireIfUnused(since)) {
                    retired.add(key);
                }
            });
            retired.forEach(locks::remove);
        }
    }

    /**
     * Ignored, and logged once: a lock taken without a TTL never expires while its ZooKeeper
     * session lives (the client's heartbeats keep the session, whatever the thread is doing),
     * so nothing needs renewing in the background; a TTL is a bound the caller chose, which
     * only {@link #renewLock} restarts. Accepted rather than refused, as the interface's own
     * default does, so configuration shared by several registries does not fail.
     *
     * @param renewalTaskScheduler ignored
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        if (schedulerIgnored.compareAndSet(false, true)) {
            LOG.info("{} ignores its renewal task scheduler: a lock without a time to live lasts as long as its"
                    + " ZooKeeper session, and one with a time to live is renewed by renewLock only", this);
        }
    }

    /**
     * Adds a listener that hears each lock of this registry whose lease is lost while a thread
     * holds it (its session expired, or its node was deleted); see {@link LockLostListener}.
     *
     * @param listener the listener
     * @throws IllegalArgumentException if it is null
     */
    public void addLockLostListener(LockLostListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        lostListeners.add(listener);
    }

    /** Tells the listeners; one that throws is logged and the others are still told. */
    void lockLost(ZkRegistryLock lock, String nodePath, long fencingToken) {
        for (LockLostListener listener : lostListeners) {
            try {
                listener.lockLost(lock, nodePath, fencingToken);
            } catch (RuntimeException e) {
                LOG.warn("lock-lost listener {} threw; ignored", listener, e);
            }
        }
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
        ZkRegistryLock lock = live((String) lockKey);
        if (lock == null) {
            throw new IllegalStateException("cannot renew lock '" + lockKey + "': the current thread does not hold it");
        }
        return lock;
    }

    /** {@return the key's live instance, or null if the registry keeps none (then no thread holds the key)} */
    ZkRegistryLock live(String key) {
        ZkRegistryLock lock;
        synchronized (locks) {
            lock = locks.get(key);
        }
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
