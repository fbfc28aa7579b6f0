/**
 * The semaphore recipe: {@link io.zklock.semaphore.ZkSemaphore}, a fair counting semaphore of
 * {@code maxLeases} permits, one {@link io.zklock.core.Lease} per permit; its decision,
 * {@link io.zklock.semaphore.SemaphoreDriver}; and {@link io.zklock.semaphore.SemaphoreKind},
 * its node kind for inspection (registered through {@link java.util.ServiceLoader}).
 *
 * <p>Read {@code ZkSemaphore}'s class comment first (fairness, {@code maxLeases}, session
 * loss), then the Overview at the top of {@code SemaphoreDriver}: which node holds a permit,
 * which node each waiter watches, and why a release wakes the right waiter whatever order
 * holders release in.
 */
package io.zklock.semaphore;
