package io.zklock.core.observe;

import java.util.Optional;

import io.zklock.core.LeaseState;
import io.zklock.core.OwnerInfo;

/**
 * Hears how locks are used, for metrics and traces: the start and end of every acquisition, the
 * grant and every state change of every lease. Install one with {@link LockObservers#install},
 * for the locks of one {@code CuratorFramework} client (an application's) or of the whole
 * process; none is installed by default, and then the engine reports nothing and pays nothing
 * for it. Every method does nothing unless overridden.
 *
 * <p><b>Modes.</b> Each event names the mode of the lock it concerns: {@value #MUTEX} (a
 * {@code ZkMutex}), {@value #READ} and {@value #WRITE} (the halves of a {@code ZkReadWriteLock}),
 * {@value #PERMIT} (a {@code ZkSemaphore}) and {@value #MULTI} (a {@code ZkMultiLock}'s
 * acquisition); a recipe this engine does not know is named by its node kind.
 *
 * <p><b>What is reported.</b> For each request that reaches the engine, blocking or asynchronous,
 * granted or not: one {@link AcquireStart} on the caller's thread when it begins, and one
 * {@link AcquireEvent} when it ends; re-entry by a thread that already holds the lock is no
 * request and is not reported. An observer hears a request's end, and the grant and changes of
 * the nodes it was granted, only if it was installed when the request began (and until it is
 * uninstalled): so an observer's counts of what waits or is held now stay paired, as no end
 * comes without its start. A multi-lock's acquisition is one event of mode
 * {@value #MULTI}, whose path is its locks' paths joined by commas. A {@link LeaseEvent} for each
 * state change of each granted node: a multi-lock's nodes report, each under its own lock's
 * path and mode, as any other node does. Re-entered leases share their node, which reports
 * once, when the node is released. A {@link RequestObserver} returned from
 * {@link #acquireStarted} follows one request: what the waiter waits behind, and its trace.
 *
 * <p><b>Threads.</b> Events arrive on ZooKeeper's event thread, a timer thread or the caller's
 * thread, possibly on several at once: an observer must be thread-safe, quick and must not
 * block. One that throws is logged and ignored; it never changes the outcome of a lock.
 */
public interface LockObserver {
    /** The mode of a {@code ZkMutex}. */
    String MUTEX = "mutex";
    /** The mode of a read lock. */
    String READ = "read";
    /** The mode of a write lock. */
    String WRITE = "write";
    /** The mode of a semaphore: each lease is one permit. */
    String PERMIT = "permit";
    /** The mode of a multi-lock's acquisition. */
    String MULTI = "multi";

    /** How an acquisition ended. */
    enum Outcome {
        /** Granted: the caller got a lease (or, for a caller who withdrew just then, the lease was released at once). */
        GRANTED,
        /** The timeout passed first; a zero timeout's one attempt found the lock taken. */
        TIMED_OUT,
        /** The caller withdrew: an interrupt of a blocked acquire, or {@code cancel()} of an asynchronous one. */
        CANCELLED,
        /** Anything else: a closed client, a ZooKeeper failure ({@code LockException}), a refusal by the recipe. */
        FAILED
    }

    /**
     * The start of one acquisition, on the caller's thread.
     *
     * @param path the lock's path as the caller gave it; a multi-lock's paths joined by commas
     * @param mode the lock's mode (see the constants of {@link LockObserver})
     */
    record AcquireStart(String path, String mode) {
    }

    /**
     * The node a request waits behind, as its data names it (see
     * {@link RequestObserver#waitsBehind}). Node data is written by other clients too: every
     * field is what could be read, never trusted further.
     *
     * @param nodePath the node's path (the lock's path as the waiter gave it, and the node's name)
     * @param owner its owner: host, process id, thread and time of request ({@code "?"},
     *        {@code -1} and the epoch where the data does not say)
     * @param traceId the trace id its owner wrote when it requested the lock, if it had one
     */
    record WaitedNode(String nodePath, OwnerInfo owner, Optional<String> traceId) {
    }

    /**
     * The end of one acquisition.
     *
     * @param path the lock's path as the caller gave it; a multi-lock's paths joined by commas
     * @param mode the lock's mode (see the constants of {@link LockObserver})
     * @param outcome how it ended
     * @param waitNanos from the request's start to its end
     * @param requests the ZooKeeper calls the request issued to obtain its node(s) and learn its
     *        grant (creates, transactions, listings, watches, reads, and the grant notice of a
     *        semaphore); not the deletes that clean up after a request gave up. An uncontended
     *        mutex takes 2 (create, list); a client re-acquiring a lock nobody else touched, 1
     * @param queueLength the most nodes the request found ahead of one of its nodes when it
     *        first decided on it (nodes only join a queue behind it, so in effect the first
     *        decision); 0 when it was first in line, or never got to look
     */
    record AcquireEvent(String path, String mode, Outcome outcome, long waitNanos, int requests, int queueLength) {
    }

    /**
     * A state change of a granted node.
     *
     * @param path the lock's path as the caller gave it
     * @param mode the lock's mode
     * @param state the node's lease's new state: {@code SUSPENDED}, {@code HELD} again,
     *        {@code LOST} or {@code RELEASED}
     * @param heldNanos from the grant to this change
     */
    record LeaseEvent(String path, String mode, LeaseState state, long heldNanos) {
    }

    /**
     * An acquisition begins, on the caller's thread, before it issues any request: whatever the
     * caller's thread carries (a current observation or span) can be taken from it here.
     *
     * @param start the lock and mode
     * @return what follows this request to its end and its nodes to their release, or null (the
     *         default) if this observer needs nothing per request
     */
    default RequestObserver acquireStarted(AcquireStart start) {
        return null;
    }

    /**
     * A node was granted: from now on it is held until a {@link #leaseChanged} to
     * {@code RELEASED} or {@code LOST}, the one of the two it ever reports.
     *
     * @param event the node's lock, mode and state {@code HELD}, with no time held yet
     */
    default void leaseGranted(LeaseEvent event) {
    }

    /**
     * A request's node was granted after a node ahead went without a clean release (a holder's
     * session ended), and the request now waits out the lock's lock-delay before its lease is
     * {@code HELD} (see {@link io.zklock.core.LockDelay}).
     *
     * @param path the lock's path as the caller gave it
     * @param mode the lock's mode
     * @param delayNanos how long it waits from now
     */
    record LockDelayEvent(String path, String mode, long delayNanos) {
    }

    /**
     * A granted request started waiting out a lock-delay; its {@link #acquireEnded} follows.
     *
     * @param event which lock and how long
     */
    default void lockDelayStarted(LockDelayEvent event) {
    }

    /**
     * An acquisition ended, before its caller hears of it.
     *
     * @param event what ended and how
     */
    default void acquireEnded(AcquireEvent event) {
    }

    /**
     * A granted node's lease changed state, after the lease moved to it.
     *
     * @param event which lease and its new state
     */
    default void leaseChanged(LeaseEvent event) {
    }
}
