package io.zklock.core.spi.queue;

import java.util.Comparator;

/**
 * {@link LockNode#QUEUE_ORDER}: by position, then by sequence number, then by name. Written
 * out rather than composed from {@code Comparator.thenComparing}, as every listing is sorted
 * with it on the event thread.
 *
 * <p>Positions and sequence numbers compare as 32-bit serial numbers: ZooKeeper's
 * per-directory counter is a signed int that wraps after 2^31 children, and a node created
 * just after the wrap must still sort after the ones created just before it. Live nodes of
 * one directory span far less than 2^31 numbers, so this is a total order on any listing.
 */
final class QueueOrder implements Comparator<LockNode> {
    @Override
    public int compare(LockNode a, LockNode b) {
        int order = serial(a.position(), b.position());
        if (order == 0) {
            order = serial(a.sequence(), b.sequence());
        }
        return order != 0 ? order : a.name().compareTo(b.name());
    }

    private static int serial(long a, long b) {
        return Integer.signum((int) (a - b));
    }
}
