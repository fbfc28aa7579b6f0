package io.zklock.spring.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.zklock.testing.Await;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.SmartLifecycleRoleController;

/**
 * {@link ZkLeaderInitiator} on a real server, three instances of one role, each with the
 * endpoint a {@link SmartLifecycleRoleController} starts on the leader only: one endpoint runs
 * at a time, it moves when the leader stops or its session expires, and standbys send nothing
 * while they wait.
 */
class ZkLeaderInitiatorTest {
    private static final Duration LONG = Await.scaled(Duration.ofSeconds(30));
    private static final String ROLE = "orders";

    private TestingServer server;
    private final List<CuratorFramework> clients = new ArrayList<>();
    private final List<ZkLeaderInitiator> initiators = new ArrayList<>();
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();

    /** An endpoint of the role: a lifecycle the role controller starts and stops. */
    static final class Endpoint implements SmartLifecycle {
        private volatile boolean running;

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public boolean isAutoStartup() {
            return false;
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
        for (int i = 0; i < 3; i++) {
            CuratorFramework client = ZkTesting.client(server.getConnectString(), 4_000);
            clients.add(client);
            Endpoint endpoint = new Endpoint();
            endpoints.add(endpoint);
            SmartLifecycleRoleController controller = new SmartLifecycleRoleController(List.of(ROLE), List.of(endpoint));
            ZkLeaderInitiator initiator = new ZkLeaderInitiator(client, "/elections/orders", new DefaultCandidate("node-" + i, ROLE));
            initiator.setApplicationEventPublisher(event -> {
                events.add((AbstractLeaderEvent) event);
                controller.onApplicationEvent((AbstractLeaderEvent) event);
            });
            initiators.add(initiator);
        }
    }

    @AfterEach
    void stop() throws Exception {
        initiators.forEach(ZkLeaderInitiator::destroy);
        clients.forEach(CuratorFramework::close);
        server.close();
    }

    private int running() {
        return (int) endpoints.stream().filter(Endpoint::isRunning).count();
    }

    private int leader() {
        for (int i = 0; i < initiators.size(); i++) {
            if (initiators.get(i).getContext().isLeader()) {
                return i;
            }
        }
        return -1;
    }

    /** One instance leads and runs the role's endpoint; stopping it revokes it and the next instance takes over. */
    @Test
    void oneEndpointRunsAndMovesWhenTheLeaderStops() throws Exception {
        initiators.forEach(ZkLeaderInitiator::start);
        Await.until("a leader runs the endpoint", LONG, () -> running() == 1 && leader() >= 0);
        int first = leader();
        assertTrue(endpoints.get(first).isRunning());
        assertEquals(OnGrantedEvent.class, events.get(0).getClass());
        assertEquals(ROLE, events.get(0).getRole());
        long epoch = initiators.get(first).getLeadership().orElseThrow().epoch();

        initiators.get(first).stop();
        assertFalse(endpoints.get(first).isRunning(), "the stopped leader's endpoint still runs");
        assertTrue(events.stream().anyMatch(e -> e instanceof OnRevokedEvent), "no OnRevokedEvent");
        Await.until("another leads", LONG, () -> running() == 1 && leader() >= 0 && leader() != first);
        assertTrue(initiators.get(leader()).getLeadership().orElseThrow().epoch() > epoch);
    }

    /** The leader's session expires: it is revoked when its lease turns LOST (not at a poll), joins again, and another leads. */
    @Test
    void aLeaderWhoseSessionExpiresIsRevokedAndAnotherLeads() throws Exception {
        initiators.forEach(ZkLeaderInitiator::start);
        Await.until("a leader", LONG, () -> running() == 1 && leader() >= 0);
        int first = leader();

        Sessions.expire(clients.get(first), server.getConnectString());
        Await.until("the expired leader revoked", LONG, () -> !endpoints.get(first).isRunning());
        Await.until("another leads", LONG, () -> running() == 1 && leader() >= 0 && leader() != first);
        Await.until("the expired leader is a candidate again", LONG,
                () -> initiators.get(first).getElection().participants().contains("node-" + first));
        assertEquals(3, initiators.get(leader()).getElection().participants().size());
    }

    /** yield() hands the role to the next instance and queues at the back; standbys send no request while they wait. */
    @Test
    void yieldHandsOverAndStandbysStayQuiet() throws Exception {
        initiators.forEach(ZkLeaderInitiator::start);
        Await.until("a leader and two candidates", LONG, () -> running() == 1 && leader() >= 0
                && initiators.get(0).getElection().participants().size() == 3);
        int first = leader();
        ZkProbe probe = new ZkProbe(server.getPort());
        Set<Long> standbys = new java.util.HashSet<>();
        for (int i = 0; i < 3; i++) {
            if (i != first) {
                standbys.add(clients.get(i).getZookeeperClient().getZooKeeper().getSessionId());
            }
        }
        probe.awaitQuiet(standbys, Duration.ofMillis(300), LONG);   // what joining sends (their watches), sent
        for (int i = 0; i < 3; i++) {
            if (i != first) {
                clients.get(i).checkExists().forPath("/");   // traffic just before the window: no ping due within it
            }
        }
        Set<Long> active = probe.sessionsActiveDuring(standbys, () -> Thread.sleep(1_000));   // under a third of the session: no ping
        assertEquals(Set.of(), active, "standbys sent requests while the leader led");

        initiators.get(first).getContext().yield();
        Await.until("another leads", LONG, () -> running() == 1 && leader() >= 0 && leader() != first);
        Await.until("the yielder queued at the back", LONG, () -> {
            List<String> queue = initiators.get(first).getElection().participants();
            return queue.size() == 3 && queue.get(2).equals("node-" + first);
        });
    }
}
