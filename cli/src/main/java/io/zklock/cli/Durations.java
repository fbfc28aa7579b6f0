package io.zklock.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them: {@code 120ms}, {@code 1.5s}, {@code 2m}, {@code 1h} in, and
 * {@code 120 ms}, {@code 1.5 s}, {@code 2 min} out, never ISO-8601's {@code PT0.12S}.
 */
public final class Durations {
    private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|min|h)");

    private Durations() {
    }

    /**
     * Parses a non-negative amount with a unit ({@code ms}, {@code s}, {@code m} or {@code min},
     * {@code h}); fractions are allowed down to the millisecond.
     *
     * @throws IllegalArgumentException if the text is not of that form; a bare number is refused,
     *         since nobody can tell whether it meant milliseconds or seconds
     */
    public static Duration parse(String text) {
        Matcher m = FORM.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "'");
        }
        long unitMillis = switch (m.group(2)) {
            case "ms" -> 1L;
            case "s" -> 1_000L;
            case "m", "min" -> 60_000L;
            default -> 3_600_000L;
        };
        BigDecimal millis = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitMillis));
        if (millis.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 1_000_000L)) > 0) {
            throw new IllegalArgumentException("duration too long: '" + text + "'");
        }
        // below a millisecond nothing in the demo can tell the difference, so round, don't refuse
        return Duration.ofMillis(millis.setScale(0, RoundingMode.HALF_UP).longValueExact());
    }

    /** {@code 0.4 ms}, {@code 120 ms}, {@code 1.5 s}, {@code 59 s}, {@code 2 min}, {@code 1.5 h}. */
    public static String format(Duration d) {
        return formatNanos(d.toNanos());
    }

    /** {@link #format(Duration)} for a span measured with {@link System#nanoTime()}. */
    public static String formatNanos(long nanos) {
        double ms = nanos / 1e6;
        if (ms < 1) {
            return trim(ms, 1) + " ms";
        }
        if (ms < 1_000) {
            return Math.round(ms) + " ms";
        }
        if (ms < 60_000) {
            return trim(ms / 1_000, 1) + " s";
        }
        if (ms < 3_600_000) {
            return trim(ms / 60_000, 1) + " min";
        }
        return trim(ms / 3_600_000, 1) + " h";
    }

    /** One decimal at most, none when it is zero: {@code 2}, {@code 1.5}. */
    private static String trim(double value, int decimals) {
        BigDecimal rounded = BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).stripTrailingZeros();
        return rounded.scale() < 0 ? rounded.setScale(0).toPlainString() : rounded.toPlainString();
    }
}
