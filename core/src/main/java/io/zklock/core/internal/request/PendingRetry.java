package io.zklock.core.internal.request;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.zklock.core.internal.Failures;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.Backoff;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.Deadline;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one retry a request's stage may have pending: an action to run as a step of the request
 * after a delay ({@link Backoff}), or at once when the connection comes back ({@link #runNow}).
 * Used under the request's lock.
 */
final class PendingRetry {
    private static final Logger LOG = LoggerFactory.getLogger(PendingRetry.class);
    private final RequestLock lock;
    private final Backoff backoff = new Backoff();
    private ScheduledFuture<?> timer;
    private Runnable action;

    PendingRetry(RequestLock lock) {
        this.lock = lock;
    }

    /**
     * A call failed with {@code rc}: if the error is the connection's and the request may wait,
     * schedules {@code again} after the next back-off delay and returns true; otherwise hands
     * {@code fail} the failure that ends the request and returns false.
     */
    boolean afterFailure(LockContext context, Deadline deadline, KeeperException.Code rc, String what, Runnable again,
            Consumer<Throwable> fail) {
        if (context.port().isClosed()) {
            fail.accept(context.clientClosed());
        } else if (context.port().authFailed()) {
            fail.accept(Failures.of(what, KeeperException.Code.AUTHFAILED, context.path()));   // no reconnection can help
        } else if (!ZkPort.Reply.isConnectionTrouble(rc)) {
            fail.accept(Failures.of(what, rc, context.path()));
        } else if (deadline.isSingleAttempt()) {
            fail.accept(context.timedOut());    // one attempt, and it could not reach ZooKeeper
        } else {
            LOG.debug("{} failed with {}; retrying", what, rc);
            schedule(backoff.next(), again);
            return true;
        }
        return false;
    }

    /** A call succeeded: the next failure backs off from the first delay again. */
    void succeeded() {
        backoff.reset();
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
