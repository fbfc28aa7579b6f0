/**
 * The vocabulary the engine and the recipes share, at the bottom of core: it imports nothing
 * else of zklock, and every other package of core may import it.
 *
 * <ul>
 *   <li><b>Nodes:</b> {@link io.zklock.core.spi.queue.LockNode}, one child of a lock directory
 *       parsed once from its name (the node-name format, in one place), and its
 *       {@linkplain io.zklock.core.spi.queue.LockNode#QUEUE_ORDER queue order}.</li>
 *   <li><b>Decisions:</b> {@link io.zklock.core.spi.queue.LockDriver}, a recipe's pure decision
 *       over the sorted nodes, and {@link io.zklock.core.spi.queue.Decision}, its verdict
 *       (granted, watch a node, or refused). Drivers take no client and do no I/O.</li>
 *   <li><b>Recipes:</b> {@link io.zklock.core.spi.queue.RecipeDescriptor}, the facts a recipe
 *       states once for each kind of node it queues (kind, driver, maxLeases), and what follows
 *       from them (whether a cached node is shared by its process's leases).</li>
 *   <li><b>Kinds:</b> {@link io.zklock.core.spi.queue.LockKind}, what a recipe module registers
 *       through {@link java.util.ServiceLoader} so that inspection judges its nodes with no lock
 *       object.</li>
 *   <li><b>Time:</b> {@link io.zklock.core.spi.queue.Deadline}, the one deadline of a request.</li>
 * </ul>
 *
 * <p>What belongs here: a value or a pure function over these values, throwing only JDK
 * exceptions. What does not: anything that talks to ZooKeeper, names a lease or a
 * {@code LockException}, or keeps state across calls (that is an engine facade in
 * {@code io.zklock.core.spi}, or an internal).
 */
package io.zklock.core.spi.queue;
