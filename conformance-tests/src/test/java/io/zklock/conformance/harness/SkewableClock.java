package io.zklock.conformance.harness;

import java.util.function.LongSupplier;

/**
 * A client's clock for the {@code CLOCK_SKEW} fault, given to the client with
 * {@code ValidityClock.use} before its first lock: this JVM's monotonic clock until it is told
 * to run at another rate, from then on that rate; it never jumps and never goes back.
 */
final class SkewableClock implements LongSupplier {
    private long baseReal = System.nanoTime();   // guarded by this
    private long baseClock = baseReal;           // guarded by this: the clock's reading at baseReal
    private double rate = 1;                     // guarded by this

    @Override
    public synchronized long getAsLong() {
        return baseClock + (long) ((System.nanoTime() - baseReal) * rate);
    }

    /** Runs at {@code newRate} times the monotonic clock from now on. */
    synchronized void runAt(double newRate) {
        long now = System.nanoTime();
        baseClock += (long) ((now - baseReal) * rate);
        baseReal = now;
        rate = newRate;
    }

    synchronized double rate() {
        return rate;
    }
}
