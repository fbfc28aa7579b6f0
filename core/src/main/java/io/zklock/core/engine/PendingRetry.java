package io.zklock.core.engine;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one retry a request may have pending: an action to run as a step of the request after a
 * delay, or at once when the connection comes back ({@link #runNow}). Used under the request's lock.
 */
final class PendingRetry {
    private final RequestLock lock;
    private ScheduledFuture<?> timer;
    private Runnable action;

    PendingRetry(RequestLock lock) {
        this.lock = lock;
    }

    /** Runs {@code next} as a step after {@code delayMs}, replacing any retry pending. */
    void schedule(long delayMs, Runnable next) {
        cancel();
        action = next;
        timer = Threads.TIMER.schedule(() -> lock.run(() -> {
            if (action == next) {              // not run early nor replaced meanwhile
                runNow();
            }
        }), delayMs, TimeUnit.MILLISECONDS);
    }

    boolean isPending() {
        return action != null;
    }

    /** Runs the pending action now, if there is one. */
    void runNow() {
        Runnable next = action;
        cancel();
        if (next != null) {
            next.run();
        }
    }

    void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        action = null;
    }
}
