package io.zklock.core.internal.zk;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import io.zklock.core.LeaseValidity;

/*
 * Overview.
 *
 * How long a client's session is certainly alive on the server, read on the client's monotonic
 * clock. ZooKeeper's server (3.9: SessionTrackerImpl.touchSession, ExpiryQueue.update) moves a
 * session's expiry, on every request it receives from that session, pings included, to
 * roundToNextTick(now + timeout), where now is its own System.nanoTime in milliseconds and
 * timeout the negotiated session timeout; it expires a session only when its expiry has passed
 * (ExpiryQueue.poll), and a new leader starts every session's clock again at its start
 * (SessionTrackerImpl's constructor tracks every session of the snapshot with a fresh expiry).
 * So a request of the session that the server answered was received at or after the moment we
 * sent it, and the session lives at least until
 *
 *     deadline = send time + timeout
 *
 * on the server's clock. Client and server clocks may run at different rates, so the clock
 * keeps a margin: a part proportional to the timeout (the clock-rate difference tolerated) and
 * a fixed part (see LeaseValidity for the defaults and why). What it promises:
 *
 *     validFor = send time of the last answered request of the session + timeout
 *                - rate * timeout - fixed margin - now         (never below zero)
 *
 * and zero when the session is not the one asked about. The send time is taken before the
 * request is issued, so a retried or queued request only makes the figure smaller.
 *
 * Requests: ZooKeeper's client sends its own pings, but does not tell anybody of their replies
 * (no public hook), so the clock counts the answers to the requests zklock sends (CuratorPort
 * notes each one), and, while a reader asked for validity in the last session timeout, sends a
 * cheap request itself (an exists of "/", no watch) whenever nothing was answered for a
 * quarter of the timeout. A client nobody asks costs nothing.
 *
 * A caveat found in the server's code: on a follower, the touch of a request reaches the
 * leader (whose expiry counts) only with the follower's answer to the leader's next ping (every
 * tickTime / 2), and a follower cut off from the leader keeps answering for up to
 * syncLimit * tickTime before it drops its clients. Against an ensemble, the fixed margin must
 * cover that lag (see LeaseValidity).
 */
/** The monotonic clock of one client's session: how long the server certainly keeps it; see above. */
public final class SessionClock {
    private final Object lock = new Object();
    private long session;                      // guarded by lock: the session the answers are of
    private long lastSendNanos;                // guarded by lock: the send time of its last answered request
    private boolean anyAnswer;                 // guarded by lock
    private volatile IntSupplier timeoutMs = () -> 0;
    private volatile long fixedMarginNanos = TimeUnit.MILLISECONDS.toNanos(LeaseValidity.DEFAULT_FIXED_MS);
    private volatile double rate = LeaseValidity.DEFAULT_RATE;
    private volatile long wantedUntilNanos;    // a reader asked; keep the figure fresh until then
    private volatile Runnable probe;           // sends one cheap request whose answer is noted here
    private ScheduledFuture<?> refresher;      // guarded by lock
    private volatile LongSupplier nanos;       // the clock send times and the figure are read on: the monotonic clock by default
    private volatile boolean stamped;          // a send time was read: the source is fixed from then on

    /** A clock read on the monotonic clock, as the send times are. */
    public SessionClock() {
        this(System::nanoTime);
    }

    /**
     * A clock that reads "now" from {@code nanos}, and is told send times read from the same
     * (a clock running at another rate than the server's, in this package's tests).
     */
    SessionClock(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /**
     * Reads send times and "now" from {@code source} from now on (see io.zklock.core.ValidityClock).
     *
     * @throws IllegalStateException once a send time was read from the source in force: the
     *         two clocks' readings cannot be compared
     */
    public void source(LongSupplier source) {
        synchronized (lock) {
            if (stamped && source != nanos) {
                throw new IllegalStateException("the client's locks already sent requests stamped on its present clock;"
                        + " set its clock before its first lock is used");
            }
            nanos = source;
        }
    }

    /** The send time of a request, before it is issued: on this clock's source. */
    public long now() {
        if (!stamped) {
            stamped = true;
        }
        return nanos.getAsLong();
    }

    /** The negotiated session timeout, read when needed (it is known once connected). */
    void timeoutFrom(IntSupplier negotiated) {
        this.timeoutMs = negotiated;
    }

    /** How the clock sends a cheap request of its own. */
    void probeWith(Runnable probe) {
        this.probe = probe;
    }

    /**
     * Sets the margin.
     *
     * @param fixed taken off every figure
     * @param rate the clock-rate difference tolerated, as a fraction of the timeout
     */
    public void margin(Duration fixed, double rate) {
        this.fixedMarginNanos = fixed.toNanos();
        this.rate = rate;
    }

    /** A request of {@code sessionId} sent at {@code sendNanos} was answered by the server. */
    public void answered(long sessionId, long sendNanos) {
        if (sessionId == 0) {
            return;
        }
        synchronized (lock) {
            if (sessionId != session) {
                session = sessionId;
                lastSendNanos = sendNanos;
                anyAnswer = true;
            } else if (!anyAnswer || sendNanos - lastSendNanos > 0) {
                lastSendNanos = sendNanos;
                anyAnswer = true;
            }
        }
    }

    /**
     * How long, from now, the server certainly keeps session {@code sessionId}, less the margin;
     * zero if unknown or if the session is not the one the last answers were of.
     *
     * @param sessionId the session of the lease that asks
     * @return nanoseconds, never negative
     */
    public long validForNanos(long sessionId) {
        return validForNanos(sessionId, fixedMarginNanos, rate);
    }

    /**
     * As {@link #validForNanos(long)}, less the margin given instead of the clock's (a lock
     * built with its own margin).
     *
     * @param sessionId the session of the lease that asks
     * @param fixedMarginNanos the fixed part, taken off every figure
     * @param rate the clock-rate difference tolerated, as a fraction of the timeout
     * @return nanoseconds, never negative
     */
    public long validForNanos(long sessionId, long fixedMarginNanos, double rate) {
        want();
        long timeout = TimeUnit.MILLISECONDS.toNanos(timeoutMs.getAsInt());
        long now = nanos.getAsLong();
        synchronized (lock) {
            if (sessionId == 0 || sessionId != session || !anyAnswer || timeout <= 0) {
                return 0;
            }
            long deadline = lastSendNanos + timeout - (long) (rate * timeout) - fixedMarginNanos;
            return Math.max(0, deadline - now);
        }
    }

    /** The send time of the last answered request of {@code sessionId}, if any answer is known; else -1 (for tests and probes). */
    public long lastAnsweredSendNanos(long sessionId) {
        synchronized (lock) {
            return anyAnswer && session == sessionId ? lastSendNanos : -1;
        }
    }

    /** A reader asked: keep the figure fresh for one session timeout from now. */
    private void want() {
        long timeout = TimeUnit.MILLISECONDS.toNanos(timeoutMs.getAsInt());
        if (timeout <= 0 || probe == null) {
            return;
        }
        wantedUntilNanos = nanos.getAsLong() + timeout;
        synchronized (lock) {
            if (refresher == null) {
                long period = Math.max(1, timeout / 4);
                refresher = Threads.TIMER.scheduleWithFixedDelay(this::refresh, period / 2, period, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Sends a probe when nothing was answered for a quarter of the timeout; stops when nobody asked for a timeout. */
    private void refresh() {
        long timeout = TimeUnit.MILLISECONDS.toNanos(timeoutMs.getAsInt());
        long now = nanos.getAsLong();
        boolean stale;
        synchronized (lock) {
            if (now - wantedUntilNanos > 0 || timeout <= 0) {
                refresher.cancel(false);
                refresher = null;
                return;
            }
            stale = !anyAnswer || now - lastSendNanos > timeout / 4;
        }
        Runnable p = probe;
        if (stale && p != null) {
            p.run();
        }
    }

    /** Stops sending probes: the client is closed. */
    void stop() {
        synchronized (lock) {
            if (refresher != null) {
                refresher.cancel(false);
                refresher = null;
            }
            anyAnswer = false;
        }
        probe = null;
    }
}
