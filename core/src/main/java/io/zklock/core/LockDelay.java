package io.zklock.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Whether a lock makes its next holder wait after a holder's session ended, and for how long
 * (Chubby's lock-delay). Off by default.
 *
 * <p>A holder that dies, or pauses past its session timeout, may still have writes in flight
 * to a resource that cannot check a {@linkplain Lease#fencingToken() fencing token}. With a
 * lock-delay, a waiter granted because the node ahead of it went <em>without</em> a clean
 * release (its session expired, its client deleted it after losing the session, or an operator
 * deleted it with {@code zklock revoke --force}) becomes {@link LeaseState#HELD} only once the
 * delay has passed since it saw the node go; until then its request waits (and
 * {@code zklock status} shows its node as waiting out the delay). A waiter granted by a clean
 * release ({@link Lease#close()}) gets the lock at once.
 *
 * <p><b>How the two are told apart, and what it costs.</b> A lock with a lock-delay releases
 * with one transaction that deletes the node and writes a marker into the lock's directory
 * (one request, as the plain delete; one more operation in it). The waiter that watched the
 * node learns of its deletion with the transaction's zxid, and its next listing carries the
 * directory's {@code Stat}: the deletion was a clean release when the directory's data was
 * written by that very transaction. Nothing is read that was not read before. When it cannot
 * tell (the node went before its watch was set, several nodes ahead went at once, another
 * release wrote the directory since), it waits out the delay: a lock-delay may come late, never
 * early. A client that queues only after the ended holder's node is gone is not delayed (it
 * saw no node go); every waiter queued at that moment is.
 *
 * <p>Every client of a lock path should use the same setting: the waiter decides the delay, the
 * releaser's marker lets it skip it.
 */
public final class LockDelay {
    private static final LockDelay OFF = new LockDelay(Duration.ZERO);
    /** The longest delay accepted. */
    public static final Duration MAX = Duration.ofMinutes(10);

    private final Duration delay;

    private LockDelay(Duration delay) {
        this.delay = delay;
    }

    /** {@return no lock-delay: a waiter is granted as soon as the node ahead is gone, however it went} */
    public static LockDelay off() {
        return OFF;
    }

    /**
     * A lock-delay of {@code delay} after a holder's session ended.
     *
     * @param delay how long the next holder waits; positive, at most {@link #MAX}
     * @return the setting
     * @throws IllegalArgumentException if {@code delay} is null, not positive or above {@link #MAX}
     */
    public static LockDelay of(Duration delay) {
        if (delay == null || delay.isNegative() || delay.isZero() || delay.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("lock-delay must be positive and at most " + MAX + ", was " + delay);
        }
        return new LockDelay(delay);
    }

    /** {@return whether a delay is on} */
    public boolean isOn() {
        return !delay.isZero();
    }

    /** {@return the delay; zero when off} */
    public Duration delay() {
        return delay;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockDelay other && delay.equals(other.delay);
    }

    @Override
    public int hashCode() {
        return Objects.hash(delay);
    }

    @Override
    public String toString() {
        return isOn() ? "LockDelay[" + delay.toMillis() + " ms]" : "LockDelay[off]";
    }
}
