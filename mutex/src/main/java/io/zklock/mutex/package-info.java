/**
 * The mutex recipe: {@link io.zklock.mutex.ZkMutex}, a reentrant, fair, distributed
 * mutual-exclusion lock, and {@link io.zklock.mutex.MutexKind}, its node kind for inspection
 * (registered through {@link java.util.ServiceLoader}, so {@code zklock status} names its nodes
 * with no lock object).
 *
 * <p>Read {@code ZkMutex}'s class comment first: it states what a holder can rely on (fairness,
 * re-entry, session loss, fencing). The mutex is as thin as {@code ReentrantLock}: its decision
 * is the SPI's exclusive driver, and everything else (creating, waiting, retrying, cleaning up)
 * is the engine's; the Overview of {@code io.zklock.core.spi.ReentrantLockSupport} tells how
 * re-entry works, and {@code io.zklock.core.spi} the rest.
 */
package io.zklock.mutex;
