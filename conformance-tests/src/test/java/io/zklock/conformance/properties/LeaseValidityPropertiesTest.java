package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import io.zklock.conformance.harness.Recipe;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.ServerSessions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Lease#validFor()} on every recipe, checked against the server's own expiry of the
 * holder's session (its session tracker's expiry queue, in this JVM): never larger than the
 * time the server leaves the session, while held and while frozen; zero once LOST.
 */
class LeaseValidityPropertiesTest extends ServerFaults {
    private static final int SHORT_SESSION_MS = 2_000;

    /** validFor() read now is at most the time left before the server's expiry of {@code session}; returns the reading. */
    private static long checkedReading(Lease lease, long session) {
        long valid = lease.validFor().toMillis();
        long expiry = ServerSessions.expiryMillis(server, session);
        long now = System.nanoTime() / 1_000_000;
        if (expiry < 0) {
            assertEquals(0, valid, "validFor once the server forgot the session");
        } else {
            assertTrue(valid <= expiry - now, "validFor " + valid + " ms exceeds the server's " + (expiry - now) + " ms");
        }
        return valid;
    }

    /** While held, validFor() stays above zero and never exceeds what the server leaves the session. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void whileHeldValidityNeverExceedsTheServersExpiry(Recipe recipe) throws Exception {
        CuratorFramework holder = client(SHORT_SESSION_MS);
        long session = currentSession(holder);
        try (Lease lease = recipe.create(holder, path).tryAcquire(LONG).orElseThrow()) {
            long until = System.nanoTime() + Duration.ofMillis(SHORT_SESSION_MS + 500).toNanos();
            while (System.nanoTime() - until < 0) {
                assertTrue(checkedReading(lease, session) > 0, "a connected, read lease stays certain");
                Thread.sleep(25);
            }
        }
    }

    /** Frozen, the holder's validFor() counts down within the server's expiry and is zero once LOST. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void whileFrozenValidityCountsDownWithinTheServersExpiry(Recipe recipe) throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        proxies.add(proxy);
        CuratorFramework holder = proxied(proxy, SHORT_SESSION_MS);
        long session = currentSession(holder);
        Lease lease = recipe.create(holder, path).tryAcquire(LONG).orElseThrow();
        checkedReading(lease, session);
        proxy.freeze();
        Await.until("the frozen lease is certain no more", LONG, () -> checkedReading(lease, session) == 0);
        Await.until("the lease is LOST", LONG, () -> lease.state() == LeaseState.LOST);
        assertEquals(Duration.ZERO, lease.validFor());
        proxy.heal();
    }
}
