package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.zklock.leader.LeaderInfo;
import io.zklock.leader.ZkLeaderElection;
import io.zklock.spring.integration.ZkLeaderInitiator;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Three instances of an application with the starter and {@code zklock.leader.path} set, the
 * first a process of its own ({@link LeaderInstance}): it leads, it is killed (no context
 * close, no step-down: only the server's expiry of its session frees the leadership), and
 * another instance leads within the session timeout, a server tick and a margin, with a larger
 * epoch.
 */
class ZkLeaderKilledInstanceTest {
    private static final Logger LOG = LoggerFactory.getLogger(ZkLeaderKilledInstanceTest.class);
    private static final int SESSION_MS = 2_000;
    private static final int TICK_MS = 200;
    private static final String PATH = "/elections/killed";
    private static final Duration START_UP = Await.scaled(Duration.ofSeconds(60));
    private static final Duration LONG = Await.scaled(Duration.ofSeconds(30));

    @Test
    void theLeadMovesWhenTheLeadersProcessIsKilled() throws Exception {
        try (TestingServer server = new TestingServer(new InstanceSpec((File) null, -1, -1, -1, true, -1, TICK_MS, -1), true);
                CuratorFramework observer = ZkTesting.client(server.getConnectString(), SESSION_MS)) {
            long began = System.nanoTime();
            Process killed = instance(server.getConnectString(), "killed");
            try {
                ZkLeaderElection election = new ZkLeaderElection(observer, PATH, "observer");
                Await.until("the instance in its own process leads", START_UP,
                        () -> election.currentLeader().map(l -> l.participantId().equals("killed")).orElse(false));
                LOG.info("the instance in its own process led {} ms after it was started", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
                ApplicationContextRunner runner = new ApplicationContextRunner()
                        .withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLeaderAutoConfiguration.class))
                        .withPropertyValues("zklock.connect-string=" + server.getConnectString(), "zklock.session-timeout=" + SESSION_MS + "ms",
                                "zklock.leader.path=" + PATH);
                runner.withPropertyValues("zklock.leader.participant-id=b").run(b ->
                    runner.withPropertyValues("zklock.leader.participant-id=c").run(c -> {
                        List<AssertableApplicationContext> rest = List.of(b, c);
                        Await.until("three candidates", LONG, () -> election.participants().size() == 3);
                        LeaderInfo before = election.currentLeader().orElseThrow();
                        assertThat(leaders(rest)).isEmpty();

                        long killedAt = System.nanoTime();
                        killed.destroyForcibly();
                        Await.until("another instance leads", LONG, () -> leaders(rest).size() == 1);
                        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                        long bound = SESSION_MS + TICK_MS + Await.scaled(Duration.ofMillis(1_500)).toMillis();   // less than a second session timeout more
                        LOG.info("another instance led {} ms after the leader's process was killed (bound {} ms)", tookMs, bound);
                        assertThat(tookMs).as("ms from the kill to the next leader (bound %d ms)", bound).isLessThanOrEqualTo(bound);

                        ZkLeaderInitiator next = leaders(rest).get(0).getBean(ZkLeaderInitiator.class);
                        LeaderInfo after = election.currentLeader().orElseThrow();
                        assertThat(after.participantId()).isEqualTo(next.getElection().participantId());
                        assertThat(after.epoch()).isGreaterThan(before.epoch());
                        assertThat(election.participants()).hasSize(2).doesNotContain("killed");
                    }));
            } finally {
                killed.destroyForcibly();
                killed.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** A {@link LeaderInstance} in a JVM of its own, on this test's class path; its output goes to a file under target/. */
    private static Process instance(String connectString, String participantId) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        File log = new File("target", "leader-instance-" + participantId + ".log");
        return new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                LeaderInstance.class.getName(), connectString, SESSION_MS + "ms", PATH, participantId)
                .redirectErrorStream(true).redirectOutput(log).start();
    }

    private static List<AssertableApplicationContext> leaders(List<AssertableApplicationContext> apps) {
        return apps.stream().filter(app -> app.getBean(ZkLeaderInitiator.class).getContext().isLeader()).toList();
    }
}
