package io.zklock.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.zklock.core.Lease;
import io.zklock.mutex.ZkMutex;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.ZkTesting;
import org.junit.jupiter.api.Test;

/**
 * What a binding shows of the locks now, and of one acquisition end to end, on a real
 * ZooKeeper: the gauges of nodes held and acquisitions waiting, a binding scoped to one client
 * (two applications in one JVM), and the wait and hold observations in Micrometer's test
 * registry: started on the caller's thread under its observation, naming the node waited
 * behind, its owner and its trace.
 */
class ZkLockObservationsTest extends EmbeddedServerTest {
    private static final String HOLDER_TRACE = "0af7651916cd43dd8448eb211c80319c";

    private static double gauge(SimpleMeterRegistry registry, String name, String mode) {
        Gauge gauge = registry.find(name).tags("mode", mode).gauge();
        return gauge == null ? 0 : gauge.value();
    }

    /** The gauges count what is held and what waits now, by mode, and fall back to zero as leases are released. */
    @Test
    void gaugesShowLeasesHeldAndAcquisitionsWaitingNow() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ZkLockMetrics metrics = ZkLockMetrics.bind(registry)) {
            Lease held = new ZkMutex(other, "/gauges/m").acquire();
            Lease permit = new ZkSemaphore(client, "/gauges/s", 2).acquire();
            CompletableFuture<Lease> waiter = new ZkMutex(client, "/gauges/m").acquireAsync(Duration.ofMinutes(1));
            Await.until("the waiter is queued", LONG, () -> ZkTesting.lockNodesBelow(client, "/gauges/m").size() == 2);

            assertEquals(1.0, gauge(registry, ZkLockMetrics.HELD, "mutex"), registry.getMetersAsString());
            assertEquals(1.0, gauge(registry, ZkLockMetrics.HELD, "permit"));
            assertEquals(1.0, gauge(registry, ZkLockMetrics.WAITING, "mutex"));
            assertEquals(2, metrics.leasesHeld());
            assertEquals(1, metrics.requestsWaiting());

            held.close();
            Lease second = waiter.get(30, TimeUnit.SECONDS);
            assertEquals(0.0, gauge(registry, ZkLockMetrics.WAITING, "mutex"));
            Await.equal("nodes held after the hand-off", 2L, LONG, metrics::leasesHeld);
            second.close();
            permit.close();
            Await.equal("nodes held after every release", 0L, LONG, metrics::leasesHeld);
            assertEquals(0.0, gauge(registry, ZkLockMetrics.HELD, "mutex"));
            assertEquals(0, metrics.requestsWaiting());
        }
    }

    /** Two bindings scoped to two clients (two applications in one JVM) each record their own client's locks only. */
    @Test
    void aBindingScopedToAClientRecordsThatClientsLocksOnly() throws Exception {
        SimpleMeterRegistry mine = new SimpleMeterRegistry();
        SimpleMeterRegistry theirs = new SimpleMeterRegistry();
        try (ZkLockMetrics a = ZkLockMetrics.builder().client(client).bind(mine);
                ZkLockMetrics b = ZkLockMetrics.builder().client(other).bind(theirs)) {
            new ZkMutex(client, "/scoped/m").acquire().close();
            new ZkMutex(other, "/scoped/m").acquire().close();
            new ZkMutex(other, "/scoped/m").acquire().close();
            Lease kept = new ZkMutex(other, "/scoped/k").acquire();

            assertEquals(1, mine.find(ZkLockMetrics.ACQUIRE).timer().count(), mine.getMetersAsString());
            assertEquals(3, theirs.find(ZkLockMetrics.ACQUIRE).timer().count(), theirs.getMetersAsString());
            assertEquals(0, a.leasesHeld());
            assertEquals(1, b.leasesHeld());
            kept.close();
        }
    }

    /**
     * A contended acquisition under the caller's observation: its wait is an observation started
     * on the caller's thread, a child of the caller's, naming the node it waited behind, that
     * node's owner (the holder's thread) and the trace id the holder wrote into it; it stops
     * with its outcome. The granted node's hold is a child of the caller's observation too, and
     * stops at the release.
     */
    @Test
    void theWaitAndTheHoldAreObservationsUnderTheCallersNamingTheHolderAndItsTrace() throws Exception {
        TestObservationRegistry observations = TestObservationRegistry.create();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ZkLockMetrics waiterSide = ZkLockMetrics.builder().client(client).observations(observations).bind(registry);
                ZkLockMetrics holderSide = ZkLockMetrics.builder().client(other).traceIds(() -> HOLDER_TRACE).bind(registry)) {
            CompletableFuture<Lease> holding = new CompletableFuture<>();
            Thread holder = new Thread(() -> {
                try {
                    holding.complete(new ZkMutex(other, "/observed/w").acquire());
                } catch (Throwable t) {
                    holding.completeExceptionally(t);
                }
            }, "billing-holder");
            holder.start();
            Lease held = holding.get(30, TimeUnit.SECONDS);

            Observation job = Observation.start("job", observations);
            CompletableFuture<Lease> waiter;
            try (Observation.Scope scope = job.openScope()) {
                waiter = new ZkMutex(client, "/observed/w").acquireAsync(Duration.ofMinutes(1));
            }
            String holderPrefix = "billing-holder (pid " + ProcessHandle.current().pid() + " on ";
            Await.until("the wait names whom it waits behind", LONG, () -> contexts(observations).stream()
                    .anyMatch(c -> c.getName().equals(ZkLockMetrics.WAIT_OBSERVATION) && c.getHighCardinalityKeyValue("zklock.holder") != null));
            TestObservationRegistryAssert.assertThat(observations)
                    .hasNumberOfObservationsWithNameEqualTo(ZkLockMetrics.WAIT_OBSERVATION, 1)
                    .hasObservationWithNameEqualTo(ZkLockMetrics.WAIT_OBSERVATION).that()
                    .hasBeenStarted().isNotStopped()
                    .hasParentObservationEqualTo(job)
                    .hasLowCardinalityKeyValue("zklock.mode", "mutex")
                    .hasHighCardinalityKeyValue("zklock.path", "/observed/w")
                    .hasHighCardinalityKeyValue("zklock.holder.node", held.nodePath())
                    .hasHighCardinalityKeyValue("zklock.holder.trace_id", HOLDER_TRACE)
                    .hasEvent("zklock.waits.behind");
            String named = contexts(observations).stream().filter(c -> c.getName().equals(ZkLockMetrics.WAIT_OBSERVATION))
                    .findFirst().orElseThrow().getHighCardinalityKeyValue("zklock.holder").getValue();
            assertTrue(named.startsWith(holderPrefix), "the holder named: " + named);

            held.close();
            Lease granted = waiter.get(30, TimeUnit.SECONDS);
            TestObservationRegistryAssert.assertThat(observations)
                    .hasObservationWithNameEqualTo(ZkLockMetrics.WAIT_OBSERVATION).that()
                    .hasBeenStopped()
                    .hasLowCardinalityKeyValue("zklock.outcome", "granted");
            TestObservationRegistryAssert.assertThat(observations)
                    .hasNumberOfObservationsWithNameEqualTo(ZkLockMetrics.HOLD_OBSERVATION, 1)
                    .hasObservationWithNameEqualTo(ZkLockMetrics.HOLD_OBSERVATION).that()
                    .hasBeenStarted().isNotStopped()
                    .hasParentObservationEqualTo(job)
                    .hasLowCardinalityKeyValue("zklock.mode", "mutex");
            granted.close();
            Await.until("the hold stops at the release", LONG, () -> contexts(observations).stream()
                    .anyMatch(c -> c.getName().equals(ZkLockMetrics.HOLD_OBSERVATION) && c.getLowCardinalityKeyValue("zklock.end") != null));
            TestObservationRegistryAssert.assertThat(observations)
                    .hasObservationWithNameEqualTo(ZkLockMetrics.HOLD_OBSERVATION).that()
                    .hasBeenStopped()
                    .hasLowCardinalityKeyValue("zklock.end", "released");
            job.stop();
        }
    }

    /** With a trace id supplier and no tracer's id on the thread, no trace line is written. */
    @Test
    void noTraceIdWritesNoTraceLine() throws Exception {
        try (ZkLockMetrics metrics = ZkLockMetrics.builder().client(client).traceIds(() -> null).bind(new SimpleMeterRegistry())) {
            Lease lease = new ZkMutex(client, "/observed/none").acquire();
            String data = new String(client.getData().forPath(lease.nodePath()), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(!data.contains("trace="), data);
            lease.close();
        }
    }

    private static List<Observation.Context> contexts(TestObservationRegistry registry) {
        List<Observation.Context> seen = new java.util.ArrayList<>();
        TestObservationRegistryAssert.assertThat(registry).hasHandledContextsThatSatisfy(seen::addAll);
        return seen;
    }
}
