package io.zklock.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LockEngineStaticsTest {

    private static String name(int id, String kind, long sequence) {
        return LockNodeTest.curatorName(new UUID(0xcafe, id).toString(), kind, sequence);
    }

    /** parseSorted drops foreign names and returns the lock nodes in sequence order. */
    @Test
    void parseSortedDropsForeignNamesAndSorts() {
        List<String> children = List.of(
                name(1, "write", 12),
                "keeper",
                name(2, "read", 3),
                "lock-0000000001",
                name(3, "lock", 1_000_000_000),
                "",
                "_c_" + new UUID(0xcafe, 9) + "-LOCK-0000000000",
                name(4, "read", 0));

        List<String> sorted = LockEngine.parseSorted(children).stream().map(LockNode::name).toList();

        assertEquals(List.of(name(4, "read", 0), name(2, "read", 3), name(1, "write", 12), name(3, "lock", 1_000_000_000)),
                sorted);
    }

    /** parseSorted of no children, or of foreign children only, is empty. */
    @Test
    void parseSortedOfNothingIsEmpty() {
        assertTrue(LockEngine.parseSorted(List.of()).isEmpty());
        assertTrue(LockEngine.parseSorted(List.of("a", "b", "lock-0000000001")).isEmpty());
    }

    /** timeoutNanos rejects a null timeout with an IllegalArgumentException. */
    @Test
    void timeoutNanosRejectsNull() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockEngine.timeoutNanos(null));

        assertTrue(e.getMessage().contains("null"), e.getMessage());
    }

    /** timeoutNanos rejects a negative timeout with an IllegalArgumentException naming it. */
    @Test
    void timeoutNanosRejectsNegative() {
        for (Duration negative : List.of(Duration.ofNanos(-1), Duration.ofSeconds(-5), Duration.ofSeconds(Long.MIN_VALUE))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> LockEngine.timeoutNanos(negative));

            assertTrue(e.getMessage().contains(negative.toString()), e.getMessage());
        }
    }

    /** Duration.ZERO is 0 nanoseconds: one attempt. */
    @Test
    void timeoutNanosOfZeroIsZero() {
        assertEquals(0L, LockEngine.timeoutNanos(Duration.ZERO));
    }

    /** Representable timeouts convert exactly, up to Long.MAX_VALUE nanoseconds. */
    @Test
    void timeoutNanosConvertsExactly() {
        assertEquals(1L, LockEngine.timeoutNanos(Duration.ofNanos(1)));
        assertEquals(1_500_000_000L, LockEngine.timeoutNanos(Duration.ofMillis(1500)));
        assertEquals(106_751L * 86_400 * 1_000_000_000, LockEngine.timeoutNanos(Duration.ofDays(106_751)));
        assertEquals(Long.MAX_VALUE, LockEngine.timeoutNanos(Duration.ofNanos(Long.MAX_VALUE)));
    }

    /** A timeout too large for long nanoseconds is -1: unbounded. */
    @Test
    void timeoutNanosOfHugeDurationIsUnbounded() {
        for (Duration huge : List.of(Duration.ofNanos(Long.MAX_VALUE).plusNanos(1), Duration.ofDays(106_752),
                Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), ChronoUnit.FOREVER.getDuration())) {
            assertEquals(-1L, LockEngine.timeoutNanos(huge), huge.toString());
        }
    }
}
