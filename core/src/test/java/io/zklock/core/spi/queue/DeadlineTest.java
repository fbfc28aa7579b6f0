package io.zklock.core.spi.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.junit.jupiter.api.Test;

class DeadlineTest {

    /** A null timeout is an IllegalArgumentException that says so. */
    @Test
    void nullTimeoutIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Deadline.after(null));

        assertTrue(e.getMessage().contains("null"), e.getMessage());
    }

    /** A negative timeout is an IllegalArgumentException naming it. */
    @Test
    void negativeTimeoutIsRejected() {
        for (Duration negative : List.of(Duration.ofNanos(-1), Duration.ofSeconds(-5), Duration.ofSeconds(Long.MIN_VALUE))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Deadline.after(negative));

            assertTrue(e.getMessage().contains(negative.toString()), e.getMessage());
        }
    }

    /** Duration.ZERO is one attempt: expired from the start, no time left, no timer. */
    @Test
    void zeroIsOneAttempt() {
        Deadline d = Deadline.after(Duration.ZERO);

        assertTrue(d.isSingleAttempt());
        assertTrue(d.hasExpired());
        assertEquals(0, d.remainingNanos());
        assertFalse(d.needsTimer());
    }

    /** A representable timeout leaves at most that much time, and expires once it has passed. */
    @Test
    void boundedTimeoutCountsDown() throws InterruptedException {
        Deadline d = Deadline.after(Duration.ofMillis(30));

        assertFalse(d.hasExpired());
        assertTrue(d.remainingNanos() <= 30_000_000L && d.remainingNanos() > 0, d.toString());
        assertTrue(d.needsTimer());
        Thread.sleep(40);
        assertTrue(d.hasExpired());
        assertEquals(Duration.ZERO, d.remaining());
    }

    /** The largest representable timeout, Long.MAX_VALUE nanoseconds, is bounded and does not overflow into the past. */
    @Test
    void largestRepresentableTimeoutIsBounded() {
        Deadline d = Deadline.after(Duration.ofNanos(Long.MAX_VALUE));

        assertFalse(d.isUnbounded());
        assertFalse(d.hasExpired());
        assertTrue(d.remainingNanos() > Long.MAX_VALUE / 2);
    }

    /** A timeout too large for long nanoseconds is unbounded: it never expires. */
    @Test
    void hugeTimeoutIsUnbounded() {
        for (Duration huge : List.of(Duration.ofNanos(Long.MAX_VALUE).plusNanos(1), Duration.ofDays(106_752),
                Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), ChronoUnit.FOREVER.getDuration())) {
            Deadline d = Deadline.after(huge);

            assertTrue(d.isUnbounded(), huge.toString());
            assertFalse(d.hasExpired());
            assertEquals(Long.MAX_VALUE, d.remainingNanos());
        }
    }
}
