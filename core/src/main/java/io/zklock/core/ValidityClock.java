package io.zklock.core;

import java.util.function.LongSupplier;

import io.zklock.core.internal.zk.SessionMonitor;
import org.apache.curator.framework.CuratorFramework;

/**
 * The clock on which a client's leases count {@link Lease#validFor()}: by default the JVM's
 * monotonic clock, {@link System#nanoTime()}. A client's locks stamp each request with this
 * clock before they send it, and a lease reads how much of the session timeout is left on the
 * same clock (see {@link LeaseValidity}).
 *
 * <p>A client may be given another source of monotonic nanoseconds, as code that reads the
 * time is given a {@link java.time.Clock}: a test of code that acts on {@code validFor()} can
 * run one client's clock fast or slow, and see that the rate part of the margin
 * ({@link LeaseValidity#rate()}) covers a clock that runs slow by up to that fraction. Set it
 * before the client's first lock is used: the client's requests must all be stamped on one
 * clock.
 *
 * <pre>{@code
 * long start = System.nanoTime();
 * ValidityClock.use(client, () -> start + (long) ((System.nanoTime() - start) * 0.995));  // 0.5 % slow
 * }</pre>
 *
 * <p>The source must be monotonic (never go back) and count nanoseconds; its origin is free.
 * It is read on the client's request path and its timer, so it must be cheap and never block.
 */
public final class ValidityClock {
    private ValidityClock() {
    }

    /**
     * Counts the validity of {@code client}'s leases on {@code nanoTime} (one per Curator client:
     * every lock on it shares it).
     *
     * @param client a Curator client whose locks have not sent a request yet
     * @param nanoTime a monotonic source of nanoseconds, e.g. {@code System::nanoTime}
     * @throws IllegalArgumentException if either is null
     * @throws IllegalStateException if the client's locks already sent requests stamped on another clock
     */
    public static void use(CuratorFramework client, LongSupplier nanoTime) {
        if (client == null || nanoTime == null) {
            throw new IllegalArgumentException("client and nanoTime must not be null, were " + client + ", " + nanoTime);
        }
        SessionMonitor.of(client).clock().source(nanoTime);
    }
}
