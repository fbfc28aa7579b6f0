package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.zklock.conformance.harness.MixedFleet;
import io.zklock.conformance.harness.MixedFleet.CountingResource;
import io.zklock.conformance.harness.MixedFleet.Library;
import io.zklock.conformance.harness.MixedFleet.Participant;
import io.zklock.conformance.harness.MixedFleet.Shape;
import io.zklock.conformance.harness.SharedServer;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A rolling update, as the migration guide tells it: a fleet of four replicas starts on
 * Curator's recipe, each is replaced in turn by zklock in compatibility mode (a new process:
 * a new session), then each is switched in turn to zklock's default mode, while all of them
 * keep using one shared resource. Zero overlapping holders at every step.
 */
class RollingUpdatePropertiesTest {
    private static final int REPLICAS = 4;
    /** How long the fleet runs mixed at each step at least. */
    private static final long STEP_MS = 350;
    /** How long a step may go without a grant before the fleet counts as stalled: generous for a loaded machine. */
    private static final Duration STALL_BOUND = Duration.ofSeconds(20);
    private final SharedServer zk = SharedServer.get();
    private final List<CuratorFramework> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(CuratorFramework::close);
    }

    /**
     * 0 overlapping holders at every step of Curator → compatibility mode → default mode, and
     * every step makes progress: the fleet runs mixed for {@link #STEP_MS}, and then until it
     * has been granted once more at least, within {@link #STALL_BOUND}.
     */
    @ParameterizedTest
    @EnumSource(Shape.class)
    void rollingUpdateNeverOverlaps(Shape shape) throws Exception {
        String path = "/rolling/" + UUID.randomUUID();
        CountingResource resource = new CountingResource(shape);
        Participant[] fleet = new Participant[REPLICAS];
        CuratorFramework[] sessions = new CuratorFramework[REPLICAS];
        for (int i = 0; i < REPLICAS; i++) {
            replace(fleet, sessions, i, Library.CURATOR, shape, path, resource);
        }
        List<String> steps = new ArrayList<>();
        int step = 0;
        for (Library next : List.of(Library.ZKLOCK_COMPAT, Library.ZKLOCK_DEFAULT)) {
            for (int i = 0; i < REPLICAS; i++) {
                int before = totalGrants(fleet);
                Thread.sleep(STEP_MS);
                String at = "step " + step++;
                Await.until("a grant at " + at + " (no progress; before it: " + steps + ")", STALL_BOUND,
                        () -> totalGrants(fleet) > before);
                steps.add(at + ": " + (totalGrants(fleet) - before) + " grants, " + resource.violations() + " violations");
                replace(fleet, sessions, i, next, shape, path, resource);
            }
        }
        Thread.sleep(STEP_MS);
        for (Participant p : fleet) {
            p.stop();
        }
        System.out.println("rolling update " + shape + ": " + steps);
        assertEquals(0, resource.violations(), steps + "; " + resource.firstViolations());
        for (Participant p : fleet) {
            assertTrue(p.errors.isEmpty(), p + ": " + p.errors);
        }
    }

    private static int totalGrants(Participant[] fleet) {
        int sum = 0;
        for (Participant p : fleet) {
            sum += p.grants.get();
        }
        return sum;
    }

    /** Stops replica {@code i} (its process ends: its session closes) and starts it again on {@code library}. */
    private void replace(Participant[] fleet, CuratorFramework[] sessions, int i, Library library, Shape shape, String path,
            CountingResource resource) throws Exception {
        if (fleet[i] != null) {
            fleet[i].stop();
            assertTrue(fleet[i].errors.isEmpty(), fleet[i] + ": " + fleet[i].errors);
            sessions[i].close();
        }
        sessions[i] = ZkTesting.client(zk.connectString(), 15_000);
        clients.add(sessions[i]);
        fleet[i] = new Participant(library + "-" + i, library, MixedFleet.handle(library, shape, sessions[i], path), resource,
                shape == Shape.READ_WRITE).start();
    }
}
