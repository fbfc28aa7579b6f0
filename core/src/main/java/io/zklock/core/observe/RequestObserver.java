package io.zklock.core.observe;

/**
 * What one {@link LockObserver} follows one request with, from its start on the caller's thread
 * to its end, and each node the request was granted from its grant to its release or loss: the
 * place to keep what must be carried from the caller's thread to the end (an observation, a
 * span). An observer makes one in {@link LockObserver#acquireStarted}; the engine tells it of
 * this request only. Every method does nothing unless overridden.
 *
 * <p>The threads are those of {@link LockObserver}: only {@link #traceId()} is asked on the
 * caller's thread; the rest may come on any thread, never two of them at once for one request
 * before its end, and a multi-lock's nodes' lease events possibly at once. A method that throws
 * is logged and ignored, as an observer's are.
 */
public interface RequestObserver {
    /**
     * The trace the request runs in, written into the owner data of the nodes it creates (a
     * waiter's observer reads it back in {@link LockObserver.WaitedNode}); asked once, on the
     * caller's thread, right after {@link LockObserver#acquireStarted}. Writing it costs no
     * request: it travels with the create. Of several observers, the first that gives one wins
     * (and if it is no trace id, none is written).
     *
     * @return the trace id (1 to 64 letters, digits, {@code -} or {@code _}; anything else is not
     *         written), or null for none
     */
    default String traceId() {
        return null;
    }

    /**
     * The request waits behind another node: the node it watches (for a mutex or a write lock,
     * the one right ahead of it: the holder when the request is next in line), as that node's
     * data names its owner. Told each time the request starts waiting behind a node, from the
     * reply that set the watch: it costs no request. Not told while it waits behind cached
     * nodes of another client (see {@code LeaseCaching}) in a client that keeps cached nodes
     * itself (or that once added its tree watch for such a wait), nor behind cached nodes whose
     * holders let go on hearing a conflicting node created behind them (a mutex's, a read
     * lock's) in any client where tree watches are on: it then hears them go through its
     * client's tree watch and reads no node data.
     *
     * @param node the node waited for
     */
    default void waitsBehind(LockObserver.WaitedNode node) {
    }

    /**
     * The request ended: the event {@link LockObserver#acquireEnded} gets, told just after it.
     *
     * @param event what ended and how
     */
    default void ended(LockObserver.AcquireEvent event) {
    }

    /**
     * A node of the request was granted (a multi-lock's request is granted one per lock):
     * the event {@link LockObserver#leaseGranted} gets, told just after it.
     *
     * @param event the node's lock, mode and state {@code HELD}, with no time held yet
     */
    default void leaseGranted(LockObserver.LeaseEvent event) {
    }

    /**
     * A node the request was granted changed state: the event {@link LockObserver#leaseChanged}
     * gets, told just after it.
     *
     * @param event which lease and its new state
     */
    default void leaseChanged(LockObserver.LeaseEvent event) {
    }
}
