/**
 * ShedLock on zklock: {@link io.zklock.shedlock.ZkLockProvider}, a ShedLock 7
 * {@code ExtensibleLockProvider} built on {@link io.zklock.mutex.ZkMutex};
 * {@link io.zklock.shedlock.ZkJobLock}, the lock of one run; and what they keep per job:
 * {@code JobNames} (a job name to one node name), {@code JobMarker} (the marker node's data:
 * when the job may run again) and {@code Holding} (one run's hold and its lockAtMostFor timer).
 *
 * <p>Read the Overview in the provider's class comment first: it states the algorithm, the nodes
 * it keeps per job, and why no client clock is trusted.
 */
package io.zklock.shedlock;
