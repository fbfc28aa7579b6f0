package io.zklock.core.internal.zk;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.zklock.core.LeaseValidity;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.ServerSessions;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A session clock whose holder's clock runs at another rate than the server's, within the
 * default margin's rate part of one per cent (the fixed part set to zero, so only the rate part covers it): what the holder reads on its own clock, and acts for on that
 * clock, never reaches past the server's own expiry of the session (read from its expiry queue,
 * on the server's clock, which is the true one here).
 */
class SessionClockSkewTest {
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

    /** A clock that runs {@code skew} faster than the monotonic clock (slower if negative). */
    private static final class Skewed {
        private final long base = System.nanoTime();
        private final double skew;

        Skewed(double skew) {
            this.skew = skew;
        }

        long nanos() {
            return base + (long) ((System.nanoTime() - base) * (1 + skew));
        }
    }

    @ParameterizedTest(name = "skew {0}")
    @ValueSource(doubles = {0.005, -0.005})
    void aHolderWhoseClockRunsOffByLessThanTheMarginNeverReadsPastTheServersExpiry(double skew) throws Exception {
        Skewed holder = new Skewed(skew);
        SessionClock clock = new SessionClock(holder::nanos);
        clock.margin(Duration.ZERO, LeaseValidity.DEFAULT_RATE);   // the rate part alone, no fixed part to hide behind
        try (CuratorFramework c = ZkTesting.client(server.getConnectString(), TIMEOUT_MS)) {
            ZooKeeper zk = c.getZookeeperClient().getZooKeeper();
            long session = zk.getSessionId();
            int negotiated = zk.getSessionTimeout();
            clock.timeoutFrom(() -> negotiated);
            long sent = holder.nanos();
            zk.exists("/", false);
            clock.answered(session, sent);

            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(negotiated + 500L);
            long positive = 0;
            while (System.nanoTime() - until < 0) {
                long validOnHolderClock = clock.validForNanos(session);
                long realNowMs = System.nanoTime() / 1_000_000;
                long expiry = ServerSessions.expiryMillis(server, session);
                // the holder acts for validOnHolderClock on its own clock: that much divided by its rate, truly
                long actsUntilMs = realNowMs + (long) Math.ceil(validOnHolderClock / (1 + skew) / 1_000_000);
                assertTrue(expiry > 0, "the server knows the session");
                assertTrue(validOnHolderClock == 0 || actsUntilMs <= expiry, "skew " + skew + ": the holder acts until "
                        + actsUntilMs + " ms, the server may expire the session at " + expiry + " ms");
                if (validOnHolderClock > 0) {
                    positive++;
                }
                Thread.sleep(50);
            }
            assertTrue(positive > 0, "the figure was above zero for a while");
        }
    }
}
