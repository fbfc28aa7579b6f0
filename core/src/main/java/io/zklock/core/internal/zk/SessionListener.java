package io.zklock.core.internal.zk;

/**
 * Told by the {@link SessionMonitor} of a client's connection and session changes: leases and
 * waiters register while they depend on the session. Calls come on Curator's connection-state
 * thread (closing: on the thread that closes the client) and must not block.
 */
public interface SessionListener {

    /** The connection is lost (or read-only); the session may still be alive. */
    default void suspended() {
    }

    /** Connected again, on session {@code sessionId} (a new one if the old one expired). */
    default void reconnected(long sessionId) {
    }

    /** Curator declared the session lost; a new one may already be connecting. */
    default void lost() {
    }

    /** The client is closing: nothing will be answered again, and the session's nodes go with it. */
    default void closing() {
    }
}
