package io.zklock.core;

import java.util.Objects;

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
 * </table>
 *
 * <p>The options are checked together as they are set: caching with
 * {@link LockCompatibility#CURATOR} is refused (Curator's clients never ask a cached node
 * back), whichever of the two is set second. A lock-delay in {@link LockCompatibility#CURATOR}
 * is accepted, but Curator's own clients do not mark their releases (see {@link LockDelay}):
 * beside them, a zklock waiter waits the delay out after each of their releases too.
 */
public final class LockOptions {
    private static final LockOptions DEFAULTS = new LockOptions(LeaseCaching.off(), LockCompatibility.DEFAULT, LockDelay.off());

    private final LeaseCaching caching;
    private final LockCompatibility compatibility;
    private final LockDelay lockDelay;

    private LockOptions(LeaseCaching caching, LockCompatibility compatibility, LockDelay lockDelay) {
        if (caching.isOn() && compatibility == LockCompatibility.CURATOR) {
            throw new IllegalArgumentException("caching " + caching + " with compatibility CURATOR"
                    + ": Curator's clients never ask a cached node back; use LeaseCaching.off() in this mode");
        }
        this.caching = caching;
        this.compatibility = compatibility;
        this.lockDelay = lockDelay;
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
        return new LockOptions(caching, compatibility, lockDelay);
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
        return new LockOptions(caching, compatibility, lockDelay);
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
        return new LockOptions(caching, compatibility, lockDelay);
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
                && lockDelay.equals(other.lockDelay);
    }

    @Override
    public int hashCode() {
        return Objects.hash(caching, compatibility, lockDelay);
    }

    @Override
    public String toString() {
        return "LockOptions[" + caching + ", " + compatibility + ", " + lockDelay + "]";
    }
}
