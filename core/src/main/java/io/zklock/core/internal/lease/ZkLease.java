package io.zklock.core.internal.lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.Backoff;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.SessionListener;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * One granted node of one session. Its state is ONE value, a LeasePhase, changed only under
 * `monitor` (move()); state() derives the public LeaseState from it, and listeners are told of
 * a change of that after the monitor is released (the serialisation rule of this package is
 * written once, in LeaseView's comment). The moves:
 *   session news  HELD <-> SUSPENDED (a release under way keeps its RELEASING mark);
 *   close         HELD/SUSPENDED -> RELEASING; the delete is issued in the background, made
 *                 again on every reconnection and, after a refusal, on a timer; its success
 *                 -> RELEASED. close() waits for the first attempt only while connected and
 *                 not on a ZooKeeper event thread or in a lease listener (either would wait for
 *                 a callback that needs that very thread); a connection lost meanwhile ends
 *                 the wait;
 *   session gone  any non-final -> LOST_UNDELETED, told LOST; the node is deleted as soon as
 *                 the client is connected (-> LOST); a closing client: LOST at once.
 * Changes are queued under the monitor and told in that order, one thread at a time
 * (LeaseListeners.drain). HELD and SUSPENDED come from Curator's connection-state thread;
 * RELEASED from the ZooKeeper event thread that delivers the delete's reply; LOST from the
 * connection-state thread, the event thread (a delete answered SESSIONEXPIRED, the node deleted
 * by another client), the thread that closes the client, or a thread that retries the delete
 * (the closing caller, the timer) and finds the session changed.
 */
/** The engine's lease: one granted node of one session; see the comment above. */
public final class ZkLease implements Lease, SessionListener {
    private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);
    private static final long CLOSE_WAIT_MS = 10_000;

    private final LockContext context;
    private final String nodePath;
    private final long fencingToken;
    private final long sessionId;
    private final LockNode predecessor;        // at the grant; null if none
    private final boolean waiterBehindAtGrant; // a conflicting waiter behind ours at the grant (cached nodes only)
    private final LeaseListeners listeners = new LeaseListeners();
    private final GrantNotice notice;
    private final CompletableFuture<Void> firstDeleteAttempt = new CompletableFuture<>();
    private final Object monitor = new Object();
    private volatile LeasePhase phase = LeasePhase.HELD;   // changed under monitor only
    private volatile BooleanSupplier keptIdle = () -> false;   // a cache keeps the node with no lease in use on it
    private final RevocationOptIn revocation;

    /** A lease granted with no listing to hand on (its grant is known some other way). */
    public ZkLease(LockContext context, String nodePath, long fencingToken, long sessionId) {
        this(context, nodePath, fencingToken, sessionId, null);
    }

    /**
     * @param granting the children, in queue order, on which the driver granted the node; null
     *        if none is known
     */
    public ZkLease(LockContext context, String nodePath, long fencingToken, long sessionId, List<LockNode> granting) {
        this.context = context;
        this.nodePath = nodePath;
        this.fencingToken = fencingToken;
        this.sessionId = sessionId;
        this.predecessor = predecessor(granting, NodePaths.name(nodePath));
        this.waiterBehindAtGrant = context.caching().isOn() && waiterBehind(context, granting, NodePaths.name(nodePath));
        this.notice = new GrantNotice(context.port(), nodePath, () -> phase != LeasePhase.HELD && phase != LeasePhase.SUSPENDED);
        this.revocation = new RevocationOptIn(context, this, this::deletedUnderUs);
        context.monitor().addListener(this);
    }

    private static LockNode predecessor(List<LockNode> granting, String ours) {
        LockNode before = null;
        for (LockNode node : granting == null ? List.<LockNode>of() : granting) {
            if (node.name().equals(ours)) {
                return before;
            }
            before = node;
        }
        return null;
    }

    /**
     * Whether {@code granting} shows a waiter behind ours (past the first maxLeases) that
     * conflicts with it and would ask it back: for a lock of one holder at a time any such
     * waiter (it asks every conflicting cached node ahead); for a lock of several holders one of
     * the waiters' needs as AskBack counts them (w waiters ask the first w cached nodes), which
     * leaves the other permits cached.
     */
    private static boolean waiterBehind(LockContext context, List<LockNode> granting, String ours) {
        if (granting == null) {
            return false;
        }
        LockNode node = null;
        int cachedAhead = 0;                   // cached nodes ahead of ours: asked before ours
        int waiters = 0;
        for (int i = 0; i < granting.size(); i++) {
            LockNode n = granting.get(i);
            if (node == null) {
                if (n.name().equals(ours)) {
                    node = n;
                } else if (n.caches()) {
                    cachedAhead++;
                }
            } else if (i >= context.maxLeases() && context.driver().conflicts(node, n)) {
                waiters++;
            }
        }
        return context.maxLeases() > 1 ? waiters > cachedAhead : waiters > 0;
    }

    /**
     * Whether the listing that granted this lease's node showed a waiter behind it that
     * conflicts with it and asks it back (a writer behind a read node, any waiter behind a
     * mutex node, a permit among those the waiters behind need): that waiter has asked, or
     * will ask, the node back, so the cache grants nothing more on it (a reader of the process
     * that queued after the writer's ask must not be granted on it while the writer waits).
     * False when caching is off or no listing is known.
     *
     * @return whether a conflicting waiter stood behind the node at its grant
     */
    public boolean waiterBehindAtGrant() {
        return waiterBehindAtGrant;
    }

    /**
     * The node right ahead of this lease's node in the listing that granted it (empty if none
     * was, or if the grant was known without a listing): what a recipe may check its grant
     * against, e.g. a downgrade's anchor. One node, not the listing: a lease keeps no more.
     */
    public Optional<LockNode> predecessorAtGrant() {
        return Optional.ofNullable(predecessor);
    }

    @Override
    public String nodePath() {
        return nodePath;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public LeaseState state() {
        return phase.shown;
    }

    @Override
    public boolean isValid() {
        return state() == LeaseState.HELD;
    }

    /** The session clock's figure while the lease is not final (see SessionClock). */
    @Override
    public Duration validFor() {
        return phase.isFinal() ? Duration.ZERO : Duration.ofNanos(context.monitor().clock().validForNanos(sessionId));
    }

    @Override
    public void addListener(LeaseListener listener) {
        listeners.add(listener);
    }

    /** Built by the lock's client, so the path carries its namespace; no request is sent. */
    @Override
    public CuratorOp guard() {
        try {
            return context.client().transactionOp().check().forPath(nodePath);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the guard of " + nodePath + ": " + e, e);
        }
    }

    /**
     * A guard that always fails (NoNode): a check of a child of this node, which cannot exist
     * under an ephemeral node. What a view closed while the node stays (held by other views, or
     * cached) guards with, as a closed lease's guard must fail.
     */
    public CuratorOp failingGuard() {
        try {
            return context.client().transactionOp().check().forPath(nodePath + "/released");
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the guard of " + nodePath + ": " + e, e);
        }
    }

    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        revocation.add(handler);
    }

    /** {@return whether the lease holds its node and nobody has started to release it: what a cache may grant again} */
    boolean isHeldAndKept() {
        return phase == LeasePhase.HELD;       // not RELEASING_HELD, which also reports HELD
    }

    /**
     * Tells whether a cache keeps this node idle (no lease in use on it): its loss with the
     * session is then nobody's news, logged at debug level instead of as a warning.
     */
    void lossIsQuietWhile(BooleanSupplier idle) {
        keptIdle = idle;
    }

    /** Runs {@code listener} once a waiter asks this cached node back (the lease cache's hook). */
    public void onAskedBack(Runnable listener) {
        revocation.addAskListener(listener);
    }

    /**
     * The revocation watch found the node gone while the lease was not being released: another
     * client deleted it (a forced revocation), and another holder may be granted now.
     */
    private void deletedUnderUs() {
        if (phase == LeasePhase.HELD || phase == LeasePhase.SUSPENDED) {
            LOG.warn("the node {} of a held lease was deleted by another client", nodePath);
            lose();
        }
    }

    @Override
    public void close() {
        if (release()) {
            awaitFirstDeleteAttempt();
        }
    }

    private boolean mayWait() {
        return context.port().isConnected() && !LeaseListeners.isTelling() && !context.monitor().isEventThread();
    }

    /**
     * Starts the release without waiting for it; safe on any thread.
     *
     * @return false if the lease was already final or being released
     */
    public boolean release() {
        if (!claimRelease()) {
            return false;
        }
        retryDelete();
        return true;
    }

    /**
     * Claims the release for a caller that deletes the node itself (a multi-lock deletes all
     * its nodes in one transaction); then {@link #deletedByCaller()} or {@link #retryDelete()}.
     *
     * @return false if the lease was already final or being released
     */
    public boolean claimRelease() {
        synchronized (monitor) {
            LeasePhase now = phase;
            if (now.isFinal() || now.isReleasing()) {
                return false;
            }
            phase = now.releasing();
            return true;
        }
    }

    /** The claimed delete succeeded, or found the node gone. */
    public void deletedByCaller() {
        context.view().deleted(NodePaths.name(nodePath));
        context.monitor().removeListener(this);
        LeaseState released = move(LeasePhase::deleted);
        revocation.end();
        firstDeleteAttempt.complete(null);
        tell(released);
    }

    /**
     * Starts the release of every lease; completes once each first delete attempt was answered
     * (at most {@code CLOSE_WAIT_MS}), without blocking the caller.
     */
    public static CompletableFuture<Void> releaseAll(List<ZkLease> leases) {
        leases.forEach(ZkLease::release);
        return CompletableFuture.allOf(leases.stream().map(lease -> lease.firstDeleteAttempt).toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** Waits, like {@link #close()}, for the first delete attempt when that is safe. */
    public void awaitFirstDeleteAttempt() {
        if (mayWait() && Threads.awaitUninterruptibly(firstDeleteAttempt, CLOSE_WAIT_MS)) {
            Thread.currentThread().interrupt();
        }
    }

    /** Issues the delete, again if an earlier attempt failed. */
    public void retryDelete() {
        if (!phase.isReleasing()) {
            return;
        }
        long current = context.port().sessionId();
        if (current != 0 && current != sessionId) {
            lose();
            return;
        }
        context.cleanup().release(nodePath, sessionId).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.warn("could not issue the delete of {}; retried on reconnection", nodePath, error);
                firstDeleteAttempt.complete(null);
            } else {
                deleted(reply.rc());
            }
        });
    }

    private void deleted(KeeperException.Code rc) {
        if (rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE) {
            deletedByCaller();                   // close() returns with the lease RELEASED; listeners after
        } else if (rc == KeeperException.Code.SESSIONEXPIRED) {
            lose();
        } else {
            LOG.warn("delete of lease node {} failed ({}); retrying", nodePath, rc);
            Threads.TIMER.schedule(this::retryDelete, Backoff.DELETE_RETRY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Touches the node's data once so that a waiter watching it re-reads the queue; made again
     * on reconnection if the connection was lost (see {@link GrantNotice}). The touch appends a
     * grant line to the data it was created with; if something was written first (a revocation
     * request), it is read and kept.
     */
    public void announceGrant(byte[] createdWith) {
        notice.send(createdWith);
    }

    // ---- session news -----------------------------------------------------------------------

    @Override
    public void suspended() {
        tell(move(LeasePhase::suspended));
        if (phase.isReleasing()) {
            firstDeleteAttempt.complete(null); // a close waiting on the delete returns; retried on reconnection
        }
    }

    @Override
    public void reconnected(long currentSession) {
        if (phase == LeasePhase.LOST_UNDELETED) {
            deleteOrphan();
        } else if (currentSession == sessionId) {
            tell(move(LeasePhase::reconnected));
            retryDelete();                     // if a close is unfinished
            notice.reconnected();              // if a grant notice went unanswered
            revocation.reconnected();
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
        if (phase != LeasePhase.LOST_UNDELETED && sessionId != context.port().sessionId()) {
            lose();
        }
    }

    @Override
    public void closing() {
        context.monitor().removeListener(this);
        lose();                                // closing the client ends the session and its nodes
    }

    /**
     * The session that owns the node is gone, or about to be. Curator declares a session LOST
     * on its own clock, and the server may keep the session, and our node with it, until it
     * expires it: every waiter behind us would wait that long. So the node is deleted as soon
     * as the client is connected again (its name carries our uuid: it is ours and nobody
     * else's), after the holder has been told LOST.
     */
    public void lose() {
        firstDeleteAttempt.complete(null);
        boolean closed = context.port().isClosed();
        LeaseState lost = move(now -> now.lost(!closed));
        revocation.end();
        tell(lost);                            // the holder hears first; only then can a waiter be let in
        if (closed) {
            context.monitor().removeListener(this);
        } else if (lost != null && context.port().isConnected()) {
            deleteOrphan();                    // stays a listener until its node is deleted
        }
    }

    /** Deletes the node of a lost lease; kept for the next reconnection if ZooKeeper cannot be reached. */
    private void deleteOrphan() {
        if (phase != LeasePhase.LOST_UNDELETED) {
            return;
        }
        context.port().delete(nodePath, false).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.debug("could not issue the delete of lost lease node {}: {}", nodePath, error.toString());
            } else if ((reply.ok() || reply.noNode()) && orphanDeleted()) {
                context.monitor().removeListener(this);
                context.view().deleted(NodePaths.name(nodePath));
                LOG.debug("deleted {}, the node of a lost lease ({})", nodePath, reply.rc());
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.debug("delete of lost lease node {} failed ({}); retried on reconnection", nodePath, reply.rc());
            }
        });
    }

    /** The change of the one state value, under the monitor; returns the public state to tell, or null if it did not change. */
    private LeaseState move(UnaryOperator<LeasePhase> step) {
        synchronized (monitor) {
            LeasePhase before = phase;
            phase = step.apply(before);
            if (phase.shown == before.shown) {
                return null;
            }
            listeners.queue(phase.shown);      // in the order of the changes; told by tell()
            return phase.shown;
        }
    }

    /** Whether this call moved the lease from LOST_UNDELETED to LOST (one caller wins). */
    private boolean orphanDeleted() {
        synchronized (monitor) {
            boolean was = phase == LeasePhase.LOST_UNDELETED;
            phase = phase.orphanDeleted();
            return was;
        }
    }

    /** Tells the listeners of a change {@link #move} made (nothing if it made none), after any queued before it. */
    private void tell(LeaseState next) {
        if (next == null) {
            return;
        }
        if (next == LeaseState.LOST && keptIdle.getAsBoolean()) {
            LOG.debug("idle cached node {} lost with session 0x{} (no lease was in use on it)", nodePath, Long.toHexString(sessionId));
        } else if (next == LeaseState.LOST) {
            LOG.warn("lease on {} lost with session 0x{}", nodePath, Long.toHexString(sessionId));
        }
        listeners.drain(this);
    }

    public static boolean isFinal(LeaseState s) {
        return s == LeaseState.LOST || s == LeaseState.RELEASED;
    }

    @Override
    public String toString() {
        return "Lease[" + nodePath + ", token " + fencingToken + ", " + state() + "]";
    }
}
