package io.zklock.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * The lock {@link ZkLockProvider} returns for one run of a job. It is used once: unlocked, or
 * extended into a new lock. Besides ShedLock's contract it offers the lease's
 * {@linkplain #fencingToken() fencing token} and {@linkplain #guard() guard}, for a job that
 * writes to a resource that checks tokens, or into ZooKeeper, and its lease's
 * {@linkplain #state() state} and {@linkplain #addListener listeners}. A job run by ShedLock's
 * executor reaches its lock with {@link ZkLockProvider#currentLock()}.
 */
public final class ZkJobLock implements SimpleLock {
    private final Holding holding;
    private final AtomicBoolean used = new AtomicBoolean();

    ZkJobLock(Holding holding) {
        this.holding = holding;
        holding.current = this;
    }

    /** {@return the job's name, as ShedLock gave it} */
    public String jobName() {
        return holding.name;
    }

    /**
     * {@return the fencing token of this run's lease: larger than every earlier run's}
     * See {@link io.zklock.core.Lease#fencingToken()}.
     */
    public long fencingToken() {
        return holding.lease.fencingToken();
    }

    /**
     * {@return a check to put first in a ZooKeeper transaction, which then commits only while
     * this run holds the job} See {@link io.zklock.core.Lease#guard()}.
     */
    public CuratorOp guard() {
        return holding.lease.guard();
    }

    /**
     * {@return the state of this run's lease} {@code HELD} while the run holds the job;
     * {@code SUSPENDED} while the connection is down; {@code LOST} once its session expired
     * (another process may run the job once its lockAtLeastFor has passed); {@code RELEASED}
     * once unlocked or released by lockAtMostFor.
     */
    public LeaseState state() {
        return holding.lease.state();
    }

    /**
     * Adds a listener told of every later state change of this run's lease (see
     * {@link io.zklock.core.Lease#addListener}); on a ZooKeeper event thread, so it must be quick.
     *
     * @param listener the listener
     * @throws IllegalArgumentException if it is null
     */
    public void addListener(LeaseListener listener) {
        holding.lease.addListener(listener);
    }

    /**
     * Releases the job: the next {@code lock()} succeeds once the lockAtLeastFor in force has
     * passed. A no-op towards ZooKeeper if lockAtMostFor already released it, or its session
     * ended; never frees another run's lock.
     *
     * @throws IllegalStateException if this lock was already unlocked or extended
     */
    @Override
    public void unlock() {
        use();
        holding.unlock();
    }

    /**
     * Extends the run: it may hold the job for {@code lockAtMostFor} from now, and the job may
     * not run again before {@code lockAtLeastFor} from now (the servers' clock), which replaces
     * the earlier bound.
     *
     * @return the new lock, or empty if this one has expired (lockAtMostFor passed, or its
     *         session ended): the job is then released
     * @throws IllegalArgumentException naming the bad duration; this lock stays usable
     * @throws IllegalStateException if this lock was already unlocked or extended
     * @throws net.javacrumbs.shedlock.support.LockException if ZooKeeper cannot be reached or
     *         fails; this lock stays usable (as in ShedLock's own locks, it is used up only by
     *         an extension that returns), so it can still be unlocked
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        ZkLockProvider.checkDurations(holding.name, lockAtMostFor, lockAtLeastFor);
        use();
        boolean extended;
        try {
            extended = holding.extend(lockAtMostFor, lockAtLeastFor);
        } catch (RuntimeException e) {
            used.set(false);
            throw e;
        }
        return extended ? Optional.of(new ZkJobLock(holding)) : Optional.empty();
    }

    private void use() {
        if (!used.compareAndSet(false, true)) {
            throw new IllegalStateException("the lock of job '" + holding.name + "' was already unlocked or extended");
        }
    }

    @Override
    public String toString() {
        return "ZkJobLock[" + holding.name + ", " + holding.lease + "]";
    }
}
