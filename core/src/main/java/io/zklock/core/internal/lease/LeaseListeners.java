package io.zklock.core.internal.lease;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one lease. They are told in the order they were added, outside any lock, so
 * a listener may close its own lease; one that throws is logged and the others are still told.
 * While they are told, the thread is marked, so a close() inside a listener does not wait for a
 * reply that may need the very thread that delivers the news.
 */
public final class LeaseListeners {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseListeners.class);
    private static final ThreadLocal<Boolean> TELLING = ThreadLocal.withInitial(() -> false);

    private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();

    /** @throws IllegalArgumentException if the listener is null */
    public void add(LeaseListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        listeners.add(listener);
    }

    /** Tells every listener that {@code lease} is now {@code state}. */
    public void tell(Lease lease, LeaseState state) {
        boolean nested = TELLING.get();
        TELLING.set(true);
        try {
            for (LeaseListener listener : listeners) {
                try {
                    listener.stateChanged(lease, state);
                } catch (RuntimeException e) {
                    LOG.warn("lease listener {} threw on {}", listener, state, e);
                }
            }
        } finally {
            TELLING.set(nested);
        }
    }

    /** Whether the current thread is telling some lease's listeners. */
    static boolean isTelling() {
        return TELLING.get();
    }
}
