package io.zklock.core.internal.zk;

/**
 * The engine's retry delays, in one place: after a call fails on the connection, the delay
 * doubles from {@link #FIRST_MS} up to {@link #MAX_MS} until a call succeeds; creates that find
 * their directory reaped pause a little longer each time, up to {@link #MAX_REAPED_MS}; cleanups,
 * transactions and deletes retry at fixed delays (a grant notice waits for the reconnection).
 * Not thread-safe: one per request, used under the request's lock.
 */
public final class Backoff {
    static final long FIRST_MS = 10;
    static final long MAX_MS = 1_000;
    static final long MAX_REAPED_MS = 200;
    /** Between attempts of a sweep whose listing fails, and of a multi-lock's directory making. */
    public static final long CLEANUP_RETRY_MS = 100;
    /** Before a multi-lock's transaction is swept and sent again after a connection blip. */
    public static final long TRANSACTION_RETRY_MS = 50;
    /** Between attempts of a lease's delete that failed other than on the connection. */
    public static final long DELETE_RETRY_MS = 1_000;

    private long lastMs;

    /** The delay before the next retry of a call that failed on the connection. */
    public long next() {
        lastMs = Math.min(MAX_MS, Math.max(FIRST_MS, lastMs * 2));
        return lastMs;
    }

    /** A call succeeded: the next failure starts from the first delay again. */
    public void reset() {
        lastMs = 0;
    }

    /** The pause before the {@code n}-th create in a row that found the directory reaped (n from 1). */
    public static long afterReaped(int n) {
        return n <= 1 ? 0 : Math.min(MAX_REAPED_MS, 10L * n);
    }
}
