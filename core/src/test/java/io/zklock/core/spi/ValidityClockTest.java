package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.function.LongSupplier;

import io.zklock.core.Lease;
import io.zklock.core.LeaseValidity;
import io.zklock.core.LockOptions;
import io.zklock.core.ValidityClock;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.ServerSessions;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client given its own clock with {@link ValidityClock#use}: its requests are stamped and its
 * leases read on that clock. A clock running slow by the margin's rate part, with that part
 * alone as the margin, never acts past the server's expiry; a clock running at half speed does,
 * which shows the readings come from the clock given.
 */
class ValidityClockTest {
    private static final int TIMEOUT_MS = 3_000;
    private static final LockOptions RATE_ONLY = LockOptions.defaults().withValidityMargin(Duration.ZERO, LeaseValidity.DEFAULT_RATE);

    private TestingServer server;

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    /** A clock that runs at {@code rate} times the monotonic clock. */
    private static LongSupplier running(double rate) {
        long base = System.nanoTime();
        return () -> base + (long) ((System.nanoTime() - base) * rate);
    }

    private static LockEngine engine(CuratorFramework on, String path) {
        return new LockEngine(on, path, new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1), RATE_ONLY);
    }

    /**
     * How far past the server's expiry a holder on a clock at {@code rate} would act, at most,
     * over a session timeout of readings, acting for each reading on its own clock (ms; 0: never);
     * the readings stop early once one acts more than {@code enough} ms past it.
     */
    private long worstOvershootMs(double rate, long enough) throws Exception {
        try (CuratorFramework c = ZkTesting.client(server.getConnectString(), TIMEOUT_MS)) {
            ValidityClock.use(c, running(rate));
            long session = c.getZookeeperClient().getZooKeeper().getSessionId();
            long worst = 0;
            try (Lease lease = engine(c, "/clock/" + rate).acquire()) {
                int negotiated = c.getZookeeperClient().getZooKeeper().getSessionTimeout();
                long until = System.nanoTime() + Duration.ofMillis(negotiated).toNanos();
                while (System.nanoTime() - until < 0 && worst <= enough) {
                    long valid = lease.validFor().toNanos();
                    long actsUntilMs = (long) Math.ceil((System.nanoTime() + valid / rate) / 1e6);
                    long expiry = ServerSessions.expiryMillis(server, session);
                    assertTrue(expiry > 0, "the server knows the session");
                    assertTrue(valid > 0, "a connected, read lease stays certain");
                    worst = Math.max(worst, actsUntilMs - expiry);
                    Thread.sleep(40);
                }
            }
            return worst;
        }
    }

    /** A clock 1 % slow, the most the default rate part covers: the holder never acts past the server's expiry. */
    @Test
    void aClockSlowByTheRatePartNeverActsPastTheServersExpiry() throws Exception {
        assertEquals(0, worstOvershootMs(1 - LeaseValidity.DEFAULT_RATE, 0), "ms past the server's expiry");
    }

    /** A clock at half speed, far beyond the margin, acts past the server's expiry: the leases read the clock given. */
    @Test
    void aClockFarSlowerThanTheMarginActsPastTheServersExpiry() throws Exception {
        long worst = worstOvershootMs(0.5, TIMEOUT_MS / 4);
        assertTrue(worst > TIMEOUT_MS / 4, "a clock at half speed acts past the server's expiry: by " + worst + " ms at worst");
    }

    /** The clock is one per client, and set before its locks send anything. */
    @Test
    void theClockIsSetBeforeTheClientsFirstRequest() throws Exception {
        try (CuratorFramework c = ZkTesting.client(server.getConnectString(), TIMEOUT_MS)) {
            LongSupplier clock = running(1.0);
            ValidityClock.use(c, clock);
            ValidityClock.use(c, clock);                       // the same again: nothing changes
            engine(c, "/clock/set").acquire().close();
            ValidityClock.use(c, clock);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ValidityClock.use(c, System::nanoTime));
            assertTrue(e.getMessage().contains("before its first lock"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ValidityClock.use(c, null));
        }
    }
}
