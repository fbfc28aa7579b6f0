package io.zklock.shedlock;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's hold of a job: the lease, the lockAtMostFor timer, and whether the hold has ended
 * (unlocked, expired, or its lease gone). The successive {@link ZkJobLock}s of one run (each
 * extension makes a new one) share it. {@code lock} orders the timer against an unlock and an
 * extension, and is never held across a call to ZooKeeper: the timer runs on one thread for
 * every job of the JVM ({@link ZkLockProvider#TIMERS}), so it must never wait for one job's
 * ZooKeeper traffic. For the same reason the timer hands the release of an expired lease to
 * {@link ZkLockProvider#RELEASES} (a close may wait for ZooKeeper's reply to its delete).
 */
final class Holding {
    private static final Logger LOG = LoggerFactory.getLogger(Holding.class);

    private final ZkLockProvider provider;
    final String name;
    final Lease lease;
    private final String markPath;
    private final ReentrantLock lock = new ReentrantLock();
    private boolean ended;                     // guarded by lock
    private long expiresAt;                    // guarded by lock; System.nanoTime() when lockAtMostFor passes
    private ScheduledFuture<?> timer;          // guarded by lock
    /** The run's latest lock: the one lock() returned, or its latest extension. */
    volatile ZkJobLock current;

    Holding(ZkLockProvider provider, String name, Lease lease, String markPath) {
        this.provider = provider;
        this.name = name;
        this.lease = lease;
        this.markPath = markPath;
    }

    /** Once the run holds the job: a lost lease is logged and told to the provider's listeners. */
    void watchForLoss() {
        lease.addListener((l, state) -> {
            if (state == LeaseState.LOST && !ended()) {
                LOG.warn("job '{}': its lease {} was lost while it ran (its ZooKeeper session expired, or its node"
                        + " was deleted): another process may start the job once its lockAtLeastFor has passed",
                        name, l.nodePath());
                provider.lockLost(current);
            }
        });
    }

    /** Whether the run let go: unlocked, expired by lockAtMostFor, or not extended. */
    boolean ended() {
        lock.lock();
        try {
            return ended;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Steps 2 to 5 of the provider's Overview.
     *
     * @return false if the previous run's lockAtLeastFor has not passed or the lease is gone
     */
    boolean start(Duration atMost, Duration atLeast) {
        Stat stat = new Stat();
        byte[] data = provider.read(name, markPath, stat);
        if (data == null) {
            provider.createMarker(name, markPath);
            data = provider.read(name, markPath, stat);
            if (data == null) {
                LOG.warn("job '{}': its marker {} was deleted as it was made; not locked", name, markPath);
                return false;
            }
        }
        JobMarker previous = JobMarker.parse(data);
        if (previous == null) {
            LOG.warn("job '{}': the marker {} holds data zklock did not write; it bounds nothing and is overwritten", name, markPath);
        }
        long notBefore = previous == null ? stat.getMtime() : previous.notBefore(stat.getMtime());
        JobMarker ours = new JobMarker(atLeast.toMillis(), notBefore);
        Stat written = provider.guardedWrite(name, lease, markPath, ours, stat.getVersion());
        if (written == null) {
            return false;
        }
        if (!ours.granted(written.getMtime())) {
            LOG.debug("job '{}': its previous run's lockAtLeastFor lasts {} ms more", name, notBefore - written.getMtime());
            return false;
        }
        lock.lock();
        try {
            arm(atMost);
        } finally {
            lock.unlock();
        }
        return true;
    }

    /** Ends the hold and releases the lease (a no-op on a lease already gone). */
    void unlock() {
        lock.lock();
        try {
            end();
        } finally {
            lock.unlock();
        }
        provider.ended(this);
        lease.close();
    }

    /**
     * Extends the hold if it is still alive: the marker's bound becomes now + {@code atLeast},
     * and lockAtMostFor restarts as {@code atMost}.
     *
     * @return false, with the lease released, if lockAtMostFor had passed or the lease is gone
     */
    boolean extend(Duration atMost, Duration atLeast) {
        if (alive()) {
            // outside the lock: the timer may expire the hold meanwhile, which the check below sees;
            // a failure here throws with the hold unchanged, still to be unlocked
            Stat written = provider.guardedWrite(name, lease, markPath, new JobMarker(atLeast.toMillis(), 0), -1);
            lock.lock();
            try {
                if (written != null && alive()) {
                    timer.cancel(false);
                    arm(atMost);
                    return true;
                }
            } finally {
                lock.unlock();
            }
        }
        lock.lock();
        try {
            end();
        } finally {
            lock.unlock();
        }
        lease.close();
        return false;
    }

    /** Whether the hold has not ended, lockAtMostFor has not passed, and the lease is not gone. */
    private boolean alive() {
        lock.lock();
        try {
            return !ended && System.nanoTime() - expiresAt < 0 && !isFinal(lease.state());
        } finally {
            lock.unlock();
        }
    }

    /** The timer: lockAtMostFor passed while the job still runs. Never waits for ZooKeeper. */
    private void expire() {
        lock.lock();
        try {
            if (ended) {
                return;
            }
            end();
        } finally {
            lock.unlock();
        }
        LOG.info("job '{}' held longer than its lockAtMostFor: released", name);
        ZkLockProvider.RELEASES.execute(lease::close);
    }

    private void arm(Duration atMost) {
        long nanos = atMost.toNanos();
        expiresAt = System.nanoTime() + nanos;
        timer = ZkLockProvider.TIMERS.schedule(this::expire, nanos, TimeUnit.NANOSECONDS);
    }

    private void end() {
        ended = true;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private static boolean isFinal(LeaseState state) {
        return state == LeaseState.LOST || state == LeaseState.RELEASED;
    }
}
