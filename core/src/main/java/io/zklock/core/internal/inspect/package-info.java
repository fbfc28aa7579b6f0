/**
 * Inspection: {@code Inspection} reads a lock directory (one listing, then every node's data,
 * issued together) and judges each node with its own recipe's driver, for
 * {@link io.zklock.core.LockAdmin} and the recipes' {@code participants()}; it also writes
 * revocation requests into a holder's node.
 */
package io.zklock.core.internal.inspect;
