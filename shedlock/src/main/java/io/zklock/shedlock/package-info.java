/**
 * ShedLock on zklock: {@link io.zklock.shedlock.ZkLockProvider}, a ShedLock 7
 * {@code ExtensibleLockProvider} built on {@link io.zklock.mutex.ZkMutex}. Read the provider's
 * class comment first: it states the algorithm, the nodes it keeps per job, and why no client
 * clock is trusted. {@link io.zklock.shedlock.ZkJobLock} is the lock of one run.
 */
package io.zklock.shedlock;
