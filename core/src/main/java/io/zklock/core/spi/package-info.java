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
 *   <li><b>Observers:</b> {@link io.zklock.core.spi.QueueHeadWatch}, one shared watch per
 *       client on the head of a directory's queue (an election's leader), and
 *       {@link io.zklock.core.spi.LockEngine#withParticipant}, which names a participant in
 *       each node's owner data.</li>
 *   <li><b>What a multi-lock needs of a recipe:</b> {@link io.zklock.core.spi.LockComponent}s
 *       registered in {@link io.zklock.core.spi.LockComponents}.</li>
 * </ul>
 *
 * <h2>Adding a recipe</h2>
 * <ol>
 *   <li><b>Driver.</b> A {@link io.zklock.core.spi.queue.LockDriver}: a pure decision over the
 *       sorted nodes, tested exhaustively without a server. It says which kinds conflict
 *       ({@code conflicts}: nodes of one kind that do not conflict hold together), and whether
 *       a grant must tell the nodes behind it ({@code announcesGrants}).</li>
 *   <li><b>Descriptor.</b> A {@link io.zklock.core.spi.queue.RecipeDescriptor} per kind of node
 *       the recipe queues (kind, driver, maxLeases), stated once, usually as a constant. The
 *       recipe class is a thin class over {@code new LockEngine(client, path, descriptor)} (or
 *       with a {@code LeaseCaching}; whether a cached node serves several local leases at once
 *       is derived from the driver), with {@code ReentrantLockSupport} for re-entry or
 *       {@code ThreadPermits} for permits, {@code JucLockView} for {@code asLock()}, and a
 *       {@code LockComponent} registered in {@code LockComponents} so a multi-lock can take it.
 *       It reads a lease's node with {@link io.zklock.core.spi.LockEngine#nodeOf}, never from
 *       the node's path.</li>
 *   <li><b>Kind registration.</b> A {@link io.zklock.core.spi.queue.LockKind} answering from the
 *       same descriptor, listed in the module's
 *       {@code META-INF/services/io.zklock.core.spi.queue.LockKind}, so that {@code zklock status}
 *       judges its nodes with no lock object.</li>
 *   <li><b>Conformance.</b> A factory for it in the one list of recipes of
 *       {@code conformance-tests} ({@code Recipe.all()}): every property every recipe keeps, and
 *       the fault schedules, then run on it.</li>
 * </ol>
 * The module depends on {@code zklock-core} only, and joins the parent POM and the BOM.
 *
 * <p><b>A primitive that is not a lock</b> (a latch, a barrier) grants no lease, so it is not a
 * driver over {@code LockEngine}: it gets a module of its own, an entry point of its own in this
 * package beside {@code LockEngine} and {@code MultiLockEngine}, and its internals in a package
 * of their own under {@code io.zklock.core.internal}, standing on the ZooKeeper door
 * ({@code internal.zk}) and placed among core's layers. Only pure values it shares with the
 * locks go to {@code spi.queue}.
 *
 * <p>The life of a request behind these entry points is told in {@code io.zklock.core.internal};
 * the order of core's layers is checked by {@code PackageBoundariesTest}.
 */
package io.zklock.core.spi;
