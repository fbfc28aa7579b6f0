package io.zklock.conformance.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.zklock.conformance.harness.Ensembles;
import io.zklock.conformance.harness.FaultSchedule.Acquire;
import io.zklock.conformance.harness.FaultSchedule.Fault;
import io.zklock.conformance.harness.FaultSchedule.Inject;
import io.zklock.conformance.harness.FaultSchedule.Pause;
import io.zklock.conformance.harness.FaultSchedule.Step;
import io.zklock.conformance.harness.FaultSchedule;
import io.zklock.conformance.harness.FaultScheduleRunner.Outcome;
import io.zklock.conformance.harness.FaultScheduleRunner;
import io.zklock.conformance.harness.Recipe;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nemesis, run by {@code mvn -Psoak} only (the parent POM excludes it by name from every other run):
 * for {@code -Dzklock.soak.minutes} (default 2), every recipe of {@link Recipe#all()} in turn runs long random
 * schedules in which three clients take the lock while faults of every kind are injected,
 * judged as {@link ScheduledFaultsTest} judges them; every fifth schedule runs on a
 * three-server ensemble with its faults. After each fault heals, the faulted client requests
 * the lock and the wait is recorded (recovery time, by the kind of fault healed). It prints
 * operations, faults by kind, violations, orphan checks, stranded waiters and recovery times by
 * fault kind, and fails on any violation. (Operations per fault kind, side by side with
 * Curator's recipes under the same seeded faults: the benchmarks' {@code --scenario faults}.)
 * {@code -Dzklock.soak.seed} replays a run.
 */
class FaultSoak {
    private static final Logger LOG = LoggerFactory.getLogger(FaultSoak.class);
    private static final int STEPS = 12;

    /** Over the whole soak, under faults of every kind drawn at random, no schedule breaks an invariant. */
    @Test
    void nemesisOfEveryFaultKindBreaksNoInvariant() throws Exception {
        double minutes = Double.parseDouble(System.getProperty("zklock.soak.minutes", "2"));
        long seed = Long.getLong("zklock.soak.seed", System.nanoTime());
        LOG.info("soak for {} min, seed {} (-Dzklock.soak.seed={} replays the same schedules)", minutes, seed, seed);
        System.setProperty("znode.container.checkIntervalMs", "100");
        Random random = new Random(seed);
        ScheduledFaultsTest.Tally tally = new ScheduledFaultsTest.Tally();
        List<String> failures = new ArrayList<>();
        long deadline = System.nanoTime() + (long) (minutes * TimeUnit.MINUTES.toNanos(1));
        TestingCluster cluster = null;
        try (TestingServer server = new TestingServer(spec(-1), true)) {
            List<Recipe> recipes = Recipe.all();
            int chunk = 0;
            int[] turns = new int[2];       // schedules so far on the single server and on the ensemble: each takes the recipes in turn
            while (System.nanoTime() - deadline < 0) {
                boolean ensemble = chunk % 5 == 4;
                Recipe target = recipes.get(turns[ensemble ? 1 : 0]++ % recipes.size());
                chunk++;
                if (ensemble) {
                    cluster = cluster == null ? Ensembles.start(200) : Ensembles.serving(cluster, 200);
                }
                FaultSchedule schedule = randomSchedule(random,
                        ensemble ? ScheduledFaultsTest.ENSEMBLE_FAULTS : ScheduledFaultsTest.SINGLE_SERVER_FAULTS);
                int sessionMs = ensemble ? ScheduledFaultsTest.CLUSTER_SESSION_MS : ScheduledFaultsTest.SESSION_MS;
                Outcome outcome;
                try (FaultScheduleRunner runner = new FaultScheduleRunner(target, ScheduledFaultsTest.CLIENTS, sessionMs,
                        ensemble ? cluster.getConnectString() : server.getConnectString(), ensemble ? cluster : null)) {
                    outcome = runner.probeAfterEachFault().run(schedule);
                }
                tally.add(target, outcome);
                if (!outcome.violations().isEmpty()) {
                    String failure = target + (ensemble ? " on the ensemble" : "") + " under " + schedule + ": "
                            + outcome.violations();
                    failures.add(failure);
                    LOG.warn("soak schedule {} failed: {}", chunk, failure);
                }
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
        LOG.info(tally.summary("soak (seed " + seed + ")"));
        assertEquals(List.of(), failures, "schedules with violations");
    }

    private static FaultSchedule randomSchedule(Random random, List<Fault> faults) {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < STEPS; i++) {
            int pick = random.nextInt(10);
            int client = random.nextInt(ScheduledFaultsTest.CLIENTS);
            if (pick < 5) {
                steps.add(new Acquire(client, random.nextInt(3), 50 + random.nextInt(1_450)));
            } else if (pick < 9) {
                steps.add(new Inject(faults.get(random.nextInt(faults.size())), client));
            } else {
                steps.add(new Pause(50 + random.nextInt(1_450)));
            }
        }
        return new FaultSchedule(steps);
    }

    private static InstanceSpec spec(int serverId) {
        return new InstanceSpec((File) null, -1, -1, -1, true, serverId, 200, -1);
    }
}
