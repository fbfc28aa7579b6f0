package io.zklock.core.internal.request;

import java.util.List;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockNode;

/*
 * The last step of a request whose node was granted (Acquisition): the ZkLease is made, bound to
 * the node's session, shown to the observers, and brought to the session's state as the port
 * shows it once it listens (catchUp), so news that came between the request's listening and the
 * lease's is not missed. If the node behind may wait on ours (a driver that announces grants),
 * the lease announces its grant. A watch still registered at the grant (a children watch, or a
 * data watch left by a kick) is not removed, which would cost a request on the hot path: it
 * fires at the latest when its node goes, and the event is ignored then.
 */
/** Makes the lease of a granted node; see {@link Acquisition}. */
final class LeaseMaking {
    private LeaseMaking() {
    }

    /** The lease of {@code node}, granted on {@code granted}; its node's data was created with {@code ownerData}. */
    static ZkLease make(LockContext context, QueuedNode node, WaitEnd.Granted granted, byte[] ownerData, AcquireTally tally) {
        List<LockNode> sorted = granted.sorted();
        ZkLease lease = new ZkLease(context, node.path(), node.token(), node.session(), granted.predecessorOf(node.node()));
        tally.observeLease(lease, context);
        catchUp(context.port(), lease, node.session());
        if (context.driver().announcesGrants() && !sorted.get(sorted.size() - 1).equals(node.node())) {
            tally.issued();
            lease.announceGrant(ownerData);    // the node behind us may be waiting on ours
        }
        return lease;
    }

    /*
     * Session news that came after the request stopped listening and before the lease started
     * (in its constructor) reached neither: the lease is brought to what the port says now.
     * Closed, or on another session: LOST. Disconnected: SUSPENDED, and back to HELD at once if
     * the connection returned meanwhile (its news may have come before the lease's SUSPENDED).
     */
    private static void catchUp(ZkPort port, ZkLease lease, long session) {
        long current = port.sessionId();
        if (port.isClosed() || (current != 0 && current != session)) {
            lease.lose();
        } else if (!port.isConnected()) {
            lease.suspended();
            if (port.isConnected()) {
                lease.reconnected(port.sessionId());
            }
        }
    }
}
