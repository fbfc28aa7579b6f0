package io.zklock.core.internal.request;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.zklock.core.internal.zk.ZkPort;

/**
 * The serialiser of one request: every reply, watch event, timer and kick of the request runs
 * as a step under one lock, so no two run at once. A step only does bookkeeping and issues
 * background calls (which never block and never answer inside the call, see {@link ZkPort});
 * whatever must run outside the lock (completing a future somebody else waits on, which runs
 * their code) is handed to {@link #later} and runs once the outermost step has released it.
 *
 * <p>A step that throws hands its exception to the request's failure handler, so no wait
 * outlives a callback that died.
 */
final class RequestLock {
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Runnable> later = new ArrayList<>();   // guarded by lock
    private final Consumer<Throwable> onFailure;

    /** @param onFailure runs outside the lock with whatever a step threw */
    RequestLock(Consumer<Throwable> onFailure) {
        this.onFailure = onFailure;
    }

    /** Runs {@code step} under the lock, then whatever it (and steps nested in it) deferred. */
    void run(Runnable step) {
        List<Runnable> deferred = List.of();
        Throwable failure = null;
        lock.lock();
        try {
            step.run();
        } catch (RuntimeException | Error e) {
            failure = e;
        } finally {
            if (lock.getHoldCount() == 1 && !later.isEmpty()) {
                deferred = List.copyOf(later);
                later.clear();
            }
            lock.unlock();
        }
        for (Runnable action : deferred) {             // each runs, whatever an earlier one threw
            try {
                action.run();
            } catch (RuntimeException | Error e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            onFailure.accept(failure);
        }
    }

    /** Defers {@code action} until the lock is released; call only from a step. */
    void later(Runnable action) {
        if (!lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("later() outside a step");
        }
        later.add(action);
    }

    boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }
}
