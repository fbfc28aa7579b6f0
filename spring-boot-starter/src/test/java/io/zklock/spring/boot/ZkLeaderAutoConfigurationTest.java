package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.zklock.leader.LeaderInfo;
import io.zklock.spring.integration.ZkLeaderInitiator;
import io.zklock.testing.Await;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;

/** The leader election's auto-configuration through Spring Boot's ApplicationContextRunner, against a real server. */
class ZkLeaderAutoConfigurationTest {
    private static final Duration LONG = Await.scaled(Duration.ofSeconds(30));
    private static TestingServer server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLeaderAutoConfiguration.class))
            .withPropertyValues("zklock.connect-string=" + server.getConnectString(), "zklock.session-timeout=4s");

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    /** Without zklock.leader.path, nothing joins an election. */
    @Test
    void noPathNoElection() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLeaderInitiator.class));
    }

    /**
     * Three instances with zklock.leader.path: one leads, under the participant ids and role
     * configured; when the leader's application closes, another instance leads.
     */
    @Test
    void threeInstancesElectOneLeaderAndTheLeadMovesWhenItCloses() {
        ApplicationContextRunner app = runner.withPropertyValues("zklock.leader.path=/elections/app", "zklock.leader.role=orders");
        app.withPropertyValues("zklock.leader.participant-id=a").run(a ->
            app.withPropertyValues("zklock.leader.participant-id=b").run(b ->
                app.withPropertyValues("zklock.leader.participant-id=c").run(c -> {
                    List<AssertableApplicationContext> apps = List.of(a, b, c);
                    for (AssertableApplicationContext each : apps) {
                        assertThat(each).hasNotFailed().hasSingleBean(ZkLeaderInitiator.class);
                        assertThat(each.getBean(ZkLeaderInitiator.class).getContext().getRole()).isEqualTo("orders");
                    }
                    Await.until("one leader", LONG, () -> leaders(apps).size() == 1
                            && a.getBean(ZkLeaderInitiator.class).getElection().participants().size() == 3);
                    AssertableApplicationContext leader = leaders(apps).get(0);
                    LeaderInfo info = a.getBean(ZkLeaderInitiator.class).getElection().currentLeader().orElseThrow();
                    assertThat(info.participantId()).isEqualTo(leader.getBean(ZkLeaderInitiator.class).getElection().participantId());

                    List<AssertableApplicationContext> rest = new ArrayList<>();
                    for (AssertableApplicationContext each : apps) {
                        if (each != leader) {
                            rest.add(each);
                        }
                    }
                    leader.close();
                    Await.until("another leads", LONG, () -> leaders(rest).size() == 1);
                    assertThat(rest.get(0).getBean(ZkLeaderInitiator.class).getElection().participants()).hasSize(2);
                })));
    }

    private static List<AssertableApplicationContext> leaders(List<AssertableApplicationContext> apps) {
        return apps.stream().filter(app -> app.isActive() && app.getBean(ZkLeaderInitiator.class).getContext().isLeader()).toList();
    }

    /** An application's own initiator (ours, or Spring Integration's lock-registry one) makes the starter step aside. */
    @Test
    void stepsAsideForTheApplicationsOwnInitiator() {
        ApplicationContextRunner app = runner.withPropertyValues("zklock.leader.path=/elections/own");
        app.withBean("mine", LockRegistryLeaderInitiator.class, () -> new LockRegistryLeaderInitiator(new DefaultLockRegistry()))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLeaderInitiator.class));
        app.withBean("mine", ZkLeaderInitiator.class,
                        () -> new ZkLeaderInitiator(runnerClient(), "/elections/own", new DefaultCandidate("mine", "leader")))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(ZkLeaderInitiator.class)
                        .getBean(ZkLeaderInitiator.class).extracting(i -> i.getElection().participantId()).isEqualTo("mine"));
    }

    private CuratorFramework client;

    private CuratorFramework runnerClient() {
        if (client == null) {
            client = io.zklock.testing.ZkTesting.client(server.getConnectString(), 4_000);
        }
        return client;
    }

    /** An application's Candidate bean is the one elected; a bad path fails the start-up naming the property. */
    @Test
    void usesTheApplicationsCandidateAndRefusesABadPath() {
        runner.withPropertyValues("zklock.leader.path=/elections/cand")
                .withBean(Candidate.class, () -> new DefaultCandidate("custom", "billing"))
                .run(context -> {
                    ZkLeaderInitiator initiator = context.getBean(ZkLeaderInitiator.class);
                    assertThat(initiator.getElection().participantId()).isEqualTo("custom");
                    assertThat(initiator.getContext().getRole()).isEqualTo("billing");
                });
        runner.withPropertyValues("zklock.leader.path=elections/relative")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(InvalidZkLockPropertyException.class).hasMessageContaining("zklock.leader.path"));
    }

    /** Without Spring Integration on the class path there is no initiator, and the rest still works. */
    @Test
    void withoutSpringIntegrationNoInitiator() {
        runner.withPropertyValues("zklock.leader.path=/elections/none")
                .withClassLoader(new FilteredClassLoader(Candidate.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLeaderInitiator.class)
                        .hasSingleBean(CuratorFramework.class));
    }
}
