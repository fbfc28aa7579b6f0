/**
 * The multi-lock recipe: {@link io.zklock.multilock.ZkMultiLock}, several zklock locks taken
 * together, all or nothing, in one ZooKeeper transaction, so that two multi-locks never wait for
 * each other in a cycle. Its grant is a {@link io.zklock.core.MultiLease}.
 *
 * <p>Read {@code ZkMultiLock}'s class comment first: it states the algorithm, re-entry, which
 * acquisitions of a component it refuses while the multi-lock is held, and release. The class is
 * thin; its re-entry and lease live in {@code io.zklock.core.spi.MultiLockSupport} (read its
 * Overview next), and the request itself in the engine's {@code MultiAcquisition}.
 *
 * <p>Each component's node waits as that recipe's own waiters do, decided by its driver and
 * granted (and, for a semaphore, announced) on its own, so a multi-lock whose process dies
 * while waiting strands no more than a single lock's dead waiter would: a semaphore component
 * keeps its live waiters moving past it ({@code SemaphoreDriver}'s Overview); in a mutex, read
 * or write component it holds what queue order gives it until its session ends, as any holder
 * would ({@code ReadWriteDriver}'s Overview).
 */
package io.zklock.multilock;
