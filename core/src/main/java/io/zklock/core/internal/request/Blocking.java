package io.zklock.core.internal.request;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.zklock.core.LockException;
import io.zklock.core.internal.zk.Threads;

/**
 * The two ways a caller meets an asynchronous request, single or multi: blocked on it, or
 * holding a future of its own. Both withdraw the request when the caller stops caring, and
 * release a grant that arrives too late, so no lease is ever held that nobody can close.
 */
public final class Blocking {
    private static final long WITHDRAW_WAIT_MS = 10_000;

    private Blocking() {
    }

    /** Why a request was withdrawn by its caller (interrupt or cancel). */
    static final class Withdrawn extends Exception {
        private static final long serialVersionUID = 1L;

        Withdrawn(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * Waits for the request's result: a grant is returned, a timeout is empty, a driver's refusal
     * an IllegalStateException, anything else a LockException naming {@code what} (asked for then
     * only, so that a request builds no message it does not need). On an
     * interrupt the request is withdrawn, a grant that beat the withdrawal is released, and the
     * cleanup (or the release's first delete) is waited for before InterruptedException is thrown.
     */
    public static <T> Optional<T> await(Request<T> request, Function<? super T, CompletableFuture<?>> release,
            Supplier<String> what) throws InterruptedException {
        CompletableFuture<T> result = request.result();
        try {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            return Optional.of(result.get());
        } catch (InterruptedException e) {
            request.giveUp(new Withdrawn("interrupted"));
            // a grant that beat the withdrawal is released; either way its nodes are gone when we throw
            Threads.awaitUninterruptibly(result.thenCompose(release::apply), WITHDRAW_WAIT_MS);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TimeoutException) {
                return Optional.empty();
            }
            if (cause instanceof IllegalStateException) {
                throw new IllegalStateException(cause.getMessage(), cause);   // refused by a driver
            }
            throw new LockException(what.get() + " failed: " + cause.getMessage(), cause);
        }
    }

    /**
     * The caller's own future of the grant of the request {@code start} starts, completed on the
     * completion pool (never on a ZooKeeper thread, which a blocking continuation would stall).
     * Cancelling or failing it withdraws the request; a grant that arrives after that is
     * released. A start refused with a LockException (a closed client) is a failed future, as
     * the same failure would be while waiting.
     */
    public static <T, R> CompletableFuture<R> userFuture(Supplier<Request<T>> start, Function<? super T, R> grant,
            Consumer<? super T> release) {
        Request<T> request;
        try {
            request = start.get();
        } catch (LockException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<R> user = new CompletableFuture<>();
        request.result().whenCompleteAsync((granted, error) -> {
            if (error != null) {
                user.completeExceptionally(error);
                return;
            }
            R handed;
            try {
                handed = grant.apply(granted);
            } catch (RuntimeException | Error e) {   // never a user's future left pending by a hand-out that died
                release.accept(granted);
                user.completeExceptionally(e);
                return;
            }
            if (!user.complete(handed)) {
                release.accept(granted);       // cancelled while the grant was on its way
            }
        }, Threads.COMPLETION);
        user.whenComplete((granted, error) -> {
            if (error != null) {
                request.giveUp(new Withdrawn("cancelled"));   // no-op unless the user ended it early
            }
        });
        return user;
    }
}
