package io.zklock.core.internal.lease;

import java.util.function.BooleanSupplier;

import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.ZkPort;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * The grant notice of one lease: its node's data is touched once so that a waiter watching it
 * re-reads the queue (a lost touch would leave that waiter asleep while a permit is free).
 *   1. SET   setData(grant line appended to the data the node was created with, version).
 *   2. On BADVERSION something was written first (a revocation request): read the data, and
 *      SET again with the grant line appended to what was read, at the version read; data that
 *      already carries a grant line needs nothing more.
 *   3. On connection trouble, or a call that could not be issued, the step is kept and made
 *      again when the session it was first sent on reconnects; nothing is retried while
 *      disconnected. The reply of a lost call may arrive after the reconnection news (Curator
 *      decides a background call's final CONNECTIONLOSS on its own thread, and may deliver
 *      RECONNECTED first), so a step kept while that session is connected is taken back at
 *      once and made now: whichever of keep() and reconnected() comes second makes it. Any
 *      other failure is logged and dropped.
 * Nothing is sent once the lease has ended or is being released (`ended`).
 */
/** The grant notice of one lease; see the comment above. */
final class GrantNotice {
    private static final Logger LOG = LoggerFactory.getLogger(GrantNotice.class);

    private final ZkPort port;
    private final String nodePath;
    private final BooleanSupplier ended;
    private Runnable kept;                     // guarded by this: the step to make on reconnection
    private volatile long session;             // the session of the first send

    GrantNotice(ZkPort port, String nodePath, BooleanSupplier ended) {
        this.port = port;
        this.nodePath = nodePath;
        this.ended = ended;
    }

    /** Step 1, with the data the node was created with. */
    void send(byte[] createdWith) {
        session = port.sessionId();
        set(NodeData.withGrant(createdWith), 0);
    }

    /** The same session reconnected: a kept step is made now. */
    void reconnected() {
        Runnable step;
        synchronized (this) {
            step = kept;
            kept = null;
        }
        if (step != null) {
            step.run();
        }
    }

    private void set(byte[] data, int version) {
        if (ended.getAsBoolean()) {
            return;
        }
        port.setData(nodePath, data, version).whenComplete((reply, error) -> {
            if (error != null || reply.connectionTrouble()) {
                keep(() -> set(data, version), error == null ? reply.rc() : null);
            } else if (reply.rc() == KeeperException.Code.BADVERSION) {
                reread();
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.warn("grant notice on {} failed ({}); a waiter behind it may wait for the next change", nodePath, reply.rc());
            }
        });
    }

    private void reread() {
        if (ended.getAsBoolean()) {
            return;
        }
        port.data(nodePath, null).whenComplete((reply, error) -> {
            if (error != null || reply.connectionTrouble()) {
                keep(this::reread, error == null ? reply.rc() : null);
            } else if (reply.ok() && !NodeData.hasGrantLine(reply.data())) {
                set(NodeData.withGrant(reply.data()), reply.stat().getVersion());
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.warn("read of {} for its grant notice failed ({})", nodePath, reply.rc());
            }
        });
    }

    private void keep(Runnable step, KeeperException.Code rc) {
        LOG.debug("grant notice on {} not answered ({}); made again on reconnection", nodePath, rc);
        synchronized (this) {
            kept = step;
        }
        if (port.isConnected() && port.sessionId() == session) {
            reconnected();                     // the reconnection news came first: nobody else will make it
        }
    }
}
