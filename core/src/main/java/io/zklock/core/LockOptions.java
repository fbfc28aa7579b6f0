package io.zklock.core;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a lock is built, beyond its client and path: one immutable value that every recipe's
 * constructor takes, so that a new option adds a method here instead of a constructor to each
 * recipe. Start from {@link #defaults()} and change what you need; each {@code with} method
 * returns a new value.
 *
 * <pre>{@code
 * LockOptions options = LockOptions.defaults()
 *         .withLockDelay(LockDelay.of(Duration.ofSeconds(30)));
 * ZkMutex mutex = new ZkMutex(client, "/locks/report", options);
 * }</pre>
 *
 * <table>
 *   <caption>The options and their defaults</caption>
 *   <tr><th>option</th><th>default</th><th>what it changes</th></tr>
 *   <tr><td>{@link #withCaching caching}</td><td>{@link LeaseCaching#off()}</td>
 *       <td>whether a node is kept after its last local lease closes (a read-write lock's read
 *       half only)</td></tr>
 *   <tr><td>{@link #withCompatibility compatibility}</td><td>{@link LockCompatibility#DEFAULT}</td>
 *       <td>the node layout written: zklock's, or Curator's recipe's</td></tr>
 *   <tr><td>{@link #withLockDelay lockDelay}</td><td>{@link LockDelay#off()}</td>
 *       <td>how long the next holder waits after a holder's session ended</td></tr>
 *   <tr><td>{@link #withValidityMargin(Duration, double) validityMargin}</td><td>the client's:
 *       the system properties of {@link LeaseValidity}, else 1 s plus 1 % of the session
 *       timeout</td>
 *       <td>the margin {@link Lease#validFor()} keeps below the server's expiry</td></tr>
 * </table>
 *
 * <p>The options are checked together as they are set: caching with
 * {@link LockCompatibility#CURATOR} is refused (Curator's clients never ask a cached node
 * back), whichever of the two is set second. A lock-delay in {@link LockCompatibility#CURATOR}
 * is accepted, but Curator's own clients do not mark their releases (see {@link LockDelay}):
 * beside them, a zklock waiter waits the delay out after each of their releases too.
 */
public final class LockOptions {
    private static final LockOptions DEFAULTS = new LockOptions(LeaseCaching.off(), LockCompatibility.DEFAULT, LockDelay.off(), null);

    private final LeaseCaching caching;
    private final LockCompatibility compatibility;
    private final LockDelay lockDelay;
    private final LeaseValidity validityMargin;   // null: the client's

    private LockOptions(LeaseCaching caching, LockCompatibility compatibility, LockDelay lockDelay, LeaseValidity validityMargin) {
        if (caching.isOn() && compatibility == LockCompatibility.CURATOR) {
            throw new IllegalArgumentException("caching " + caching + " with compatibility CURATOR"
                    + ": Curator's clients never ask a cached node back; use LeaseCaching.off() in this mode");
        }
        this.caching = caching;
        this.compatibility = compatibility;
        this.lockDelay = lockDelay;
        this.validityMargin = validityMargin;
    }

    /** {@return no caching, zklock's own layout, no lock-delay} */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * These options with {@code caching}.
     *
     * @param caching whether, and how long, a node is kept after its last local lease closes
     * @return the new options
     * @throws IllegalArgumentException if it is null, or on with {@link LockCompatibility#CURATOR}
     */
    public LockOptions withCaching(LeaseCaching caching) {
        if (caching == null) {
            throw new IllegalArgumentException("caching is null; use LeaseCaching.off()");
        }
        return new LockOptions(caching, compatibility, lockDelay, validityMargin);
    }

    /**
     * These options with {@code compatibility}.
     *
     * @param compatibility the node layout written
     * @return the new options
     * @throws IllegalArgumentException if it is null, or {@link LockCompatibility#CURATOR} with caching on
     */
    public LockOptions withCompatibility(LockCompatibility compatibility) {
        if (compatibility == null) {
            throw new IllegalArgumentException("compatibility is null; use LockCompatibility.DEFAULT");
        }
        return new LockOptions(caching, compatibility, lockDelay, validityMargin);
    }

    /**
     * These options with {@code lockDelay}.
     *
     * @param lockDelay the lock-delay after a holder's session ended
     * @return the new options
     * @throws IllegalArgumentException if it is null
     */
    public LockOptions withLockDelay(LockDelay lockDelay) {
        if (lockDelay == null) {
            throw new IllegalArgumentException("lock-delay is null; use LockDelay.off()");
        }
        return new LockOptions(caching, compatibility, lockDelay, validityMargin);
    }

    /**
     * These options with a margin of {@code fixed} plus {@code rate} of the session timeout
     * kept by {@link Lease#validFor()} below the time the server certainly keeps the session
     * (see {@link LeaseValidity}). Without it a lock keeps its client's margin: the system
     * properties {@value LeaseValidity#FIXED_PROPERTY} and {@value LeaseValidity#RATE_PROPERTY},
     * else the default of {@value LeaseValidity#DEFAULT_FIXED_MS} ms plus
     * {@value LeaseValidity#DEFAULT_RATE} of the timeout. Why that default: the rate part
     * covers the client's and the server's clocks running at different rates (NTP slews a
     * clock by at most 0.05 %, one per cent is twenty times that); the fixed part covers an
     * ensemble's lag, a follower relaying its clients' touches to the leader, whose clock
     * decides expiry, only every {@code tickTime / 2} (one second at the default tickTime).
     * A larger margin makes {@code validFor()} smaller by as much; a standalone server with
     * well-kept clocks may use a smaller one.
     *
     * @param fixed the fixed part, zero or more
     * @param rate the rate part, a fraction from 0 (inclusive) to 1 (exclusive)
     * @return the new options
     * @throws IllegalArgumentException naming the bad argument
     */
    public LockOptions withValidityMargin(Duration fixed, double rate) {
        return withValidityMargin(LeaseValidity.of(fixed, rate));
    }

    /**
     * These options with {@code margin} (see {@link #withValidityMargin(Duration, double)}).
     *
     * @param margin the margin, e.g. {@link LeaseValidity#of} or {@link LeaseValidity#defaults()}
     * @return the new options
     * @throws IllegalArgumentException if it is null
     */
    public LockOptions withValidityMargin(LeaseValidity margin) {
        if (margin == null) {
            throw new IllegalArgumentException("validity margin is null; use LeaseValidity.defaults()");
        }
        return new LockOptions(caching, compatibility, lockDelay, margin);
    }

    /** {@return the margin set for this lock's leases; empty: the client's (see {@link #withValidityMargin(Duration, double)})} */
    public Optional<LeaseValidity> validityMargin() {
        return Optional.ofNullable(validityMargin);
    }

    /** {@return whether, and how long, a node is kept after its last local lease closes} */
    public LeaseCaching caching() {
        return caching;
    }

    /** {@return the node layout written} */
    public LockCompatibility compatibility() {
        return compatibility;
    }

    /** {@return the lock-delay after a holder's session ended} */
    public LockDelay lockDelay() {
        return lockDelay;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOptions other && caching.equals(other.caching) && compatibility == other.compatibility
                && lockDelay.equals(other.lockDelay) && Objects.equals(validityMargin, other.validityMargin);
    }

    @Override
    public int hashCode() {
        return Objects.hash(caching, compatibility, lockDelay, validityMargin);
    }

    @Override
    public String toString() {
        return "LockOptions[" + caching + ", " + compatibility + ", " + lockDelay
                + (validityMargin == null ? "" : ", " + validityMargin) + "]";
    }
}
