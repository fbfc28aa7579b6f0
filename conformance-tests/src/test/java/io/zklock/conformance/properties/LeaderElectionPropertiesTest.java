package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.zklock.core.LeaseState;
import io.zklock.leader.LeaderInfo;
import io.zklock.leader.LeaderSubscription;
import io.zklock.leader.Leadership;
import io.zklock.leader.ZkLeaderElection;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.FencedResource;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a leader election promises beyond a lock's promises ({@link LeaderElectionConformanceTest}),
 * on a server of its own (ticks of 200 ms, sessions of 2 s), each candidate on its own client
 * behind a {@link FaultProxy}: a participant believes it leads exactly while its leadership is
 * {@code HELD}, and the leaders' writes go through a resource fenced by their epochs.
 */
class LeaderElectionPropertiesTest {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderElectionPropertiesTest.class);
    private static final int SESSION_MS = 2_000;
    private static final int TICK_MS = 200;
    /**
     * What the successor's notice may take beyond the session timeout and a tick: generous for a
     * loaded machine, and still short of a second session timeout (a successor that waited for
     * more than the dead leader's expiry); scaled for a slow machine, but never to a session timeout.
     */
    private static final Duration NOTICE_SLACK = Duration.ofMillis(1500);
    private static final int CANDIDATES = 3;
    /** How long a leader leads before it steps down and joins again: longer than the faults, so a fault finds it leading. */
    private static final int TENURE_MS = 4_000;
    private static final Duration LONG = Await.scaled(Duration.ofSeconds(30));
    private static TestingServer server;

    @BeforeContainer
    static void startServer() throws Exception {
        server = new TestingServer(new InstanceSpec((File) null, -1, -1, -1, true, -1, TICK_MS, -1), true);
    }

    @AfterContainer
    static void stopServer() throws Exception {
        server.close();
    }

    /** One fault on the leader of the moment: its connection frozen or cut for a while (past the session timeout or not). */
    record Fault(boolean freeze, int millis) {
    }

    @Provide
    Arbitrary<List<Fault>> faults() {
        return Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(200, 3_200))
                .as(Fault::new).list().ofMinSize(2).ofMaxSize(4);
    }

    /** A leadership as its participant believed it: from the return of awaitLeadership while HELD to the first change away from HELD (or the step-down). */
    record Belief(String participant, long epoch, long fromNanos, long toNanos) {
    }

    /**
     * Three candidates lead in turn (each leads for a while, steps down and joins again) while
     * the leader of the moment has its connection frozen or cut, past its session timeout or
     * not: no two participants ever believe they lead at the same moment, every write a
     * believing leader makes with its epoch is accepted (epochs only grow), leadership moves on,
     * and once the elections are closed no node and no watch is left.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void atMostOneParticipantBelievesItLeadsAndWritesFollowEpochOrder(@ForAll("faults") List<Fault> faults) throws Exception {
        String path = "/elections/beliefs-" + System.nanoTime();
        List<FaultProxy> proxies = new ArrayList<>();
        List<CuratorFramework> clients = new ArrayList<>();
        List<ZkLeaderElection> elections = new ArrayList<>();
        List<Belief> beliefs = new CopyOnWriteArrayList<>();
        List<String> refused = new CopyOnWriteArrayList<>();
        List<Leadership> current = new CopyOnWriteArrayList<>();
        FencedResource resource = new FencedResource(1, true);
        List<Thread> threads = new ArrayList<>();
        int applied = 0;
        stop = false;
        try {
            for (int i = 0; i < CANDIDATES; i++) {
                FaultProxy proxy = FaultProxy.to(server.getConnectString());
                proxies.add(proxy);
                clients.add(ZkTesting.client(proxy.connectString(), SESSION_MS));
                elections.add(new ZkLeaderElection(clients.get(i), path, "candidate-" + i));
            }
            for (ZkLeaderElection election : elections) {
                Thread t = new Thread(() -> lead(election, beliefs, refused, current, resource), "leader-" + election.participantId());
                threads.add(t);
                t.start();
            }
            for (Fault fault : faults) {
                Thread.sleep(400);
                Optional<Leadership> leader = current.stream().filter(Leadership::isValid).findFirst();
                if (leader.isEmpty()) {
                    continue;
                }
                applied++;
                FaultProxy proxy = proxies.get(Integer.parseInt(leader.get().participantId().substring("candidate-".length())));
                if (fault.freeze()) {
                    proxy.freeze();
                } else {
                    proxy.cut();
                }
                Thread.sleep(fault.millis());
                proxy.heal();
            }
            Thread.sleep(SESSION_MS);
        } finally {
            stop = true;
            proxies.forEach(FaultProxy::heal);
            for (Thread t : threads) {
                t.interrupt();
                t.join(LONG.toMillis());
            }
        }
        try {
            List<Belief> sorted = beliefs.stream().sorted(Comparator.comparingLong(Belief::fromNanos)).toList();
            for (int i = 1; i < sorted.size(); i++) {
                Belief before = sorted.get(i - 1);
                Belief after = sorted.get(i);
                assertTrue(after.fromNanos() >= before.toNanos(), "two believed leaders at once: " + before + " and " + after);
                assertTrue(after.epoch() > before.epoch(), "a later leader's epoch is not larger: " + before + " then " + after);
            }
            LOG.info("{} faults on the leader, {} beliefs, epochs admitted by the fenced resource: {}", applied, sorted.size(), resource.admitted());
            assertEquals(List.of(), refused, "writes of believing leaders refused as stale");
            assertEquals(List.of(), resource.overlaps());
            assertTrue(applied > 0 && !sorted.isEmpty(), "no fault found a leader: " + applied + " applied, beliefs " + sorted);
            ZkProbe probe = new ZkProbe(server.getPort());
            elections.forEach(ZkLeaderElection::close);
            Await.until("no candidate node left", LONG, () -> ZkTesting.children(clients.get(0), path).isEmpty());
            Await.equal("no watch left", 0, LONG, probe::watchCount);
        } finally {
            clients.forEach(CuratorFramework::close);
            proxies.forEach(FaultProxy::close);
        }
    }

    /** Ends the candidates of a try. */
    private static volatile boolean stop;

    /** A candidate's life: lead, write with the epoch while believing (HELD), step down at the first change or after its tenure, join again. */
    private static void lead(ZkLeaderElection election, List<Belief> beliefs, List<String> refused, List<Leadership> current,
            FencedResource resource) {
        while (!stop) {
            Leadership leadership;
            try {
                Optional<Leadership> got = election.awaitLeadership(Duration.ofSeconds(1));
                if (got.isEmpty()) {
                    continue;
                }
                leadership = got.get();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                continue;                      // the connection was cut while joining: join again
            }
            long from = System.nanoTime();
            long[] to = {Long.MAX_VALUE};
            leadership.addListener((l, state) -> {
                if (state != LeaseState.HELD) {
                    synchronized (to) {
                        to[0] = Math.min(to[0], System.nanoTime());
                    }
                }
            });
            current.add(leadership);
            try {
                long until = from + TimeUnit.MILLISECONDS.toNanos(TENURE_MS);
                while (leadership.isValid() && System.nanoTime() < until && !stop) {
                    long epoch = leadership.epoch();
                    synchronized (resource) {
                        if (leadership.isValid()) {
                            if (!resource.enter(epoch)) {
                                refused.add(leadership.toString());
                            }
                            resource.exit(epoch);
                        }
                    }
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                synchronized (to) {
                    to[0] = Math.min(to[0], System.nanoTime());
                    beliefs.add(new Belief(election.participantId(), leadership.epoch(), from, to[0]));
                }
                current.remove(leadership);
                leadership.close();
            }
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    /**
     * Liveness: the leader dies (its connection frozen for good, as a killed process's) while
     * two candidates wait; the next leads within the session timeout, a tick of the server's
     * session expiry, and one notification, with a larger epoch; an observer on another client
     * hears it.
     */
    @Example
    void someoneLeadsAgainWithinTheSessionTimeoutAndOneNotification() throws Exception {
        String path = "/elections/liveness-" + System.nanoTime();
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework dying = ZkTesting.client(proxy.connectString(), SESSION_MS);
        CuratorFramework second = ZkTesting.client(server.getConnectString(), SESSION_MS);
        CuratorFramework third = ZkTesting.client(server.getConnectString(), SESSION_MS);
        CuratorFramework observer = ZkTesting.client(server.getConnectString(), SESSION_MS);
        try {
            Leadership first = new ZkLeaderElection(dying, path, "dying").awaitLeadership();
            CompletableFuture<Leadership> next = new ZkLeaderElection(second, path, "second").leadershipAsync();
            // the queue's order is the order in which the server made the nodes: two clients' creates sent
            // back to back may land either way round, so the third joins only once the second is queued
            Await.until("the second queued", LONG, () -> ZkTesting.children(second, path).size() == 2);
            CompletableFuture<Leadership> after = new ZkLeaderElection(third, path, "third").leadershipAsync();
            List<Optional<LeaderInfo>> heard = new CopyOnWriteArrayList<>();
            LeaderSubscription watching = new ZkLeaderElection(observer, path, "observer").onLeaderChange(heard::add);
            Await.until("both queued and the observer told", LONG,
                    () -> ZkTesting.children(second, path).size() == 3 && heard.size() == 1);

            long diedAt = System.nanoTime();
            proxy.freeze();
            Leadership successor;
            try {
                successor = next.get(LONG.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                ZkLeaderElection looking = new ZkLeaderElection(observer, path, "observer");
                throw new AssertionError("the second candidate never led; the leader now: " + looking.currentLeader()
                        + ", the queue: " + ZkTesting.children(observer, path) + " (a node made after the freeze is a"
                        + " candidate that joined again on a new session)", e);
            }
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - diedAt);
            long bound = SESSION_MS + TICK_MS + Math.min(Await.scaled(NOTICE_SLACK).toMillis(), SESSION_MS - TICK_MS);

            LOG.info("the next leader led {} ms after the leader died (session {} ms, tick {} ms, bound {} ms)", tookMs, SESSION_MS,
                    TICK_MS, bound);
            assertTrue(tookMs <= bound, "the next leader led " + tookMs + " ms after the leader died; bound " + bound + " ms");
            assertEquals(LeaseState.HELD, successor.state());
            assertTrue(successor.epoch() > first.epoch());
            Await.until("the observer heard the successor", LONG,
                    () -> heard.get(heard.size() - 1).map(l -> l.epoch() == successor.epoch()).orElse(false));
            assertTrue(!after.isDone(), "the third candidate still waits");
            watching.close();
            successor.close();
            after.get(LONG.toMillis(), TimeUnit.MILLISECONDS).close();
        } finally {
            proxy.heal();
            observer.close();
            third.close();
            second.close();
            dying.close();
            proxy.close();
        }
    }
}
