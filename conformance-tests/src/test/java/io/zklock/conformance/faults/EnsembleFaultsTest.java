package io.zklock.conformance.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.zklock.conformance.harness.Ensembles;
import io.zklock.conformance.harness.FaultScheduleRunner;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.testing.Await;
import io.zklock.testing.FencedResource;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Server faults on a three-server ensemble while clients contend: the leader is killed and
 * comes back, or the server a client is connected to restarts. Sessions survive (their
 * timeout outlasts the election), so the properties are those of a lock that never lost a
 * holder: no more holders than capacity at any moment, every request is granted in the end,
 * and no lock node is left once every client has released. Run on the exclusive and the
 * bounded recipe of {@link Recipe} (the mutex, and a semaphore of 2 so that the six threads
 * contend for its permits); the properties of every recipe under server faults are those of
 * {@link ScheduledFaultsTest}' ensemble schedules.
 */
class EnsembleFaultsTest {
    private static final int ROUNDS = 10;
    private static final int SESSIONS = 3;
    private static final int THREADS_PER_SESSION = 2;
    private static TestingCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = Ensembles.start(-1);        // ZooKeeper's default tick
    }

    @AfterAll
    static void stopCluster() throws Exception {
        cluster.close();
    }

    enum Fault { LEADER_LOSS, CONNECTED_SERVER_RESTART }

    static Stream<Arguments> recipesAndFaults() {
        List<Arguments> all = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            for (Recipe recipe : List.of(Recipe.MUTEX, Recipe.semaphore(2))) {
                all.add(Arguments.of(recipe, fault));
            }
        }
        return all.stream();
    }

    /**
     * A server fault during contention: never more holders than capacity, every request granted,
     * no node left; and a lock re-acquired by one thread alone on the faulted session (the
     * one-transaction path) keeps being granted after the fault and leaves no node either.
     */
    @ParameterizedTest(name = "{0} under {1}")
    @MethodSource("recipesAndFaults")
    void serverFaultKeepsExclusionAndLivenessAndLeavesNoNode(Recipe recipe, Fault fault) throws Exception {
        String name = recipe.name();
        int capacity = recipe.capacity();
        String path = "/faults/" + name + "-" + UUID.randomUUID();
        List<CuratorFramework> clients = new ArrayList<>();
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        FencedResource resource = new FencedResource(capacity, recipe.exclusive());
        AtomicInteger grants = new AtomicInteger();
        AtomicInteger suspensions = new AtomicInteger();
        try {
            List<DistributedLock> locks = new ArrayList<>();
            for (int i = 0; i < SESSIONS; i++) {
                CuratorFramework client = ZkTesting.client(cluster.getConnectString(), 30_000);
                client.getConnectionStateListenable().addListener((c, state) -> {
                    if (state == ConnectionState.SUSPENDED) {
                        suspensions.incrementAndGet();
                    }
                });
                clients.add(client);
                locks.add(recipe.create(client, path));
            }
            CountDownLatch halfway = new CountDownLatch(SESSIONS * THREADS_PER_SESSION);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < SESSIONS * THREADS_PER_SESSION; t++) {
                DistributedLock lock = locks.get(t % SESSIONS);
                Thread thread = new Thread(() -> {
                    try {
                        for (int r = 0; r < ROUNDS; r++) {
                            if (r == ROUNDS / 2) {
                                halfway.countDown();
                            }
                            Optional<Lease> got = lock.tryAcquire(Duration.ofSeconds(90));
                            try (Lease lease = got.orElseThrow(() -> new AssertionError("not granted within 90 s"))) {
                                grants.incrementAndGet();
                                if (!resource.enter(lease.fencingToken())) {
                                    throw new AssertionError("stale token " + lease.fencingToken());
                                }
                                Thread.sleep(20);
                                resource.exit(lease.fencingToken());
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, name + "-worker-" + t);
                threads.add(thread);
                thread.start();
            }
            // A lock only one thread uses, on the session the fault reaches: its re-acquires take the
            // inferring one-transaction path, so some transaction replies are lost to the fault.
            DistributedLock solo = recipe.create(clients.get(0), path + "-solo");
            AtomicBoolean contentionOver = new AtomicBoolean();
            AtomicInteger soloGrantsAfterFault = new AtomicInteger();
            AtomicBoolean faultDone = new AtomicBoolean();
            Thread soloThread = new Thread(() -> {
                try {
                    while (!contentionOver.get()) {
                        Optional<Lease> got = solo.tryAcquire(Duration.ofSeconds(90));
                        Lease lease = got.orElseThrow(() -> new AssertionError("solo not granted within 90 s"));
                        try (lease) {
                            if (faultDone.get()) {
                                soloGrantsAfterFault.incrementAndGet();
                            }
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, name + "-solo");
            soloThread.start();
            assertTrue(halfway.await(2, TimeUnit.MINUTES), "workers reached halfway");
            InstanceSpec victim = fault == Fault.LEADER_LOSS
                    ? FaultScheduleRunner.leaderOf(cluster)
                    : cluster.findConnectionInstance(clients.get(0).getZookeeperClient().getZooKeeper());
            cluster.killServer(victim);
            Thread.sleep(1_000);
            cluster.restartServer(victim);
            faultDone.set(true);
            for (Thread thread : threads) {
                thread.join(TimeUnit.MINUTES.toMillis(3));
                assertTrue(!thread.isAlive(), thread.getName() + " stranded");
            }
            Await.until("the solo thread re-acquired after the fault", Duration.ofSeconds(90),
                    () -> soloGrantsAfterFault.get() > 0 || !errors.isEmpty());
            contentionOver.set(true);
            soloThread.join(TimeUnit.MINUTES.toMillis(2));
            assertTrue(!soloThread.isAlive(), "solo thread stranded");
            assertEquals(List.of(), List.copyOf(errors));
            assertTrue(suspensions.get() > 0, "the fault reached at least one client's connection");
            assertEquals(SESSIONS * THREADS_PER_SESSION * ROUNDS, grants.get());
            assertEquals(List.of(), resource.overlaps());
            CuratorFramework checker = ZkTesting.client(cluster.getConnectString(), 30_000);
            clients.add(checker);
            Await.equal("lock nodes left", List.of(), Duration.ofSeconds(60), () -> ZkTesting.lockNodesBelow(checker, path));
            Await.equal("solo lock nodes left", List.of(), Duration.ofSeconds(60),
                    () -> ZkTesting.lockNodesBelow(checker, path + "-solo"));
        } finally {
            clients.forEach(CuratorFramework::close);
        }
    }
}
