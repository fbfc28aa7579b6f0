package io.zklock.shedlock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.Lease;
import io.zklock.core.LockPaths;
import io.zklock.mutex.ZkMutex;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} on zklock's mutex: a scheduled job runs on one
 * process at a time, and a holder that dies frees its job when its ZooKeeper session expires.
 *
 * <pre>
 * Overview.
 *
 * A job name maps to one node name n (JobNames: injective, never leaves the root). Per job:
 *   root/jobs/n    a ZkMutex directory (a container): while a run holds the job, one
 *                  ephemeral node of the holder's session; nothing once it ends
 *   root/marks/n   a persistent marker whose data and mtime bound the next run (JobMarker)
 * so a job leaves one marker behind, and nothing per run.
 *
 * lock(config), never waiting for another holder:
 *   1. tryAcquire(ZERO) on the job's mutex: one attempt; empty if another process holds it.
 *   2. Read the marker (create it, empty, on the job's first run): its data and mtime give
 *      notBefore, the servers' time before which the job may not run again.
 *   3. Write the marker in one transaction behind the lease's guard, at the version read:
 *      data (lockAtLeastFor, gate = notBefore). The reply's Stat gives the write's mtime T,
 *      the servers' clock now.
 *   4. T &gt;= notBefore: the job is ours, and the marker already says it may not run again
 *      before T + lockAtLeastFor, whatever becomes of this process. T &lt; notBefore: the
 *      previous run's lockAtLeastFor has not passed; release the lease, return empty (the
 *      marker reads as a refused attempt and keeps notBefore).
 *   5. Start a local timer of lockAtMostFor (elapsed time on this process, System.nanoTime):
 *      when it passes the lease is released, even if the job still runs. A lockAtMostFor of
 *      zero (ShedLock allows it) releases the lease at once: the run holds the job for no time,
 *      and only its lockAtLeastFor (zero too) is left in the marker.
 * unlock(): release the lease (delete its node). The marker needs no write: it was written
 *   at the lock. The delete removes this run's own node, named by a uuid, so a late unlock
 *   can never free the next holder's lock.
 * extend(atMost, atLeast): while the lease holds and lockAtMostFor has not passed, a guarded
 *   write of (atLeast, gate 0) makes the bound T' + atLeast, and the timer restarts with
 *   atMost, unless lockAtMostFor passed while the write was under way; otherwise the lock has
 *   expired: empty. A write that fails (ZooKeeper unreachable) throws and changes nothing:
 *   the lock can still be unlocked. The timers of every provider share one thread, which never
 *   waits for ZooKeeper (Holding says how).
 *
 * Why no client clock is trusted: every instant compared is an mtime, which the ZooKeeper
 * leader stamps on each write from its own clock; the process only adds durations to them
 * (lockAtLeastFor) and measures its own elapsed time (lockAtMostFor), never reads its wall
 * clock nor compares it with another process's. ShedLock's LockConfiguration.createdAt is
 * ignored. What remains trusted is the servers' clocks agreeing across a leader change, a
 * handful of machines an operator keeps in sync, rather than every client.
 * Why the marker writes are guarded: only the holder of the job's lease can write the marker,
 * so a process whose session expired mid-run cannot move the next run's bound, and a reply
 * lost to a connection loss (Curator retries the transaction, which then fails on the
 * version) is recognised as our own write: nobody else can have written after our read.
 * A dead holder: its session expires, the server deletes its node, the next lock() succeeds
 * once notBefore (its lock time + lockAtLeastFor) has passed; lockAtMostFor plays no part.
 * </pre>
 *
 * <p>A {@code lock()} costs the mutex's acquire (a create and a listing), one read and one
 * transaction; {@code unlock()} one delete. The client may be shared with anything else;
 * every node carries the client's ACL.
 */
public final class ZkLockProvider implements ExtensibleLockProvider {
    /** The root used by {@link #ZkLockProvider(CuratorFramework)}. */
    public static final String DEFAULT_ROOT = "/zklock/shedlock";

    private static final Logger LOG = LoggerFactory.getLogger(ZkLockProvider.class);
    /** One daemon thread for every provider's lockAtMostFor timers; a cancelled timer is dropped at once. */
    static final ScheduledThreadPoolExecutor TIMERS = timers();
    /** Where the timers hand the release of an expired lease, which may wait for ZooKeeper; daemon threads, kept while in use only. */
    static final Executor RELEASES = releases();

    private final CuratorFramework client;
    private final String root;
    private final String jobs;
    private final String marks;
    /** The runs this provider locked on each thread, latest first: lock() runs on the job's thread. */
    private final ThreadLocal<Deque<Holding>> running = ThreadLocal.withInitial(ArrayDeque::new);
    private final List<JobLockLostListener> lostListeners = new CopyOnWriteArrayList<>();

    /**
     * A provider with its nodes under {@link #DEFAULT_ROOT}.
     *
     * @param client a started Curator client; it may be shared
     * @throws IllegalArgumentException if the client is null
     */
    public ZkLockProvider(CuratorFramework client) {
        this(client, DEFAULT_ROOT);
    }

    /**
     * A provider with its nodes under {@code root}. Every provider of the same jobs must use
     * the same root (and the same ensemble and namespace).
     *
     * @param client a started Curator client; it may be shared
     * @param root an absolute ZooKeeper path, e.g. {@code /myapp/shedlock}; neither {@code /}
     *        nor under {@code /zookeeper}
     * @throws IllegalArgumentException naming the bad value: a null client, a null or invalid root
     */
    public ZkLockProvider(CuratorFramework client, String root) {
        if (client == null) {
            throw new IllegalArgumentException("client is null");
        }
        this.client = client;
        this.root = checkRoot(root);
        this.jobs = ZKPaths.makePath(root, "jobs");
        this.marks = ZKPaths.makePath(root, "marks");
    }

    /** {@return the ZooKeeper path under which this provider keeps its nodes} */
    public String root() {
        return root;
    }

    /** A root follows the lock directories' rule ({@link LockPaths#validate}), the registry's too. */
    private static String checkRoot(String root) {
        if (root == null) {
            throw new IllegalArgumentException("root is null");
        }
        return LockPaths.validate(root);
    }

    /**
     * Locks the job once, without waiting: see the class comment.
     *
     * @param lockConfiguration the job's name and durations
     * @return the lock, or empty if another process holds the job or its previous run's
     *         lockAtLeastFor has not passed
     * @throws IllegalArgumentException naming the bad value: a null configuration, a job name
     *         that is empty, too long or not well-formed, a negative lockAtMostFor, a negative
     *         lockAtLeastFor or one above lockAtMostFor; nothing is created then
     * @throws LockException if ZooKeeper cannot be reached or fails; the job is not locked
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        if (lockConfiguration == null) {
            throw new IllegalArgumentException("lockConfiguration is null");
        }
        String name = lockConfiguration.getName();
        String node = JobNames.nodeName(name);
        checkDurations(name, lockConfiguration.getLockAtMostFor(), lockConfiguration.getLockAtLeastFor());
        Lease lease;
        try {
            lease = new ZkMutex(client, ZKPaths.makePath(jobs, node)).tryAcquire(Duration.ZERO).orElse(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (io.zklock.core.LockException e) {
            throw new LockException("cannot lock job '" + name + "': " + e.getMessage(), e);
        }
        if (lease == null) {
            return Optional.empty();
        }
        Holding holding = new Holding(this, name, lease, ZKPaths.makePath(marks, node));
        try {
            if (!holding.start(lockConfiguration.getLockAtMostFor(), lockConfiguration.getLockAtLeastFor())) {
                lease.close();
                return Optional.empty();
            }
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
        ZkJobLock lock = new ZkJobLock(holding);
        holding.watchForLoss();
        Deque<Holding> mine = running.get();
        mine.removeIf(Holding::ended);
        mine.push(holding);
        return Optional.of(lock);
    }

    /**
     * The lock of the job this thread is running, for a job run by ShedLock's executor
     * ({@code @SchedulerLock}, {@code LockingTaskExecutor}), which locks on the thread that runs
     * the job: its fencing token and guard, to write to a resource that checks them, and its
     * lease's state and listeners. The latest run still held wins when runs are nested.
     *
     * <pre>{@code
     * @Scheduled(cron = "0 * * * * *")
     * @SchedulerLock(name = "report")
     * void report() {
     *     ZkJobLock lock = provider.currentLock().orElseThrow();
     *     store.write(report(), lock.fencingToken());
     * }
     * }</pre>
     *
     * @return the lock, or empty if this thread runs no job locked by this provider (or its
     *         run ended: unlocked, or released by lockAtMostFor)
     */
    public Optional<ZkJobLock> currentLock() {
        Deque<Holding> mine = running.get();
        mine.removeIf(Holding::ended);
        if (mine.isEmpty()) {
            running.remove();
            return Optional.empty();
        }
        return Optional.ofNullable(mine.peek().current);
    }

    /**
     * Adds a listener told of each run whose lease is lost while it holds its job (see
     * {@link JobLockLostListener}).
     *
     * @param listener the listener
     * @throws IllegalArgumentException if it is null
     */
    public void addLockLostListener(JobLockLostListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        lostListeners.add(listener);
    }

    void lockLost(ZkJobLock lock) {
        for (JobLockLostListener listener : lostListeners) {
            try {
                listener.lockLost(lock);
            } catch (RuntimeException e) {
                LOG.warn("job-lock-lost listener {} threw; ignored", listener, e);
            }
        }
    }

    /** Forgets the run on the current thread, if it was locked there. */
    void ended(Holding holding) {
        Deque<Holding> mine = running.get();
        mine.remove(holding);
        if (mine.isEmpty()) {
            running.remove();
        }
    }

    static void checkDurations(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        if (lockAtMostFor == null || lockAtLeastFor == null) {
            throw new IllegalArgumentException("lockAtMostFor and lockAtLeastFor of job '" + name + "' must not be null");
        }
        if (lockAtMostFor.isNegative()) {
            throw new IllegalArgumentException("lockAtMostFor of job '" + name + "' must not be negative, was " + lockAtMostFor);
        }
        if (lockAtLeastFor.isNegative()) {
            throw new IllegalArgumentException("lockAtLeastFor of job '" + name + "' must not be negative, was " + lockAtLeastFor);
        }
        if (lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor (" + lockAtLeastFor + ") of job '" + name
                    + "' is longer than its lockAtMostFor (" + lockAtMostFor + ")");
        }
    }

    /**
     * Writes {@code marker} into the job's marker behind the lease's guard, at {@code version}.
     *
     * @return the Stat of the write, or null if the lease's node is gone (the write was refused)
     */
    Stat guardedWrite(String name, Lease lease, String markPath, JobMarker marker, int version) {
        byte[] data = marker.encode();
        try {
            List<CuratorTransactionResult> results = client.transaction().forOperations(lease.guard(),
                    client.transactionOp().setData().withVersion(version).forPath(markPath, data));
            return results.get(1).getResultStat();
        } catch (KeeperException.NoNodeException e) {
            LOG.info("job '{}': the lease's node {} is gone; the marker was not written", name, lease.nodePath());
            return null;
        } catch (KeeperException.BadVersionException e) {
            return ownWriteAfterLostReply(name, markPath, data);
        } catch (Exception e) {
            throw failure("cannot write the marker of job '" + name + "'", e);
        }
    }

    /**
     * Curator retried the transaction after a connection loss and it failed on the version:
     * only the lease's holder writes the marker, so if the data is ours, the first copy landed.
     */
    private Stat ownWriteAfterLostReply(String name, String markPath, byte[] data) {
        Stat stat = new Stat();
        byte[] now = read(name, markPath, stat);
        if (now != null && Arrays.equals(now, data)) {
            LOG.info("job '{}': the marker write's reply was lost; it had landed", name);
            return stat;
        }
        LOG.warn("job '{}': the marker {} changed under the lease's holder; not locked", name, markPath);
        return null;
    }

    /** The marker's data and Stat; null if it does not exist. */
    byte[] read(String name, String markPath, Stat stat) {
        try {
            return client.getData().storingStatIn(stat).forPath(markPath);
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (Exception e) {
            throw failure("cannot read the marker of job '" + name + "'", e);
        }
    }

    /** Creates the job's marker if it is missing; the bound it carries is its own creation time. */
    void createMarker(String name, String markPath) {
        try {
            client.create().creatingParentContainersIfNeeded().withMode(CreateMode.PERSISTENT)
                    .forPath(markPath, JobMarker.NONE.encode());
        } catch (KeeperException.NodeExistsException e) {
            // made meanwhile: by a holder before us, whose lease is gone
        } catch (Exception e) {
            throw failure("cannot create the marker of job '" + name + "'", e);
        }
    }

    private static LockException failure(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        return new LockException(what + ": " + e, e);
    }

    private static Executor releases() {
        AtomicInteger threads = new AtomicInteger();
        return Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "zklock-shedlock-release-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    private static ScheduledThreadPoolExecutor timers() {
        ThreadFactory daemon = r -> {
            Thread t = new Thread(r, "zklock-shedlock-timer");
            t.setDaemon(true);
            return t;
        };
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, daemon);
        timers.setRemoveOnCancelPolicy(true);
        return timers;
    }

    @Override
    public String toString() {
        return "ZkLockProvider[" + root + "]";
    }
}
