package io.zklock.core.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's lease: one granted node of one session.
 *
 * <p>Release deletes the node in the background and keeps the lease's state until the delete
 * has succeeded, or the session that owns the node is gone; a delete that fails is retried on
 * every reconnection and on a timer. {@link #close()} waits for the first attempt only while
 * the client is connected and the caller is neither a ZooKeeper event thread nor a lease
 * listener (either would wait for a callback that needs that very thread); otherwise it
 * returns at once. A connection lost during that wait ends it: the delete is retried on
 * reconnection while the lease keeps its state.
 */
final class ZkLease implements Lease, SessionListener {
    private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);
    private static final long CLOSE_WAIT_MS = 10_000;

    private final LockEngine engine;
    private final String nodePath;
    private final long fencingToken;
    private final long sessionId;
    private final LeaseListeners listeners = new LeaseListeners();
    private final AtomicBoolean closing = new AtomicBoolean();
    /** LOST, and its node may outlive its session on the server: deleted on reconnection. */
    private final AtomicBoolean orphan = new AtomicBoolean();
    private final CompletableFuture<Void> firstDeleteAttempt = new CompletableFuture<>();
    private final Object stateLock = new Object();
    private volatile LeaseState state = LeaseState.HELD;
    private RevocationWatch revocation;        // guarded by stateLock; made by the first opt-in

    ZkLease(LockEngine engine, String nodePath, long fencingToken, long sessionId) {
        this.engine = engine;
        this.nodePath = nodePath;
        this.fencingToken = fencingToken;
        this.sessionId = sessionId;
        engine.monitor().addListener(this);
    }

    /** The session that created the lease's node. */
    long sessionId() {
        return sessionId;
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
        return state;
    }

    @Override
    public boolean isValid() {
        return state == LeaseState.HELD;
    }

    @Override
    public void addListener(LeaseListener listener) {
        listeners.add(listener);
    }

    /** Built by the lock's client, so the path carries its namespace; no request is sent. */
    @Override
    public CuratorOp guard() {
        try {
            return engine.client().transactionOp().check().forPath(nodePath);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the guard of " + nodePath + ": " + e, e);
        }
    }

    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        if (handler == null) {
            throw new IllegalArgumentException("handler is null");
        }
        RevocationWatch watch;
        synchronized (stateLock) {
            if (isFinal(state)) {
                return;
            }
            if (revocation == null) {
                revocation = new RevocationWatch(engine, this, this::deletedUnderUs);
            }
            watch = revocation;
        }
        watch.add(handler);
    }

    /**
     * The revocation watch found the node gone while the lease was not being released: another
     * client deleted it (a forced revocation), and another holder may be granted now.
     */
    private void deletedUnderUs() {
        if (!closing.get() && !isFinal(state)) {
            LOG.warn("the node {} of a held lease was deleted by another client", nodePath);
            lose();
        }
    }

    /** The lease is final: its revocation watch, if any, ends. */
    private void endRevocation() {
        RevocationWatch watch;
        synchronized (stateLock) {
            watch = revocation;
        }
        if (watch != null) {
            watch.end();
        }
    }

    @Override
    public void close() {
        if (release()) {
            awaitFirstDeleteAttempt();
        }
    }

    private boolean mayWait() {
        return engine.port().isConnected() && !LeaseListeners.isTelling() && !engine.monitor().isEventThread();
    }

    /**
     * Starts the release without waiting for it; safe on any thread.
     *
     * @return false if the lease was already final or being released
     */
    boolean release() {
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
    boolean claimRelease() {
        return !isFinal(state) && closing.compareAndSet(false, true);
    }

    /** The claimed delete succeeded, or found the node gone. */
    void deletedByCaller() {
        engine.view().deleted(ZKPaths.getNodeFromPath(nodePath));
        engine.monitor().removeListener(this);
        LeaseState released = move(null, LeaseState.RELEASED);
        endRevocation();
        firstDeleteAttempt.complete(null);
        tell(released);
    }

    /**
     * Starts the release of every lease; completes once each first delete attempt was answered
     * (at most {@code CLOSE_WAIT_MS}), without blocking the caller.
     */
    static CompletableFuture<Void> releaseAll(List<ZkLease> leases) {
        leases.forEach(ZkLease::release);
        return CompletableFuture.allOf(leases.stream().map(lease -> lease.firstDeleteAttempt).toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** Waits, like {@link #close()}, for the first delete attempt when that is safe. */
    void awaitFirstDeleteAttempt() {
        if (mayWait() && Blocking.awaitUninterruptibly(firstDeleteAttempt, CLOSE_WAIT_MS)) {
            Thread.currentThread().interrupt();
        }
    }

    /** Issues the delete, again if an earlier attempt failed. */
    void retryDelete() {
        if (!closing.get() || isFinal(state)) {
            return;
        }
        long current = engine.port().sessionId();
        if (current != 0 && current != sessionId) {
            lose();
            return;
        }
        engine.port().delete(nodePath, false).whenComplete((reply, error) -> {
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
     * Touches the node's data once so that a waiter watching it re-reads the queue; retried
     * through connection loss until it lands or the lease ends (a lost touch would leave that
     * waiter asleep while a permit is free). The touch appends a grant line to the data it was
     * created with; if something was written first (a revocation request), it is read and
     * kept.
     */
    void announceGrant(byte[] createdWith) {
        announceGrant(NodeData.withGrant(createdWith), 0);
    }

    private void announceGrant(byte[] data, int version) {
        if (isFinal(state) || closing.get()) {
            return;
        }
        engine.port().setData(nodePath, data, version).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.warn("could not issue the grant notice on {}", nodePath, error);
            } else if (reply.rc() == KeeperException.Code.BADVERSION) {
                rereadForGrant();
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.debug("grant notice on {} failed ({}); retrying", nodePath, reply.rc());
                Threads.TIMER.schedule(() -> announceGrant(data, version), Backoff.ANNOUNCE_RETRY_MS, TimeUnit.MILLISECONDS);
            }
        });
    }

    private void rereadForGrant() {
        engine.port().data(nodePath, null).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.warn("could not issue the read of {} for its grant notice", nodePath, error);
            } else if (reply.ok() && !NodeData.hasGrantLine(reply.data())) {
                announceGrant(NodeData.withGrant(reply.data()), reply.stat().getVersion());
            } else if (!reply.ok() && !reply.noNode()) {
                Threads.TIMER.schedule(this::rereadForGrant, Backoff.ANNOUNCE_RETRY_MS, TimeUnit.MILLISECONDS);
            }
        });
    }

    // ---- session news -----------------------------------------------------------------------

    @Override
    public void suspended() {
        transition(LeaseState.HELD, LeaseState.SUSPENDED);
        if (closing.get()) {
            firstDeleteAttempt.complete(null); // a close waiting on the delete returns; retried on reconnection
        }
    }

    @Override
    public void reconnected(long currentSession) {
        if (orphan.get()) {
            deleteOrphan();
        } else if (currentSession == sessionId) {
            transition(LeaseState.SUSPENDED, LeaseState.HELD);
            retryDelete();                     // if a close is unfinished
            RevocationWatch watch;
            synchronized (stateLock) {
                watch = revocation;
            }
            if (watch != null) {
                watch.reconnected();
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
    @Override
    public void lost() {
        if (!orphan.get() && sessionId != engine.port().sessionId()) {
            lose();
        }
    }

    @Override
    public void closing() {
        orphan.set(false);                     // closing the client ends the session and its nodes
        engine.monitor().removeListener(this);
        lose();
    }

    /**
     * The session that owns the node is gone, or about to be. Curator declares a session LOST
     * on its own clock, and the server may keep the session, and our node with it, until it
     * expires it: every waiter behind us would wait that long. So the node is deleted as soon
     * as the client is connected again (its name carries our uuid: it is ours and nobody
     * else's), after the holder has been told LOST.
     */
    void lose() {
        firstDeleteAttempt.complete(null);
        LeaseState lost = move(null, LeaseState.LOST);
        endRevocation();
        tell(lost);                            // the holder hears first; only then can a waiter be let in
        if (lost == null) {
            return;
        }
        if (engine.port().isClosed()) {
            engine.monitor().removeListener(this);
        } else {
            orphan.set(true);                  // stays a listener until its node is deleted
            if (engine.port().isConnected()) {
                deleteOrphan();
            }
        }
    }

    /** Deletes the node of a lost lease; kept for the next reconnection if ZooKeeper cannot be reached. */
    private void deleteOrphan() {
        if (!orphan.get()) {
            return;
        }
        engine.port().delete(nodePath, false).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.debug("could not issue the delete of lost lease node {}", nodePath, error);
            } else if ((reply.ok() || reply.noNode()) && orphan.compareAndSet(true, false)) {
                engine.monitor().removeListener(this);
                engine.view().deleted(ZKPaths.getNodeFromPath(nodePath));
                LOG.debug("deleted {}, the node of a lost lease ({})", nodePath, reply.rc());
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.debug("delete of lost lease node {} failed ({}); retried on reconnection", nodePath, reply.rc());
            }
        });
    }

    /**
     * Moves to {@code next} if the state is {@code expected} (any non-final state when null),
     * then tells the listeners outside the lock, so a listener may close its own lease.
     */
    private void transition(LeaseState expected, LeaseState next) {
        tell(move(expected, next));
    }

    /** The state change alone; returns the new state, or null if nothing changed. */
    private LeaseState move(LeaseState expected, LeaseState next) {
        synchronized (stateLock) {
            LeaseState now = state;
            if (isFinal(now) || now == next || (expected != null && now != expected)) {
                return null;
            }
            state = next;
            return next;
        }
    }

    /** Tells the listeners of a change {@link #move} made (nothing if it made none). */
    private void tell(LeaseState next) {
        if (next == null) {
            return;
        }
        if (next == LeaseState.LOST) {
            LOG.warn("lease on {} lost with session 0x{}", nodePath, Long.toHexString(sessionId));
        }
        listeners.tell(this, next);
    }

    static boolean isFinal(LeaseState s) {
        return s == LeaseState.LOST || s == LeaseState.RELEASED;
    }

    @Override
    public String toString() {
        return "Lease[" + nodePath + ", token " + fencingToken + ", " + state + "]";
    }
}
