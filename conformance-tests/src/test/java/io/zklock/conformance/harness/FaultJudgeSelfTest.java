package io.zklock.conformance.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;

import io.zklock.conformance.harness.FaultJudge.Guard;
import io.zklock.conformance.harness.FaultJudge.Held;
import io.zklock.conformance.harness.FaultSchedule.Acquire;
import io.zklock.conformance.harness.FaultSchedule.Fault;
import io.zklock.conformance.harness.FaultSchedule.Inject;
import io.zklock.conformance.harness.FaultSchedule.Pause;
import io.zklock.conformance.harness.FaultScheduleRunner.Outcome;
import io.zklock.conformance.harness.Recipe.Sharing;
import io.zklock.core.Lease;
import io.zklock.core.LockDelay;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.mutex.ZkMutex;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
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

    /**
     * An unfenced overlap is left out only where the later holder's node was made in the lock
     * directory made again (its sequence number not above the earlier holder's node's, in the
     * same directory); a later node of the same directory, or one elsewhere, leaves it counted.
     */
    @Test
    void onlyALockDirectoryMadeAgainLeavesAnOverlapOut() {
        String dir = "/faults/x/unfenced/";
        String a = "0f1e2d3c-4b5a-4968-8776-655443322110";
        String b = "1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9";
        List<String> earlier = List.of(dir + LockNode.of(a, "lock", 3).name());
        assertTrue(FaultJudge.directoryMadeAgain(earlier, List.of(dir + LockNode.of(b, "lock", 0).name())), "counter restarted");
        assertTrue(FaultJudge.directoryMadeAgain(earlier, List.of(dir + LockNode.of(b, "lock", 3).name())), "the same number again");
        assertFalse(FaultJudge.directoryMadeAgain(earlier, List.of(dir + LockNode.of(b, "lock", 4).name())), "a later node of the same directory");
        assertFalse(FaultJudge.directoryMadeAgain(earlier, List.of("/faults/y/unfenced/" + LockNode.of(b, "lock", 0).name())), "another directory");
        assertFalse(FaultJudge.directoryMadeAgain(earlier, List.of(dir + "sub/" + LockNode.of(b, "lock", 0).name())), "a directory below");
        assertFalse(FaultJudge.directoryMadeAgain(earlier, List.of(dir + "not-a-lock-node")), "a name that is no lock node's");
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

    /**
     * A forced expiry excuses a holder that still says HELD at its successor's write only from
     * the moment the expiry is aimed at to a session timeout after it ended, and a second attempt
     * at the same session (its client has not heard of the first yet) does not withdraw that
     * excuse. Told to the judge directly, over two real leases that one resource stands for.
     */
    @Test
    void aForcedExpiryExcusesALateNoticeOnlyWithinItsWindow() throws Exception {
        int sessionMs = 300;
        try (CuratorFramework a = ZkTesting.client(server.getConnectString(), 2_000);
                CuratorFramework b = ZkTesting.client(server.getConnectString(), 2_000)) {
            Lease older = new ZkMutex(a, "/judge/older").acquire();
            Lease newer = new ZkMutex(b, "/judge/newer").acquire();
            List<Guard> r = List.of(new Guard("r", Sharing.EXCLUSIVE, 1));
            long session = a.getZookeeperClient().getZooKeeper().getSessionId();
            long newerSession = b.getZookeeperClient().getZooKeeper().getSessionId();

            FaultJudge before = new FaultJudge("before", sessionMs);
            Held[] held = holding(before, r, older, newer, session, newerSession);
            before.write(held[1]);                                   // the older one's session is not expired yet
            assertTrue(before.expiringByForce(session));
            before.expiredByForce(session);
            before.resolve();
            assertTrue(before.violations().stream().anyMatch(v -> v.startsWith("late notice:")
                    && v.contains("before its session was expired by force")), "violations " + before.violations());

            FaultJudge within = new FaultJudge("within", sessionMs);
            held = holding(within, r, older, newer, session, newerSession);
            assertTrue(within.expiringByForce(session));
            within.expiredByForce(session);
            assertFalse(within.expiringByForce(session), "a second attempt at the same session: the first stands");
            within.write(held[1]);
            within.resolve();
            assertEquals(List.of(), within.violations());
            assertTrue(within.lateNoticesAfterForcedExpiry() > 0, "counted as a late notice after a forced expiry");

            FaultJudge after = new FaultJudge("after", sessionMs);
            held = holding(after, r, older, newer, session, newerSession);
            assertTrue(after.expiringByForce(session));
            after.expiredByForce(session);
            Thread.sleep(sessionMs + 200L);
            after.write(held[1]);
            after.resolve();
            assertTrue(after.violations().stream().anyMatch(v -> v.startsWith("late notice:")
                    && v.contains("after its session was expired by force")), "violations " + after.violations());
            older.close();
            newer.close();
        }
    }

    /** Both leases granted and holding for {@code judge}, the older one on {@code session}, the newer on {@code newerSession}. */
    private static Held[] holding(FaultJudge judge, List<Guard> r, Lease older, Lease newer, long session, long newerSession) {
        Held o = judge.granted(0, "older", r, older, node -> session, () -> session);
        Held n = judge.granted(1, "newer", r, newer, node -> newerSession, () -> newerSession);
        judge.holding(o);
        judge.holding(n);
        return new Held[] {o, n};
    }
}
