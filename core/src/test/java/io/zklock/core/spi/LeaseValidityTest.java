package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LeaseValidity;
import io.zklock.core.LockException;
import io.zklock.core.LockOptions;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.ServerSessions;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Lease#validFor()} against a real server: never more than the time left before the
 * server's own expiry of the session (read from its session tracker), counting down while cut
 * off, zero once LOST or RELEASED.
 */
class LeaseValidityTest {
    private static final int TIMEOUT_MS = 4_000;

    private TestingServer server;

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private static LockEngine engine(CuratorFramework on) {
        return new LockEngine(on, "/validity/lock", new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1));
    }

    private static long sessionOf(CuratorFramework c) throws Exception {
        return c.getZookeeperClient().getZooKeeper().getSessionId();
    }

    /** The lease's figure never exceeds what the server's expiry queue leaves the session, read just after it. */
    private void assertWithinServerExpiry(Lease lease, long session) {
        long valid = lease.validFor().toMillis();
        long expiry = ServerSessions.expiryMillis(server, session);
        long left = expiry - System.nanoTime() / 1_000_000;
        assertTrue(expiry > 0, "the server knows the session");
        assertTrue(valid <= left, "validFor " + valid + " ms must not exceed the server's " + left + " ms");
    }

    /** A held lease is certain for less than the session timeout, never beyond the server's expiry, and stays fresh while read. */
    @Test
    void aHeldLeaseIsCertainForNoLongerThanTheServerKeepsTheSession() throws Exception {
        try (CuratorFramework c = ZkTesting.client(server.getConnectString(), TIMEOUT_MS);
             Lease lease = engine(c).acquire()) {
            long session = sessionOf(c);
            int negotiated = c.getZookeeperClient().getZooKeeper().getSessionTimeout();
            Duration first = lease.validFor();
            assertTrue(first.toMillis() > 0, "a lease just granted is certain for a while: " + first);
            assertTrue(first.toMillis() <= negotiated - LeaseValidity.DEFAULT_FIXED_MS, "less than timeout minus margin: " + first);
            long until = System.nanoTime() + Duration.ofMillis(negotiated + 1_000L).toNanos();
            long least = Long.MAX_VALUE;
            while (System.nanoTime() - until < 0) {
                assertWithinServerExpiry(lease, session);
                least = Math.min(least, lease.validFor().toMillis());
                Thread.sleep(50);
            }
            assertTrue(least > 0, "a connected lease that is read stays certain (the clock's own requests keep it fresh): least " + least);
            lease.checkValidFor(Duration.ofMillis(1));
            LockException e = assertThrows(LockException.class, () -> lease.checkValidFor(Duration.ofMillis(negotiated)));
            assertTrue(e.getMessage().contains(lease.nodePath()) && e.getMessage().contains("ms needed"), e.getMessage());
        }
    }

    /**
     * A lock built with a larger margin reads a smaller figure, by the difference of the
     * margins, on the same session at the same moment; never more than the timeout less its
     * own margin, never beyond the server's expiry.
     */
    @Test
    void aLargerMarginGivesASmallerValidity() throws Exception {
        LockOptions wide = LockOptions.defaults().withValidityMargin(Duration.ofSeconds(3), 0.05);
        assertEquals(LeaseValidity.of(Duration.ofSeconds(3), 0.05), wide.validityMargin().orElseThrow());
        assertTrue(LockOptions.defaults().validityMargin().isEmpty(), "no margin set: the client's");
        assertThrows(IllegalArgumentException.class, () -> LockOptions.defaults().withValidityMargin(Duration.ofMillis(-1), 0.01));
        assertThrows(IllegalArgumentException.class, () -> LockOptions.defaults().withValidityMargin(Duration.ZERO, 1.0));
        try (CuratorFramework c = ZkTesting.client(server.getConnectString(), TIMEOUT_MS);
             Lease usual = engine(c).acquire();
             Lease careful = new LockEngine(c, "/validity/careful", new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1), wide)
                     .acquire()) {
            long session = sessionOf(c);
            int negotiated = c.getZookeeperClient().getZooKeeper().getSessionTimeout();
            Duration first = usual.validFor();
            Duration second = careful.validFor();     // read later, on the same clock: smaller by the margins' difference at least
            long expected = 3_000 - LeaseValidity.DEFAULT_FIXED_MS + (long) ((0.05 - LeaseValidity.DEFAULT_RATE) * negotiated);
            assertTrue(second.toMillis() > 0, "a lease just granted is certain for a while even with the larger margin: " + second);
            assertTrue(first.minus(second).toMillis() >= expected - 1,
                    "the larger margin takes " + expected + " ms more: " + first + " against " + second);
            assertTrue(second.toMillis() <= negotiated - 3_000 - (long) (0.05 * negotiated),
                    "no more than the timeout less its own margin: " + second + " of " + negotiated + " ms");
            assertWithinServerExpiry(careful, session);
            assertWithinServerExpiry(usual, session);
        }
    }

    /** Cut off, the figure keeps counting down and reaches zero before the server expires the session; LOST is zero. */
    @Test
    void aCutOffLeaseCountsDownToZeroBeforeTheServerExpiresItsSession() throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server.getConnectString());
             CuratorFramework c = ZkTesting.client(proxy.connectString(), TIMEOUT_MS)) {
            long session = sessionOf(c);
            Lease lease = engine(c).acquire();
            proxy.freeze();
            long frozeAt = System.nanoTime();
            Duration before = lease.validFor();
            Await.until("the lease is certain no more", Duration.ofMillis(3L * TIMEOUT_MS), () -> lease.validFor().isZero());
            long zeroAfterMs = (System.nanoTime() - frozeAt) / 1_000_000;
            long expiry = ServerSessions.expiryMillis(server, session);
            assertTrue(expiry == -1 || expiry > System.nanoTime() / 1_000_000,
                    "zero (after " + zeroAfterMs + " ms, from " + before + ") before the server may expire the session");
            Await.until("the lease is LOST", Duration.ofMillis(6L * TIMEOUT_MS), () -> lease.state() == LeaseState.LOST);
            assertEquals(Duration.ZERO, lease.validFor());
            proxy.heal();
        }
    }

    /** A released lease, and a lease of an expired session, are certain of nothing. */
    @Test
    void releasedAndLostLeasesAreZero() throws Exception {
        try (CuratorFramework c = ZkTesting.client(server.getConnectString(), TIMEOUT_MS)) {
            Lease lease = engine(c).acquire();
            lease.close();
            assertEquals(LeaseState.RELEASED, lease.state());
            assertEquals(Duration.ZERO, lease.validFor());
            assertThrows(LockException.class, () -> lease.checkValidFor(Duration.ZERO));

            Lease second = engine(c).acquire();
            Sessions.expire(c, server.getConnectString());
            Await.until("the lease is LOST", Duration.ofSeconds(20), () -> second.state() == LeaseState.LOST);
            assertEquals(Duration.ZERO, second.validFor());
        }
    }
}
