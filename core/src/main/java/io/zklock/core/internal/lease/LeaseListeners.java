package io.zklock.core.internal.lease;

import java.util.ArrayDeque;
import java.util.Arrays;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one lease, and the order in which they hear its changes. The lease queues
 * each change under its own monitor, in the order it makes them ({@link #queue}), and then
 * drains the queue outside it ({@link #drain}): one thread tells at a time, so every listener
 * hears every change once and in order, even when two threads change the lease at once (a
 * thread that finds another one telling leaves its news to that one). Listeners are told in
 * the order they were added, outside any lock, so a listener may close its own lease (it hears
 * that change after it returns); one that throws is logged and the others are still told.
 * While they are told, the thread is marked, so a close() inside a listener does not wait for a
 * reply that may need the very thread that delivers the news.
 */
public final class LeaseListeners {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseListeners.class);
    private static final ThreadLocal<Boolean> TELLING = ThreadLocal.withInitial(() -> false);

    private static final LeaseListener[] NONE = {};

    // a lease is made per grant, most have no listener, and a held one changes rarely: no list
    // of its own until the first listener is added (copied on add, read without a lock), and no
    // queue but while changes wait to be told (made by queue(), dropped once drained)
    private volatile LeaseListener[] listeners = NONE;
    private ArrayDeque<LeaseState> pending;    // guarded by this; null while empty
    private boolean draining;                  // guarded by this

    /** @throws IllegalArgumentException if the listener is null */
    public void add(LeaseListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        synchronized (this) {
            LeaseListener[] now = Arrays.copyOf(listeners, listeners.length + 1);
            now[now.length - 1] = listener;
            listeners = now;
        }
    }

    /** Queues a change of the lease; called under the lease's monitor, in the order of its changes. */
    public void queue(LeaseState state) {
        synchronized (this) {
            if (pending == null) {
                pending = new ArrayDeque<>(2);
            }
            pending.add(state);
        }
    }

    /** Tells every queued change of {@code lease} in order, unless another thread is telling them; never under a lock. */
    public void drain(Lease lease) {
        synchronized (this) {
            if (draining) {
                return;
            }
            draining = true;
        }
        while (true) {
            LeaseState next;
            synchronized (this) {
                next = pending == null ? null : pending.poll();
                if (next == null) {
                    pending = null;
                    draining = false;
                    return;
                }
            }
            tell(lease, next);
        }
    }

    /** Tells every listener that {@code lease} is now {@code state}. */
    private void tell(Lease lease, LeaseState state) {
        LeaseListener[] told = listeners;
        if (told.length == 0) {
            return;
        }
        boolean nested = TELLING.get();
        TELLING.set(true);
        try {
            for (LeaseListener listener : told) {
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
