package io.zklock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** Durations read and printed the way people write them. */
class DurationsTest {

    /** Milliseconds, fractional seconds, minutes and hours are read exactly. */
    @Test
    void parsesEveryUnit() {
        assertEquals(Duration.ofMillis(120), Durations.parse("120ms"));
        assertEquals(Duration.ofMillis(1500), Durations.parse("1.5s"));
        assertEquals(Duration.ofMinutes(2), Durations.parse("2m"));
        assertEquals(Duration.ofMinutes(2), Durations.parse("2min"));
        assertEquals(Duration.ofHours(1), Durations.parse("1h"));
        assertEquals(Duration.ofSeconds(2), Durations.parse(" 2 S "));
        assertEquals(Duration.ZERO, Durations.parse("0s"));
    }

    /** A bare number, a negative, a missing amount, an unknown unit or ISO-8601 is refused with the text in the message. */
    @Test
    void refusesWhatIsNotADuration() {
        for (String bad : new String[] {"x", "10", "-1s", "s", "1.5", "3d", "PT1S", "1..5s", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(bad), bad);
            assertEquals("not a duration: '" + bad + "'", e.getMessage());
        }
    }

    /** Below a second in whole milliseconds, then seconds, minutes and hours with at most one decimal. */
    @Test
    void formatsForPeople() {
        assertEquals("120 ms", Durations.format(Duration.ofMillis(120)));
        assertEquals("0.4 ms", Durations.format(Duration.ofNanos(400_000)));
        assertEquals("0 ms", Durations.format(Duration.ZERO));
        assertEquals("1.5 s", Durations.format(Duration.ofMillis(1500)));
        assertEquals("2 s", Durations.format(Duration.ofSeconds(2)));
        assertEquals("2 min", Durations.format(Duration.ofMinutes(2)));
        assertEquals("1.5 h", Durations.format(Duration.ofMinutes(90)));
    }

    /** What is printed reads back as the same duration, once the space is removed. */
    @Test
    void printedDurationsReadBack() {
        for (long ms : new long[] {1, 120, 999, 1500, 42_000, 120_000, 5_400_000}) {
            Duration d = Duration.ofMillis(ms);
            assertEquals(d, Durations.parse(Durations.format(d).replace(" ", "")), Durations.format(d));
        }
    }
}
