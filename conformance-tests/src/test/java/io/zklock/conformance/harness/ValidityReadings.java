package io.zklock.conformance.harness;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongPredicate;
import java.util.function.LongUnaryOperator;

import io.zklock.conformance.harness.FaultJudge.Held;

/*
 * Overview.
 *
 * Judges a holder's readings of Lease.validFor() against the server's own expiry of the lease's
 * session (its session tracker, read in this JVM: single server only). A reading v, taken on the
 * holder's clock running at rate times the monotonic clock (1 unless a CLOCK_SKEW hit it), says
 * the holder may act for v on its own clock, that is v / rate truly. The judge adds back the
 * fixed part of the margin, so that the rate part alone must cover the clock's skew (the fixed
 * part is for an ensemble's relay, which a single server does not have):
 *
 *     now + (v + fixed) / rate  <=  the server's expiry of the session      (whenever v > 0)
 *
 * The expiry is read before and after the reading (a touch in between only moves it later; a
 * session gone in between was alive at the first read). A reading of a session the schedule
 * expired by force is not judged: the server's promise is about its timeout, not a forced close.
 *
 * Evidence that a skew changes the readings: two readings of one lease on one clock rate, at
 * least MIN_GAP apart, with no answer of the session in between, fall by exactly the clock's
 * elapsed time, rate times the true one; an answer in between only raises the later reading.
 * So the pairs of a skewed holder fall at its clock's rate (within TOLERANCE) or slower, and
 * those at its clock's rate are counted apart from those at the monotonic clock's rate.
 */
final class ValidityReadings {
    private static final long MIN_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final double TOLERANCE = 0.002;

    /** The last reading of a lease kept for a pair. */
    private record Reading(long validNanos, long atNanos, double rate) {
    }

    private final LongUnaryOperator serverExpiryMillis;   // session -> ms on nanoTime / 1e6, -1 if unknown
    private final LongPredicate expiredByForce;
    private final long fixedNanos;
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final Map<Held, Reading> anchors = new ConcurrentHashMap<>();
    private final AtomicInteger judged = new AtomicInteger();
    private final AtomicInteger skewed = new AtomicInteger();
    private final AtomicInteger atClockRate = new AtomicInteger();
    private final AtomicInteger atMonotonicRate = new AtomicInteger();

    ValidityReadings(LongUnaryOperator serverExpiryMillis, LongPredicate expiredByForce, Duration fixed) {
        this.serverExpiryMillis = serverExpiryMillis;
        this.expiredByForce = expiredByForce;
        this.fixedNanos = fixed.toNanos();
    }

    /** {@code h}'s holder reads its lease's validity now, on a clock running at {@code rate}; the reading is judged. */
    void read(Held h, double rate) {
        long before = serverExpiryMillis.applyAsLong(h.session);
        long valid = h.lease.validFor().toNanos();
        long now = System.nanoTime();
        long after = serverExpiryMillis.applyAsLong(h.session);
        if (valid == 0 || expiredByForce.test(h.session)) {
            anchors.remove(h);
            return;
        }
        judged.incrementAndGet();
        if (rate != 1) {
            skewed.incrementAndGet();
        }
        long expiry = after > 0 ? after : before;
        long actsUntilMs = (long) Math.ceil((now + (valid + fixedNanos) / rate) / 1e6);
        if (expiry < 0) {
            violations.add(String.format("validity: c%d read validFor %d ms of session 0x%x, which the server no longer knows",
                    h.client, TimeUnit.NANOSECONDS.toMillis(valid), h.session));
        } else if (actsUntilMs > expiry) {
            violations.add(String.format("validity: c%d read validFor %d ms on a clock at %.4f; with the fixed margin added "
                    + "back it acts until %d ms past the server's expiry of session 0x%x", h.client,
                    TimeUnit.NANOSECONDS.toMillis(valid), rate, actsUntilMs - expiry, h.session));
        }
        pair(h, new Reading(valid, now, rate));
    }

    private void pair(Held h, Reading r) {
        Reading prev = anchors.get(h);
        if (prev != null && prev.rate == r.rate && r.atNanos - prev.atNanos < MIN_GAP_NANOS) {
            return;                                  // too close to the anchor: wait for a later reading
        }
        anchors.put(h, r);
        if (prev == null || prev.rate != r.rate || r.rate == 1) {
            return;
        }
        double fell = (double) (prev.validNanos - r.validNanos) / (r.atNanos - prev.atNanos);
        if (Math.abs(fell - r.rate) <= TOLERANCE) {
            atClockRate.incrementAndGet();
        } else if (Math.abs(fell - 1) <= TOLERANCE) {
            atMonotonicRate.incrementAndGet();
        }
    }

    /** The lease is closed: its readings end. */
    void closed(Held h) {
        anchors.remove(h);
    }

    List<String> violations() {
        return List.copyOf(violations);
    }

    /** {@return readings judged (above zero, not of a session expired by force)} */
    int judged() {
        return judged.get();
    }

    /** {@return judged readings taken on a skewed clock} */
    int skewed() {
        return skewed.get();
    }

    /** {@return pairs of a skewed holder's readings that fell at its clock's rate} */
    int pairsAtClockRate() {
        return atClockRate.get();
    }

    /** {@return pairs of a skewed holder's readings that fell at the monotonic clock's rate} */
    int pairsAtMonotonicRate() {
        return atMonotonicRate.get();
    }
}
