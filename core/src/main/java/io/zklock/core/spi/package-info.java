/**
 * The SPI the recipe modules compile against; applications use the recipes, not this package.
 *
 * <p>A recipe is a thin class over a {@link io.zklock.core.spi.LockEngine} (one lock directory,
 * one node kind, one {@link io.zklock.core.spi.LockDriver}), as a {@code ReentrantLock} is a thin
 * class over its synchroniser. It supplies only a pure decision, the driver: given the sorted
 * children ({@link io.zklock.core.spi.LockNode}s parsed once from their names), our node and
 * {@code maxLeases}, a {@link io.zklock.core.spi.Decision} (granted, or which node to watch).
 * Drivers take no client and do no I/O, so they are tested exhaustively without a server.
 *
 * <p>What lives here, by what it is for:
 * <ul>
 *   <li><b>The engine's entry points:</b> {@code LockEngine} (single locks),
 *       {@link io.zklock.core.spi.MultiLockEngine} (all-or-nothing over several locks), and
 *       {@link io.zklock.core.spi.Deadline}, the one deadline of a request.</li>
 *   <li><b>Decisions:</b> {@code LockDriver}, {@code Decision}, {@code LockNode}
 *       (the node-name format, in one place), {@link io.zklock.core.spi.LockPaths}.</li>
 *   <li><b>Re-entry and views:</b> {@link io.zklock.core.spi.ReentrantLockSupport} (per-thread
 *       re-entry, keyed by {@link io.zklock.core.spi.Owners} ids, never by {@code Thread}),
 *       {@link io.zklock.core.spi.MultiLockSupport} (a multi-lock's re-entry and lease),
 *       {@link io.zklock.core.spi.ThreadPermits} (a semaphore's permits per thread),
 *       {@link io.zklock.core.spi.JucLockView} ({@code asLock()}).</li>
 *   <li><b>What a multi-lock and the inspection need of a recipe:</b>
 *       {@link io.zklock.core.spi.LockComponent}s registered in
 *       {@link io.zklock.core.spi.LockComponents}, {@link io.zklock.core.spi.MultiLockHolds},
 *       and {@link io.zklock.core.spi.LockKind} (a recipe's node kinds, registered through
 *       {@link java.util.ServiceLoader}, so {@code zklock status} judges nodes with no lock
 *       object).</li>
 * </ul>
 *
 * <p>The life of a request behind these entry points is told in {@code io.zklock.core.internal}.
 */
package io.zklock.core.spi;
