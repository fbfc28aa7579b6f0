package io.zklock.shedlock;

/**
 * Hears a run of a job whose lease was lost while it held the job: its ZooKeeper session
 * expired (a partition, a long pause), or its node was deleted. Another process may then run
 * the job once the run's lockAtLeastFor has passed, while this run may still be running; a job
 * that must not overlap itself stops here, or guards its writes with
 * {@link ZkJobLock#fencingToken()}. The provider also logs each loss at warning level.
 *
 * <p>Called on a ZooKeeper event thread: be quick, never block. A listener that throws is
 * logged and ignored.
 */
@FunctionalInterface
public interface JobLockLostListener {
    /**
     * A run's lease was lost.
     *
     * @param lock the run's latest lock: its {@link ZkJobLock#jobName() job name} and fencing token
     */
    void lockLost(ZkJobLock lock);
}
