package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zklock.core.Lease;
import io.zklock.core.RevocationResult;
import io.zklock.micrometer.ZkLockMetrics;
import io.zklock.mutex.ZkMutex;
import io.zklock.testing.Await;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * The endpoint, the health's counts and the metrics' scope through Boot's ApplicationContextRunner,
 * against a real server: the endpoint exists only where Boot would expose it, reads the holder
 * and the waiter of a lock, revokes; the health shows the application's leases and waiters;
 * two applications in one JVM each measure their own locks.
 */
class ZkLockEndpointTest {
    private static TestingServer server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLockMetricsAutoConfiguration.class,
                    ZkLockHealthAutoConfiguration.class, ZkLockEndpointAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("zklock.connect-string=" + server.getConnectString(), "zklock.root=/app");

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    /** Like Boot's own endpoints but health, zklock's is made in a web application only once the application exposes it. */
    @Test
    void theEndpointExistsOnlyWhenExposed() {
        WebApplicationContextRunner web = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLockEndpointAutoConfiguration.class))
                .withPropertyValues("zklock.connect-string=" + server.getConnectString(), "zklock.root=/app");
        web.run(context -> assertThat(context).doesNotHaveBean(ZkLockEndpoint.class));
        web.withPropertyValues("management.endpoints.web.exposure.include=zklock")
                .run(context -> assertThat(context).hasSingleBean(ZkLockEndpoint.class));
        web.withPropertyValues("management.endpoints.web.exposure.include=zklock", "management.endpoint.zklock.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(ZkLockEndpoint.class));
    }

    /**
     * The read lists every lock under zklock.root with its holder and waiter (the holder's thread
     * named), one path's status reads the same, and the write asks the holder to let go.
     */
    @Test
    void theEndpointReadsHoldersAndWaitersAndRevokes() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=zklock").run(context -> {
            CuratorFramework client = context.getBean(CuratorFramework.class);
            ZkLockEndpoint endpoint = context.getBean(ZkLockEndpoint.class);
            assertThat(endpoint.locks().locks()).isEmpty();
            CompletableFuture<Lease> holding = new CompletableFuture<>();
            Thread holder = new Thread(() -> {
                try {
                    holding.complete(new ZkMutex(client, "/app/jobs/report").acquire());
                } catch (Throwable t) {
                    holding.completeExceptionally(t);
                }
            }, "report-holder");
            holder.start();
            Lease held = holding.get();
            CompletableFuture<Lease> waiter = new ZkMutex(client, "/app/jobs/report").acquireAsync(Duration.ofMinutes(1));
            Await.until("the waiter is queued", Duration.ofSeconds(30),
                    () -> endpoint.lock(new String[] {"app", "jobs", "report"}).waiters().size() == 1);

            ZkLockEndpoint.LocksDescriptor all = endpoint.locks();
            assertThat(all.roots()).containsExactly("/app");
            assertThat(all.locks()).singleElement().satisfies(lock -> {
                assertThat(lock.path()).isEqualTo("/app/jobs/report");
                assertThat(lock.state()).isEqualTo("LOCK");
                assertThat(lock.holders()).singleElement().satisfies(p -> {
                    assertThat(p.node()).isEqualTo(held.nodePath());
                    assertThat(p.owner()).startsWith("report-holder (pid " + ProcessHandle.current().pid());
                    assertThat(p.mode()).isEqualTo("mutex");
                });
                assertThat(lock.waiters()).hasSize(1);
            });

            Map<String, RevocationResult> revoked = endpoint.revoke(new String[] {"app", "jobs", "report"});
            assertThat(revoked).containsExactly(Map.entry(held.nodePath(), RevocationResult.REQUESTED));
            assertThat(endpoint.lock(new String[] {"app", "jobs", "report"}).holders().get(0).revocationRequestedBy()).isNotNull();
            held.close();
            waiter.get().close();
        });
    }

    /** The health's details count the application's leases held and acquisitions waiting, from the metrics' gauges. */
    @Test
    void healthCountsLeasesAndWaiters() {
        runner.run(context -> {
            CuratorFramework client = context.getBean(CuratorFramework.class);
            ZkLockHealthIndicator health = context.getBean(ZkLockHealthIndicator.class);
            assertThat(health.health().getDetails()).containsEntry("leasesHeld", 0L).containsEntry("requestsWaiting", 0L);
            Lease held = new ZkMutex(client, "/app/h").acquire();
            CompletableFuture<Lease> waiter = new ZkMutex(client, "/app/h").acquireAsync(Duration.ofMinutes(1));
            Await.until("the waiter is counted", Duration.ofSeconds(30),
                    () -> Long.valueOf(1).equals(health.health().getDetails().get("requestsWaiting")));
            Health now = health.health();
            assertThat(now.getStatus()).isEqualTo(Status.UP);
            assertThat(now.getDetails()).containsEntry("leasesHeld", 1L).containsEntry("requestsWaiting", 1L);
            held.close();
            waiter.get().close();
            Await.until("nothing is held", Duration.ofSeconds(30),
                    () -> Long.valueOf(0).equals(health.health().getDetails().get("leasesHeld")));
        });
    }

    /** Two applications in one JVM, each with its client: each one's metrics count its own locks only. */
    @Test
    void twoApplicationsInOneJvmEachMeasureTheirOwnLocks() {
        runner.run(first -> runner.run(second -> {
            new ZkMutex(first.getBean(CuratorFramework.class), "/app/a").acquire().close();
            new ZkMutex(second.getBean(CuratorFramework.class), "/app/b").acquire().close();
            new ZkMutex(second.getBean(CuratorFramework.class), "/app/b").acquire().close();
            assertThat(first.getBean(MeterRegistry.class).get(ZkLockMetrics.ACQUIRE).timer().count()).isEqualTo(1);
            assertThat(second.getBean(MeterRegistry.class).get(ZkLockMetrics.ACQUIRE).timer().count()).isEqualTo(2);
        }));
    }
}
