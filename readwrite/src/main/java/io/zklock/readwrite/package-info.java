/**
 * The read-write lock recipe: {@link io.zklock.readwrite.ZkReadWriteLock}, a fair, reentrant
 * read-write lock whose {@code readLock()} and {@code writeLock()} are two
 * {@link io.zklock.core.DistributedLock}s on one path; its decision, {@code ReadWriteDriver}
 * (package-private); and {@link io.zklock.readwrite.ReadWriteKind}, its node kinds for
 * inspection (registered through {@link java.util.ServiceLoader}).
 *
 * <p>Read {@code ZkReadWriteLock}'s class comment first (fairness, re-entry, downgrade, why an
 * upgrade is refused, session loss), then the Overview at the top of {@code ReadWriteDriver}:
 * the one queue of read and write nodes and which node each waiter watches. The Overview at the
 * top of {@code ZkReadWriteLock}'s source tells how a downgrade's anchored read node works.
 */
package io.zklock.readwrite;
