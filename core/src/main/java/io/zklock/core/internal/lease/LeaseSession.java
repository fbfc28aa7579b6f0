package io.zklock.core.internal.lease;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.BiConsumer;

import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.internal.zk.Backoff;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.Threads;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the session's news do to one {@link ZkLease} (its Overview's "session news" and
 * "session gone" moves): the lease is the listener on the client's session monitor, from the
 * grant until its node is gone, and hands the news here. This is also the lease's monitor, and
 * keeps what only some leases use (a held lease is kept as long as it is held, often by the
 * thousand): the listeners (a listener hears the changes made after it was added), the answer
 * a close waits for, the grant notice, and the opt-in to revocation (never made once the lease
 * is final, so a late handler finds none). It is made by the lease's first need of any of these
 * ({@link #of}): a lease that is held and released with no news has none until its release.
 */
final class LeaseSession {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseSession.class);
    private static final AtomicReferenceFieldUpdater<ZkLease, LeaseSession> OF =
            AtomicReferenceFieldUpdater.newUpdater(ZkLease.class, LeaseSession.class, "session");

    private final ZkLease lease;
    private LeaseListeners listeners;          // guarded by this; made by the first listener
    private CompletableFuture<Void> firstDelete;   // guarded by this; made by the claim of the release
    private GrantNotice notice;                // guarded by this
    private RevocationOptIn revocation;        // guarded by this

    private LeaseSession(ZkLease lease) {
        this.lease = lease;
    }

    /** {@return the lease's LeaseSession, made by its first need: most held leases hear no news and have none} */
    static LeaseSession of(ZkLease lease) {
        LeaseSession s = lease.session;
        if (s == null) {
            OF.compareAndSet(lease, null, new LeaseSession(lease));
            s = lease.session;
        }
        return s;
    }

    synchronized void addListener(LeaseListener listener) {
        if (listeners == null) {
            listeners = new LeaseListeners();
        }
        listeners.add(listener);
    }

    /** Queues a change for the listeners (under this monitor, as the lease makes it); none if there is no listener. */
    void queue(LeaseState state) {
        if (listeners != null) {
            listeners.queue(state);
        }
    }

    /** Tells the queued changes (see LeaseListeners.drain), outside this monitor. */
    void drain() {
        LeaseListeners l;
        synchronized (this) {
            l = listeners;
        }
        if (l != null) {
            l.drain(lease);
        }
    }

    /** {@return the first delete attempt's answer; made if {@code make}, else a completed one if none was made} */
    synchronized CompletableFuture<Void> firstDeleteAttempt(boolean make) {
        if (firstDelete == null && make) {
            firstDelete = new CompletableFuture<>();
        }
        return firstDelete != null ? firstDelete : CompletableFuture.completedFuture(null);
    }

    /** A close waiting on the first delete attempt returns. */
    void firstDeleteAnswered() {
        CompletableFuture<Void> f;
        synchronized (this) {
            f = firstDelete;
        }
        if (f != null) {
            f.complete(null);
        }
    }

    /** {@return the grant notice, made the first time} */
    synchronized GrantNotice notice() {
        if (notice == null) {
            notice = new GrantNotice(lease.context().port(), lease.nodePath(), () -> lease.phase != LeasePhase.HELD && lease.phase != LeasePhase.SUSPENDED);
        }
        return notice;
    }

    /** Passes {@code arg} to the opt-in to revocation, made the first time; nothing once the lease is final. */
    <T> void revocation(BiConsumer<RevocationOptIn, T> step, T arg) {
        RevocationOptIn r;
        synchronized (this) {
            if (revocation == null && !lease.phase.isFinal()) {
                revocation = new RevocationOptIn(lease.context(), lease, this::deletedUnderUs);
            }
            r = revocation;
        }
        if (r != null) {
            step.accept(r, arg);
        }
    }

    /** The lease is final (moved so before this call): its opt-in to revocation, if any, ends. */
    void endRevocation() {
        RevocationOptIn r;
        synchronized (this) {
            r = revocation;
        }
        if (r != null) {
            r.end();
        }
    }

    void suspended() {
        lease.tell(lease.move(LeasePhase::suspended));
        if (lease.phase.isReleasing()) {
            firstDeleteAnswered();       // a close waiting on the delete returns; retried on reconnection
        }
    }

    void reconnected(long currentSession) {
        if (lease.phase == LeasePhase.LOST_UNDELETED) {
            deleteOrphan();
        } else if (currentSession == lease.sessionId()) {
            lease.tell(lease.move(LeasePhase::reconnected));
            lease.retryDelete();               // if a close is unfinished
            GrantNotice n;
            RevocationOptIn r;
            synchronized (this) {
                n = notice;
                r = revocation;
            }
            if (n != null) {
                n.reconnected();               // if a grant notice went unanswered
            }
            if (r != null) {
                r.reconnected();
            }
        } else if (currentSession != 0) {
            lose();
        }
    }

    /*
     * Curator posts LOST after it made a new handle, and listeners before us may delay it: a
     * lease granted on the new session meanwhile is not lost. The session is read again for
     * each lease, since the new one may connect midway.
     */
    void lost() {
        if (lease.phase != LeasePhase.LOST_UNDELETED && lease.sessionId() != lease.context().port().sessionId()) {
            lose();
        }
    }

    void closing() {
        lease.context().monitor().removeListener(lease);
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
        firstDeleteAnswered();
        boolean closed = lease.context().port().isClosed();
        LeaseState lost = lease.move(now -> now.lost(!closed));
        endRevocation();
        lease.tell(lost);                      // the holder hears first; only then can a waiter be let in
        if (closed) {
            lease.context().monitor().removeListener(lease);
        } else if (lost != null && lease.context().port().isConnected()) {
            deleteOrphan();                    // stays a listener until its node is deleted
        }
    }

    /** Deletes the node of a lost lease; kept for the next reconnection if ZooKeeper cannot be reached. */
    private void deleteOrphan() {
        if (lease.phase != LeasePhase.LOST_UNDELETED) {
            return;
        }
        String nodePath = lease.nodePath();
        lease.context().port().delete(nodePath, false).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.debug("could not issue the delete of lost lease node {}: {}", nodePath, error.toString());
            } else if ((reply.ok() || reply.noNode()) && orphanDeleted()) {
                lease.context().monitor().removeListener(lease);
                lease.context().view().deleted(NodePaths.name(nodePath));
                LOG.debug("deleted {}, the node of a lost lease ({})", nodePath, reply.rc());
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.debug("delete of lost lease node {} failed ({}); retried on reconnection", nodePath, reply.rc());
            }
        });
    }

    /** The answer to the release's delete: RELEASED, LOST, or another attempt after a pause. */
    void deleteAnswered(KeeperException.Code rc) {
        if (rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE) {
            lease.deletedByCaller();           // close() returns with the lease RELEASED; listeners after
        } else if (rc == KeeperException.Code.SESSIONEXPIRED) {
            lose();
        } else {
            LOG.warn("delete of lease node {} failed ({}); retrying", lease.nodePath(), rc);
            Threads.TIMER.schedule(lease::retryDelete, Backoff.DELETE_RETRY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Whether this call moved the lease from LOST_UNDELETED to LOST (one caller wins). */
    private synchronized boolean orphanDeleted() {
        boolean was = lease.phase == LeasePhase.LOST_UNDELETED;
        lease.phase = lease.phase.orphanDeleted();
        return was;
    }
}
