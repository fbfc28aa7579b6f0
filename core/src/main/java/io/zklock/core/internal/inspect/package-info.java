/**
 * Inspection: {@code Inspection} reads a lock directory (one listing, then every node's data,
 * issued together) and judges each node with its own recipe's driver, for
 * {@link io.zklock.core.LockAdmin} and the recipes' {@code participants()}; it also writes
 * revocation requests into a holder's node. {@code HeadWatch} watches the head of a directory's
 * queue for observers with no lock object (an election's leader, through
 * {@code io.zklock.core.spi.QueueHeadWatch}): one watch per client and directory, read its
 * Overview first.
 */
package io.zklock.core.internal.inspect;
