/**
 * The SPI the recipe modules compile against; applications use the recipes, not this package.
 * Its vocabulary (nodes, drivers, decisions, kinds, deadlines) is the package below it,
 * {@link io.zklock.core.spi.queue}; this package holds the engine's facades, which stand above
 * the internals they call.
 *
 * <p>A recipe is a thin class over a {@link io.zklock.core.spi.LockEngine} (one lock directory,
 * one node kind, one {@link io.zklock.core.spi.queue.LockDriver}), as a {@code ReentrantLock} is
 * a thin class over its synchroniser. It supplies only a pure decision, the driver: given the
 * sorted children ({@link io.zklock.core.spi.queue.LockNode}s parsed once from their names),
 * our node and {@code maxLeases}, a {@link io.zklock.core.spi.queue.Decision} (granted, or which
 * node to watch). Drivers take no client and do no I/O, so they are tested exhaustively without
 * a server.
 *
 * <p>What lives here, by what it is for:
 * <ul>
 *   <li><b>The engine's entry points:</b> {@code LockEngine} (single locks) and
 *       {@link io.zklock.core.spi.MultiLockEngine} (all-or-nothing over several locks).</li>
 *   <li><b>Re-entry and views:</b> {@link io.zklock.core.spi.ReentrantLockSupport} (per-thread
 *       re-entry, keyed by {@link io.zklock.core.spi.Owners} ids, never by {@code Thread}),
 *       {@link io.zklock.core.spi.MultiLockSupport} (a multi-lock's re-entry and lease),
 *       {@link io.zklock.core.spi.ThreadPermits} (a semaphore's permits per thread),
 *       {@link io.zklock.core.spi.JucLockView} ({@code asLock()}).</li>
 *   <li><b>What a multi-lock needs of a recipe:</b> {@link io.zklock.core.spi.LockComponent}s
 *       registered in {@link io.zklock.core.spi.LockComponents}.</li>
 * </ul>
 *
 * <p>The life of a request behind these entry points is told in {@code io.zklock.core.internal};
 * the order of core's layers is checked by {@code PackageBoundariesTest}.
 */
package io.zklock.core.spi;
