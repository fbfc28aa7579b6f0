package io.zklock.core.internal.lease;

import io.zklock.core.LeaseState;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.SessionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the session's news do to one {@link ZkLease} (its Overview's "session news" and
 * "session gone" moves): the lease's listener on the client's session monitor, from the grant
 * until its node is gone.
 */
final class LeaseSession implements SessionListener {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseSession.class);

    private final ZkLease lease;
    private final LockContext context;
    private final long sessionId;

    LeaseSession(ZkLease lease, LockContext context, long sessionId) {
        this.lease = lease;
        this.context = context;
        this.sessionId = sessionId;
    }

    @Override
    public void suspended() {
        lease.tell(lease.move(LeasePhase::suspended));
        if (lease.phase.isReleasing()) {
            lease.firstDeleteAnswered();       // a close waiting on the delete returns; retried on reconnection
        }
    }

    @Override
    public void reconnected(long currentSession) {
        if (lease.phase == LeasePhase.LOST_UNDELETED) {
            deleteOrphan();
        } else if (currentSession == sessionId) {
            lease.tell(lease.move(LeasePhase::reconnected));
            lease.retryDelete();               // if a close is unfinished
            lease.notice.reconnected();      // if a grant notice went unanswered
            lease.revocation.reconnected();
        } else if (currentSession != 0) {
            lose();
        }
    }

    /*
     * Curator posts LOST after it made a new handle, and listeners before us may delay it: a
     * lease granted on the new session meanwhile is not lost. The session is read again for
     * each lease, since the new one may connect midway.
     */
    @Override
    public void lost() {
        if (lease.phase != LeasePhase.LOST_UNDELETED && sessionId != context.port().sessionId()) {
            lose();
        }
    }

    @Override
    public void closing() {
        context.monitor().removeListener(this);
        lose();                                // closing the client ends the session and its nodes
    }

    /**
     * The revocation watch found the node gone while the lease was not being released: another
     * client deleted it (a forced revocation), and another holder may be granted now.
     */
    void deletedUnderUs() {
        if (lease.phase == LeasePhase.HELD || lease.phase == LeasePhase.SUSPENDED) {
            LOG.warn("the node {} of a held lease was deleted by another client", lease.nodePath());
            lose();
        }
    }

    /**
     * The session that owns the node is gone, or about to be. Curator declares a session LOST
     * on its own clock, and the server may keep the session, and our node with it, until it
     * expires it: every waiter behind us would wait that long. So the node is deleted as soon
     * as the client is connected again (its name carries our uuid: it is ours and nobody
     * else's), after the holder has been told LOST.
     */
    void lose() {
        lease.firstDeleteAnswered();
        boolean closed = context.port().isClosed();
        LeaseState lost = lease.move(now -> now.lost(!closed));
        lease.revocation.end();
        lease.tell(lost);                      // the holder hears first; only then can a waiter be let in
        if (closed) {
            context.monitor().removeListener(this);
        } else if (lost != null && context.port().isConnected()) {
            deleteOrphan();                    // stays a listener until its node is deleted
        }
    }

    /** Deletes the node of a lost lease; kept for the next reconnection if ZooKeeper cannot be reached. */
    private void deleteOrphan() {
        if (lease.phase != LeasePhase.LOST_UNDELETED) {
            return;
        }
        String nodePath = lease.nodePath();
        context.port().delete(nodePath, false).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.debug("could not issue the delete of lost lease node {}: {}", nodePath, error.toString());
            } else if ((reply.ok() || reply.noNode()) && lease.orphanDeleted()) {
                context.monitor().removeListener(this);
                context.view().deleted(NodePaths.name(nodePath));
                LOG.debug("deleted {}, the node of a lost lease ({})", nodePath, reply.rc());
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.debug("delete of lost lease node {} failed ({}); retried on reconnection", nodePath, reply.rc());
            }
        });
    }
}
