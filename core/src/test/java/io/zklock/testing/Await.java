package io.zklock.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits on observable state instead of sleeping a guessed time. */
public final class Await {
    /** Scales every test wait, for slow machines: {@code -Dzklock.test.timeFactor=2}. */
    public static final double FACTOR = Double.parseDouble(System.getProperty("zklock.test.timeFactor", "1"));

    private Await() {
    }

    /** {@code base} scaled by {@link #FACTOR}. */
    public static Duration scaled(Duration base) {
        return Duration.ofNanos((long) (base.toNanos() * FACTOR));
    }

    /** Polls until {@code condition} holds, failing with {@code what} after {@code limit} (scaled). */
    public static void until(String what, Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + scaled(limit).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + scaled(limit) + " waiting until " + what);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }

    /** Polls until {@code value} equals {@code expected}, reporting the last value seen on failure. */
    public static <T> void equal(String what, T expected, Duration limit, Supplier<T> value) {
        Object[] last = new Object[1];
        try {
            until(what + " is " + expected, limit, () -> {
                last[0] = value.get();
                return expected.equals(last[0]);
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + " (last value: " + last[0] + ")", e);
        }
    }
}
