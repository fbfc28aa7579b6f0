package io.zklock.core.engine;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LeaseListener;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.api.CuratorEvent;
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
final class ZkLease implements Lease {
    private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);
    private static final long CLOSE_WAIT_MS = 10_000;
    private static final long DELETE_RETRY_MS = 1_000;
    private static final ThreadLocal<Boolean> IN_LISTENER = ThreadLocal.withInitial(() -> false);

    private final LockEngine engine;
    private final String nodePath;
    private final long fencingToken;
    private final long sessionId;
    private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CompletableFuture<Void> firstDeleteAttempt = new CompletableFuture<>();
    private final Object stateLock = new Object();
    private volatile LeaseState state = LeaseState.HELD;

    ZkLease(LockEngine engine, String nodePath, long fencingToken, long sessionId) {
        this.engine = engine;
        this.nodePath = nodePath;
        this.fencingToken = fencingToken;
        this.sessionId = sessionId;
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
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        listeners.add(listener);
    }

    @Override
    public void close() {
        if (release()) {
            awaitFirstDeleteAttempt();
        }
    }

    private boolean mayWait() {
        return engine.monitor().isConnected()
                && !IN_LISTENER.get()
                && !Thread.currentThread().getName().endsWith("-EventThread");
    }

    /**
     * Starts the release without waiting for it; safe on any thread.
     *
     * @return false if the lease was already final or being released
     */
    boolean release() {
        if (isFinal(state) || !closing.compareAndSet(false, true)) {
            return false;
        }
        engine.monitor().releasing.add(this);
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
        if (isFinal(state) || !closing.compareAndSet(false, true)) {
            return false;
        }
        engine.monitor().releasing.add(this);
        return true;
    }

    /** The claimed delete succeeded, or found the node gone. */
    void deletedByCaller() {
        engine.nodeDeleted(nodePath);
        engine.monitor().releasing.remove(this);
        engine.monitor().held.remove(this);
        LeaseState released = move(null, LeaseState.RELEASED);
        firstDeleteAttempt.complete(null);
        tell(released);
    }

    /** Waits, like {@link #close()}, for the first delete attempt when that is safe. */
    void awaitFirstDeleteAttempt() {
        if (!mayWait()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MS);
        boolean interrupted = false;
        while (true) {
            try {
                firstDeleteAttempt.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The connection is gone: a close waiting for the first delete attempt returns now. */
    void stopWaiting() {
        firstDeleteAttempt.complete(null);
    }

    /** Issues the delete, again if an earlier attempt failed. */
    void retryDelete() {
        if (!closing.get() || isFinal(state)) {
            return;
        }
        long current = engine.monitor().sessionId();
        if (current != 0 && current != sessionId) {
            lose();
            return;
        }
        try {
            engine.client().delete().inBackground((c, event) -> deleted(event)).forPath(nodePath);
        } catch (Exception e) {
            LOG.warn("could not issue the delete of {}; retried on reconnection", nodePath, e);
            firstDeleteAttempt.complete(null);
        }
    }

    private void deleted(CuratorEvent event) {
        KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
        if (rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE) {
            deletedByCaller();                   // close() returns with the lease RELEASED; listeners after
        } else if (rc == KeeperException.Code.SESSIONEXPIRED) {
            lose();
        } else {
            LOG.warn("delete of lease node {} failed ({}); retrying", nodePath, rc);
            Threads.TIMER.schedule(this::retryDelete, DELETE_RETRY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Touches the node's data once so that a waiter watching it re-reads the queue; retried
     * through connection loss until it lands or the lease ends (a lost touch would leave that
     * waiter asleep while a permit is free).
     */
    void announceGrant(byte[] data) {
        if (isFinal(state) || closing.get()) {
            return;
        }
        try {
            engine.client().setData().inBackground((c, event) -> {
                KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
                if (rc != KeeperException.Code.OK && rc != KeeperException.Code.NONODE) {
                    LOG.debug("grant notice on {} failed ({}); retrying", nodePath, rc);
                    Threads.TIMER.schedule(() -> announceGrant(data), 50, TimeUnit.MILLISECONDS);
                }
            }).forPath(nodePath, data);
        } catch (Exception e) {
            LOG.warn("could not issue the grant notice on {}", nodePath, e);
        }
    }

    void suspend() {
        transition(LeaseState.HELD, LeaseState.SUSPENDED);
    }

    void reconnected(long currentSession) {
        if (currentSession == sessionId) {
            transition(LeaseState.SUSPENDED, LeaseState.HELD);
        } else if (currentSession != 0) {
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
        SessionMonitor monitor = engine.monitor();
        monitor.held.remove(this);
        monitor.releasing.remove(this);
        firstDeleteAttempt.complete(null);
        LeaseState lost = move(null, LeaseState.LOST);
        tell(lost);                            // the holder hears first; only then can a waiter be let in
        if (lost != null && !monitor.isClosed()) {
            monitor.orphans.add(this);
            if (monitor.isConnected()) {
                deleteOrphan();
            }
        }
    }

    /** Deletes the node of a lost lease; kept for the next reconnection if ZooKeeper cannot be reached. */
    void deleteOrphan() {
        if (!engine.monitor().orphans.contains(this)) {
            return;
        }
        try {
            engine.client().delete().inBackground((c, event) -> {
                KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
                if (rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE) {
                    engine.monitor().orphans.remove(this);
                    engine.nodeDeleted(nodePath);
                    LOG.debug("deleted {}, the node of a lost lease ({})", nodePath, rc);
                } else {
                    LOG.debug("delete of lost lease node {} failed ({}); retried on reconnection", nodePath, rc);
                }
            }).forPath(nodePath);
        } catch (Exception e) {
            LOG.debug("could not issue the delete of lost lease node {}", nodePath, e);
        }
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
        boolean nested = IN_LISTENER.get();
        IN_LISTENER.set(true);
        try {
            for (LeaseListener listener : listeners) {
                try {
                    listener.stateChanged(this, next);
                } catch (RuntimeException e) {
                    LOG.warn("lease listener {} threw on {}", listener, next, e);
                }
            }
        } finally {
            IN_LISTENER.set(nested);
        }
    }

    static boolean isFinal(LeaseState s) {
        return s == LeaseState.LOST || s == LeaseState.RELEASED;
    }

    @Override
    public String toString() {
        return "Lease[" + nodePath + ", token " + fencingToken + ", " + state + "]";
    }
}
