package io.zklock.core.internal.lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.SessionListener;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * One granted node of one session. Its state is ONE value, a LeasePhase, changed only under
 * its monitor, its LeaseSession (move()); state() derives the public LeaseState from it, and
 * listeners are told of a change of that after the monitor is released (the serialisation rule
 * of this package is written once, in LeaseView's comment). The moves:
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
    private final String oddPath;              // the node's path if it does not pack (PackedPath); else null
    private final long idHigh;                 // the packed path: its uuid's halves and its sequence number
    private final long idLow;
    private final int sequence;
    private final long fencingToken;
    private final long sessionId;
    private final LockNode predecessor;        // at the grant; null if none
    volatile LeasePhase phase = LeasePhase.HELD;   // changed under monitor only
    private volatile Keeper keeper;            // set once by a cache that keeps the node; null if none
    volatile LeaseSession session;             // the monitor and what few leases use, made by its first need (LeaseSession.of)

    /** A lease granted with no listing to hand on (its grant is known some other way). */
    public ZkLease(LockContext context, String nodePath, long fencingToken, long sessionId) {
        this(context, nodePath, fencingToken, sessionId, null);
    }

    /** @param predecessor the node right ahead of ours in the listing that granted it; null if none, or none known */
    public ZkLease(LockContext context, String nodePath, long fencingToken, long sessionId, LockNode predecessor) {
        this.context = context;
        PackedPath packed = PackedPath.pack(nodePath, context.path(), context.namePrefix());
        this.oddPath = packed == null ? nodePath : null;
        this.idHigh = packed == null ? 0 : packed.high;
        this.idLow = packed == null ? 0 : packed.low;
        this.sequence = packed == null ? 0 : packed.sequence;
        this.fencingToken = fencingToken;
        this.sessionId = sessionId;
        this.predecessor = predecessor;
        context.monitor().addListener(this);
    }

    /**
     * The node right ahead of this lease's node in the listing that granted it (empty if none
     * was, or if the grant was known without a listing): what a recipe may check its grant
     * against, e.g. a downgrade's anchor. One node, not the listing: a lease keeps no more.
     */
    public Optional<LockNode> predecessorAtGrant() {
        return Optional.ofNullable(predecessor);
    }

    LockContext context() {
        return context;
    }

    long sessionId() {       // the session that owns the node
        return sessionId;
    }

    @Override
    public String nodePath() {
        return oddPath != null ? oddPath : PackedPath.unpack(context.path(), context.namePrefix(), idHigh, idLow, sequence);
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

    /** The session clock's figure, less the lock's margin, while the lease is not final (see SessionClock). */
    @Override
    public Duration validFor() {
        return phase.isFinal() ? Duration.ZERO : Duration.ofNanos(context.validForNanos(sessionId));
    }

    @Override
    public void addListener(LeaseListener listener) {
        session().addListener(listener);
    }

    /** Built by the lock's client, so the path carries its namespace; no request is sent. */
    @Override
    public CuratorOp guard() {
        try {
            return context.client().transactionOp().check().forPath(nodePath());
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the guard of " + nodePath() + ": " + e, e);
        }
    }

    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        if (handler == null) {
            throw new IllegalArgumentException("handler is null");
        }
        session().revocation(RevocationOptIn::add, handler);
    }

    /**
     * Hands the node to {@code keeper}, a cache that keeps it after use: the lease logs its
     * loss quietly while the keeper says the node is idle, and the node's revocation watch
     * (started now, if it was not) tells the keeper of every write into the node. Once per lease.
     */
    public void keptBy(Keeper keeper) {
        this.keeper = keeper;
        session().revocation(RevocationOptIn::keep, keeper);
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
        synchronized (session()) {
            LeasePhase now = phase;
            if (now.isFinal() || now.isReleasing()) {
                return false;
            }
            phase = now.releasing();
            session().firstDeleteAttempt(true);
            return true;
        }
    }

    /** The claimed delete succeeded, or found the node gone. */
    public void deletedByCaller() {
        context.view().deleted(oddPath != null ? NodePaths.name(oddPath)
                : PackedPath.name(context.namePrefix(), idHigh, idLow, sequence));   // the name alone: no path written
        context.monitor().removeListener(this);
        LeaseState released = move(LeasePhase::deleted);
        session().endRevocation();
        session().firstDeleteAnswered();
        tell(released);
    }

    /**
     * Starts the release of every lease; completes once each first delete attempt was answered
     * (at most {@code CLOSE_WAIT_MS}), without blocking the caller.
     */
    public static CompletableFuture<Void> releaseAll(List<ZkLease> leases) {
        leases.forEach(ZkLease::release);
        return CompletableFuture.allOf(leases.stream().map(lease -> lease.session().firstDeleteAttempt(false)).toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** Waits, like {@link #close()}, for the first delete attempt when that is safe. */
    public void awaitFirstDeleteAttempt() {
        if (mayWait() && Threads.awaitUninterruptibly(session().firstDeleteAttempt(false), CLOSE_WAIT_MS)) {
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
        String nodePath = nodePath();
        context.cleanup().release(nodePath, sessionId).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.warn("could not issue the delete of {}; retried on reconnection", nodePath, error);
                session().firstDeleteAnswered();
            } else {
                session().deleteAnswered(reply.rc());
            }
        });
    }

    /**
     * Touches the node's data once so that a waiter watching it re-reads the queue; made again
     * on reconnection if the connection was lost (see {@link GrantNotice}). The touch appends a
     * grant line to the data it was created with; if something was written first (a revocation
     * request), it is read and kept.
     */
    public void announceGrant(byte[] createdWith) {
        session().notice().send(createdWith);
    }

    // ---- session news: the lease is the monitor's listener until its node is gone (LeaseSession acts) ----

    /** The connection is lost: SUSPENDED (see LeaseSession). */
    @Override
    public void suspended() {
        session().suspended();
    }

    /** The client reconnected on {@code currentSession} (see LeaseSession). */
    @Override
    public void reconnected(long currentSession) {
        session().reconnected(currentSession);
    }

    @Override
    public void lost() {
        session().lost();
    }

    @Override
    public void closing() {
        session().closing();
    }

    /** The session that owns the node is gone, or about to be: LOST (see LeaseSession). */
    public void lose() {
        session().lose();
    }

    private LeaseSession session() {
        return LeaseSession.of(this);
    }

    /** The change of the one state value, under the monitor; returns the public state to tell, or null if it did not change. */
    LeaseState move(UnaryOperator<LeasePhase> step) {
        synchronized (session()) {
            LeasePhase before = phase;
            phase = step.apply(before);
            if (phase.shown == before.shown) {
                return null;
            }
            session().queue(phase.shown);        // in the order of the changes; told by tell()
            return phase.shown;
        }
    }

    /** Tells the listeners of a change {@link #move} made (nothing if it made none), after any queued before it. */
    void tell(LeaseState next) {
        if (next == null) {
            return;
        }
        Keeper k = keeper;
        if (next == LeaseState.LOST && k != null && k.idle()) {
            LOG.debug("idle cached node {} lost with session 0x{} (no lease was in use on it)", nodePath(), Long.toHexString(sessionId));
        } else if (next == LeaseState.LOST) {
            LOG.warn("lease on {} lost with session 0x{}", nodePath(), Long.toHexString(sessionId));
        }
        session().drain();
    }

    public static boolean isFinal(LeaseState s) {
        return s == LeaseState.LOST || s == LeaseState.RELEASED;
    }

    @Override
    public String toString() {
        return "Lease[" + nodePath() + ", token " + fencingToken + ", " + state() + "]";
    }
}
