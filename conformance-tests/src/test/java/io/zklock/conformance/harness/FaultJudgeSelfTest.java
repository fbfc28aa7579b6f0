package io.zklock.conformance.harness;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;

import io.zklock.conformance.harness.FaultSchedule.Acquire;
import io.zklock.conformance.harness.FaultSchedule.Fault;
import io.zklock.conformance.harness.FaultSchedule.Inject;
import io.zklock.conformance.harness.FaultSchedule.Pause;
import io.zklock.conformance.harness.FaultScheduleRunner.Outcome;
import io.zklock.core.LockDelay;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.ServerSessions;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@link FaultJudge} of {@link ScheduledFaultsTest} can fail: run against a "lock" that
 * excludes nothing (each client locks a path of its own), it reports what a broken lock does;
 * and the validity readings' judge reports a clock skewed far beyond the margin.
 */
class FaultJudgeSelfTest {
    private static TestingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(new InstanceSpec((File) null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    private static Outcome run(Acquire... steps) {
        try (FaultScheduleRunner runner = FaultScheduleRunner.unguarded(2, 2_000, server.getConnectString())) {
            return runner.run(new FaultSchedule(List.of(steps)));
        }
    }

    /** Two overlapping holders of a lock that excludes nothing are reported as two valid holders, and the older one's writes as refused while it held. */
    @Test
    void overlappingHoldersOfANonExclusiveLockAreReported() {
        Outcome outcome = run(new Acquire(0, 0, 800), new Acquire(1, 0, 800));
        assertTrue(outcome.violations().stream().anyMatch(v -> v.startsWith("exclusion:") && v.contains("two valid holders")),
                "violations " + outcome.violations());
        assertTrue(outcome.violations().stream().anyMatch(v -> v.contains("write refused as stale while its lease said HELD")),
                "violations " + outcome.violations());
    }

    /** A holder whose clock runs 30 % slow, far beyond the margin's rate part, reads validFor() past the server's expiry: reported. */
    @Test
    void aClockSkewedBeyondTheMarginIsReported() {
        try (FaultScheduleRunner runner = FaultScheduleRunner.checkingValidity(LockDelay.off(), 2, 2_000, server.getConnectString())
                .judgingValidityAgainst(session -> ServerSessions.expiryMillis(server, session)).skewingBy(-0.3)) {
            Outcome outcome = runner.run(new FaultSchedule(List.of(new Acquire(0, 0, 1_500), new Pause(100),
                    new Inject(Fault.CLOCK_SKEW, 0), new Pause(1_500))));
            assertTrue(outcome.validity().skewedClients() == 1 && outcome.validity().skewedReadings() > 0, "skewed: " + outcome);
            assertTrue(outcome.violations().stream().anyMatch(v -> v.startsWith("validity:") && v.contains("past the server's expiry")),
                    "violations " + outcome.violations());
        }
    }

    /** A holder whose session is expired by force while a waiter takes over is no violation: it is dead, and told LOST. */
    @Test
    void holderExpiredByForceIsExcusedOnlyOnceItIsToldLost() {
        try (FaultScheduleRunner runner = new FaultScheduleRunner(Recipe.MUTEX, 2, 2_000, server.getConnectString(), null)) {
            Outcome outcome = runner.run(new FaultSchedule(List.of(new Acquire(0, 0, 1_500), new Acquire(1, 0, 300),
                    new Inject(Fault.HOLDER_EXPIRY, 0))));
            assertTrue(outcome.injected().containsKey(Fault.HOLDER_EXPIRY), "expiry injected: " + outcome);
            assertTrue(outcome.violations().isEmpty(), "violations " + outcome.violations());
            assertTrue(outcome.granted() >= 3, "both requests and the probes granted: " + outcome);
        }
    }
}
