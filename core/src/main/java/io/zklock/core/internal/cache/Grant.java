package io.zklock.core.internal.cache;

import java.util.List;

import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.spi.queue.LockNode;

/**
 * A grant ZooKeeper made, as a value handed from the request to the cache: the lease, and the
 * children on which the driver granted it, in queue order (null when the grant was known
 * without them), by which the cache judges whether a waiter behind already asks the node back.
 *
 * @param lease the granted lease
 * @param granting the granting listing, or null
 */
public record Grant(ZkLease lease, List<LockNode> granting) {
}
