package io.zklock.core;

import java.time.Duration;

/**
 * The margin {@link Lease#validFor()} keeps, and where it is set. A lease's validity is the
 * time left before the server may expire its session, as the client computes it from the send
 * time of the last request the server answered plus the negotiated session timeout, less:
 * <ul>
 *   <li><b>a rate part</b>, {@link #rate()} of the session timeout (default
 *       {@value #DEFAULT_RATE}): the client measures the timeout on its clock, the server on
 *       its own, and the two may run at different rates. Quartz clocks drift by up to about
 *       0.01 %, and NTP slews a clock by at most 0.05 %; one per cent is twenty times that, and
 *       also covers a virtual machine whose clock is corrected in steps;</li>
 *   <li><b>a fixed part</b>, {@link #fixed()} (default {@value #DEFAULT_FIXED_MS} ms): what an
 *       ensemble adds. A request answered by a follower reaches the leader, whose clock decides
 *       expiry, only with the follower's answer to the leader's next ping, sent every
 *       {@code tickTime / 2} (one second with ZooKeeper's default {@code tickTime} of 2 s), so
 *       the leader may count from up to that much earlier. A follower cut off from its leader
 *       keeps answering its clients for up to {@code syncLimit * tickTime} before it drops them;
 *       a holder that must be safe against that too sets the fixed part to
 *       {@code tickTime * (syncLimit + 1/2)}, or fences. A standalone server needs none.</li>
 * </ul>
 * A lock may be built with its own margin, {@link LockOptions#withValidityMargin(Duration, double)}
 * (or {@link LockOptions#withValidityMargin(LeaseValidity)} with a value of {@link #of}): its
 * leases keep that one. A lock built without keeps its client's, read once per Curator client,
 * when its first lock is made, from the system properties {@value #FIXED_PROPERTY}
 * (milliseconds) and {@value #RATE_PROPERTY} (a fraction), or the defaults above: the system
 * properties are the process-wide default, an option overrides them for one lock.
 * The margin does not cover a pause of the holder's process between its check and its action:
 * that is the holder's to bound, or a lock-delay's (see {@link LockDelay}). The client's clock
 * is the monotonic clock, unless it was given another ({@link ValidityClock}).
 */
public final class LeaseValidity {
    /** The system property of the fixed part, in milliseconds. */
    public static final String FIXED_PROPERTY = "zklock.validity.margin.ms";
    /** The system property of the rate part, a fraction of the session timeout. */
    public static final String RATE_PROPERTY = "zklock.validity.rate";
    /** The default fixed part, in milliseconds: a follower's relay to its leader at the default tickTime. */
    public static final long DEFAULT_FIXED_MS = 1_000;
    /** The default rate part: one per cent of the session timeout. */
    public static final double DEFAULT_RATE = 0.01;

    private final Duration fixed;
    private final double rate;

    private LeaseValidity(Duration fixed, double rate) {
        this.fixed = fixed;
        this.rate = rate;
    }

    /**
     * A margin of {@code fixed} plus {@code rate} of the session timeout.
     *
     * @param fixed the fixed part, zero or more
     * @param rate the rate part, a fraction from 0 (inclusive) to 1 (exclusive)
     * @return the margin
     * @throws IllegalArgumentException naming the bad argument
     */
    public static LeaseValidity of(Duration fixed, double rate) {
        if (fixed == null || fixed.isNegative()) {
            throw new IllegalArgumentException("the fixed part must be zero or more, was " + fixed);
        }
        if (!(rate >= 0 && rate < 1)) {
            throw new IllegalArgumentException("the rate must be a fraction from 0 (inclusive) to 1 (exclusive), was " + rate);
        }
        return new LeaseValidity(fixed, rate);
    }

    /** {@return the default margin, {@value #DEFAULT_FIXED_MS} ms plus {@value #DEFAULT_RATE} of the timeout, whatever the system properties say} */
    public static LeaseValidity defaults() {
        return new LeaseValidity(Duration.ofMillis(DEFAULT_FIXED_MS), DEFAULT_RATE);
    }

    /**
     * The margin in force for clients made from now on: the system properties, or the defaults.
     *
     * @return the margin
     * @throws IllegalArgumentException naming the property, if one is set to a bad value
     */
    public static LeaseValidity fromSystemProperties() {
        return new LeaseValidity(Duration.ofMillis(read(FIXED_PROPERTY, DEFAULT_FIXED_MS)), read(RATE_PROPERTY, DEFAULT_RATE));
    }

    private static long read(String property, long otherwise) {
        String value = System.getProperty(property);
        try {
            long v = value == null ? otherwise : Long.parseLong(value.trim());
            if (v < 0) {
                throw new NumberFormatException("negative");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be a whole number of milliseconds, zero or more, was " + value);
        }
    }

    private static double read(String property, double otherwise) {
        String value = System.getProperty(property);
        try {
            double v = value == null ? otherwise : Double.parseDouble(value.trim());
            if (!(v >= 0 && v < 1)) {
                throw new NumberFormatException("out of range");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be a fraction from 0 (inclusive) to 1 (exclusive), was " + value);
        }
    }

    /** {@return the fixed part of the margin} */
    public Duration fixed() {
        return fixed;
    }

    /** {@return the rate part of the margin, a fraction of the session timeout} */
    public double rate() {
        return rate;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LeaseValidity other && fixed.equals(other.fixed) && Double.compare(rate, other.rate) == 0;
    }

    @Override
    public int hashCode() {
        return 31 * fixed.hashCode() + Double.hashCode(rate);
    }

    @Override
    public String toString() {
        return "LeaseValidity[fixed " + fixed.toMillis() + " ms, rate " + rate + "]";
    }
}
