package io.zklock.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Whether a lock makes its next holder wait after a holder's session ended, and for how long
 * (Chubby's lock-delay). Off by default.
 *
 * <p>A holder that dies, or pauses past its session timeout, may still have writes in flight
 * to a resource that cannot check a {@linkplain Lease#fencingToken() fencing token}. With a
 * lock-delay, a request granted while a node of the lock has gone <em>without</em> a clean
 * release (its session expired, its client deleted it after losing the session, or an operator
 * deleted it with {@code zklock revoke --force}) becomes {@link LeaseState#HELD} only once the
 * delay has passed since it first saw the lock's directory in that state; until then its
 * request waits (and {@code zklock status} shows its node as waiting out the delay). This holds
 * for a waiter that was queued behind the ended holder and for a client that comes only after
 * the holder's node is gone. A request granted after clean releases ({@link Lease#close()}) and
 * withdrawals (a waiter's timeout, interrupt or cancel) gets the lock at once.
 *
 * <p><b>How the two are told apart, and what it costs.</b> A lock with a lock-delay deletes its
 * nodes, when it releases or withdraws, with one transaction that deletes the node and writes a
 * marker into the lock's directory (one request, as the plain delete; one more operation in
 * it). ZooKeeper counts a directory's child changes in its {@code cversion} and its writes in its
 * {@code version}; every listing returns both, so a waiter knows, at no extra request, how many
 * deletions went without a marker. The first holder granted after waiting out the delay writes
 * them off (one transaction, only in that failure case), so the clients after it do not wait
 * again. What this costs without a failure: nothing on a release or a hand-off; an uncontended
 * re-acquire by the same session no longer skips its listing (sequence-gap inference writes
 * the directory, so it is off with a lock-delay): one request more there.
 *
 * <p><b>Late, never early</b>, with these limits:
 * <ul>
 *   <li>Every client of a lock path must use the same setting. The waiter decides the delay, and
 *       a client without it writes the directory on an inferring create: its writes can hide a
 *       session's end from the clients that have it.</li>
 *   <li>An empty lock directory is a container: ZooKeeper may delete it at its next check
 *       (every 60 s by default) and a new one starts its counts afresh. A client that comes
 *       after that is not delayed.</li>
 *   <li>When the write-off cannot apply (the directory was written since it was counted), the
 *       next grant waits the delay out again. A delete the client could not mark (its
 *       transaction met connection trouble) counts as unmarked.</li>
 *   <li>Turning the delay on for a lock path with history: its earlier releases were not marked,
 *       so the first grants wait out the delay (each writes off up to a thousand of them).</li>
 * </ul>
 *
 * <p>What a lock-delay adds to {@link Lease#checkValidFor(Duration)}: a holder that checks before
 * each action and acts within what it checked stops before its session may expire; the delay
 * covers what it already sent (a write in flight, a request queued in a resource) for as long
 * as the delay, counted on the next holder's clock.
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
