package io.zklock.core.spi.queue;

import java.time.Duration;
import java.util.Optional;

/**
 * When a request stops waiting: never, after its single attempt (a zero timeout), or at an
 * instant on {@link System#nanoTime()}'s clock computed once, when the request began.
 */
public final class Deadline {
    private static final Deadline UNBOUNDED = new Deadline(Kind.UNBOUNDED, 0);

    private enum Kind { UNBOUNDED, SINGLE_ATTEMPT, AT }

    private final Kind kind;
    private final long at;

    private Deadline(Kind kind, long at) {
        this.kind = kind;
        this.at = at;
    }

    /** A request that waits as long as it takes. */
    public static Deadline unbounded() {
        return UNBOUNDED;
    }

    /**
     * The grant of a request made under {@link #unbounded()}, which ends granted or failed,
     * never empty: an empty result is a bug of the engine, reported as such in one place.
     *
     * @param <T> what the request grants
     * @param result the request's result
     * @param what names the request in the error
     * @return the grant
     * @throws IllegalStateException if the result is empty
     */
    public static <T> T grantOfUnbounded(Optional<T> result, String what) {
        return result.orElseThrow(() -> new IllegalStateException("an unbounded acquisition of " + what
                + " ended without a grant or a failure"));
    }

    /**
     * The deadline of a user's timeout, starting now: {@code ZERO} is one attempt; a timeout
     * too large for a {@code long} of nanoseconds is unbounded.
     *
     * @throws IllegalArgumentException if the timeout is null or negative
     */
    public static Deadline after(Duration timeout) {
        if (timeout == null) {
            throw new IllegalArgumentException("timeout is null");
        }
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout is negative: " + timeout);
        }
        if (timeout.isZero()) {
            return new Deadline(Kind.SINGLE_ATTEMPT, System.nanoTime());
        }
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException e) {
            return UNBOUNDED;
        }
        return new Deadline(Kind.AT, System.nanoTime() + nanos);
    }

    public boolean isUnbounded() {
        return kind == Kind.UNBOUNDED;
    }

    /** A zero timeout: one attempt, and no waiting, not even through a connection blip. */
    public boolean isSingleAttempt() {
        return kind == Kind.SINGLE_ATTEMPT;
    }

    /** Whether a request with this deadline must stop waiting now. */
    public boolean hasExpired() {
        return kind == Kind.SINGLE_ATTEMPT || kind == Kind.AT && at - System.nanoTime() <= 0;
    }

    /** Nanoseconds left, at least 0; {@link Long#MAX_VALUE} when unbounded. */
    public long remainingNanos() {
        return switch (kind) {
            case UNBOUNDED -> Long.MAX_VALUE;
            case SINGLE_ATTEMPT -> 0;
            case AT -> Math.max(0, at - System.nanoTime());
        };
    }

    /** Time left as a timeout, for a call that takes one: {@code ZERO} when it has expired. */
    public Duration remaining() {
        return Duration.ofNanos(remainingNanos());
    }

    /** Whether a timer should end the wait: neither unbounded nor a single attempt. */
    public boolean needsTimer() {
        return kind == Kind.AT;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case UNBOUNDED -> "Deadline[unbounded]";
            case SINGLE_ATTEMPT -> "Deadline[one attempt]";
            case AT -> "Deadline[" + Duration.ofNanos(at - System.nanoTime()) + " left]";
        };
    }
}
