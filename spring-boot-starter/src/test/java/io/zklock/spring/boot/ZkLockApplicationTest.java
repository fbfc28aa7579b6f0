package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.zklock.micrometer.ZkLockMetrics;
import io.zklock.spring.integration.ZkLockRegistry;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Boot application with the starter, Actuator over HTTP and Micrometer Tracing's test
 * tracer, on a real ZooKeeper reached through a proxy that can cut the connection: what a user
 * of the starter sees of a contended lock, in a trace, on the zklock endpoint, and in health.
 */
@SpringBootTest(classes = ZkLockApplicationTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "zklock.root=/shop",
        "spring.cloud.zookeeper.enabled=false",     // its auto-configuration is on the test class path, and would make the client
        "zklock.session-timeout=20s",
        "management.endpoints.web.exposure.include=health,zklock",
        "management.endpoint.health.show-details=always",
        "management.tracing.sampling.probability=1.0"})
class ZkLockApplicationTest {
    private static TestingServer server;
    private static FaultProxy proxy;

    @Autowired
    private ZkLockRegistry registry;
    @Autowired
    private SimpleTracer tracer;
    @Autowired
    private ObservationRegistry observations;
    @Autowired
    private ZkLockMetrics metrics;
    @LocalServerPort
    private int port;

    private final HttpClient http = HttpClient.newHttpClient();

    /** The application: Boot's auto-configuration (the starter's among it) and the test tracer as its tracer. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        SimpleTracer tracer() {
            return new SimpleTracer();
        }

        /** The proxy may hand the client the server's own address from its config: the client keeps the proxy's. */
        @Bean
        ZkLockCuratorCustomizer throughTheProxy() {
            return builder -> builder.ensembleTracker(false);
        }
    }

    @DynamicPropertySource
    static void zookeeper(DynamicPropertyRegistry properties) throws Exception {
        server = new TestingServer(true);
        proxy = FaultProxy.to(server.getConnectString());
        properties.add("zklock.connect-string", proxy::connectString);
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        server.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A contended executeLocked: the waiter's wait is a span of its caller's trace that names the
     * holder (its thread, and the trace it held the lock in); while it waits, /actuator/zklock
     * lists the holder and the waiter; revocation over HTTP is refused (read-only by default).
     */
    @Test
    void aContendedExecuteLockedShowsAWaitSpanNamingTheHolderAndTheEndpointListsIt() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        String[] holderTrace = new String[1];
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            Span job = tracer.nextSpan().name("nightly-report").start();
            holderTrace[0] = job.context().traceId();
            try (Tracer.SpanInScope scope = tracer.withSpan(job)) {
                registry.executeLocked("report", () -> {
                    holding.countDown();
                    letGo.await();
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                job.end();
            }
        }, runnable -> new Thread(runnable, "report-holder").start());
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
            try {
                Observation.createNotStarted("checkout", observations)
                        .observeChecked(() -> registry.executeLocked("report", Duration.ofMinutes(1), () -> { }));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> new Thread(runnable, "checkout-worker").start());
        Await.until("the waiter waits", Duration.ofSeconds(30), () -> metrics.requestsWaiting() == 1);

        HttpResponse<String> locks = get("/actuator/zklock");
        assertThat(locks.statusCode()).isEqualTo(200);
        assertThat(locks.body()).contains("\"path\":\"/shop/spring-integration/report\"").contains("report-holder (pid "
                + ProcessHandle.current().pid());
        assertThat(get("/actuator/zklock/shop/spring-integration/report").body()).contains("\"waiters\":[{").contains("checkout-worker");
        HttpResponse<String> revoke = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/actuator/zklock/shop/spring-integration/report")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(revoke.statusCode()).as("a write of a read-only endpoint").isGreaterThanOrEqualTo(400);
        assertThat(get("/actuator/zklock/shop/spring-integration/report").body()).contains("\"revocationRequestedBy\":null");

        letGo.countDown();
        holder.get(30, TimeUnit.SECONDS);
        waiter.get(30, TimeUnit.SECONDS);

        List<SimpleSpan> spans = new ArrayList<>(tracer.getSpans());
        SimpleSpan checkout = spans.stream().filter(s -> "checkout".equals(s.getName())).findFirst().orElseThrow();
        List<SimpleSpan> waits = spans.stream().filter(s -> "zklock wait mutex".equals(s.getName())
                && s.getTraceId().equals(checkout.getTraceId())).toList();
        assertThat(waits).as("the checkout's wait spans among %s", spans).hasSize(1);
        SimpleSpan wait = waits.get(0);
        assertThat(wait.getParentId()).isEqualTo(checkout.getSpanId());
        assertThat(wait.getTags()).containsEntry("zklock.outcome", "granted")
                .containsEntry("zklock.path", "/shop/spring-integration/report")
                .containsEntry("zklock.holder.trace_id", holderTrace[0]);
        assertThat(wait.getTags().get("zklock.holder")).startsWith("report-holder (pid " + ProcessHandle.current().pid());
        // the hold's observation stops when its lease is told RELEASED, which may come after close() returned
        Await.until("the checkout's hold span, named at its stop", Duration.ofSeconds(30), () -> new ArrayList<>(tracer.getSpans())
                .stream().anyMatch(s -> "zklock hold mutex".equals(s.getName()) && s.getTraceId().equals(checkout.getTraceId())));
    }

    /** A 2 s cut of the client's connection: health stays UP throughout (the session lives), showing the connection SUSPENDED. */
    @Test
    void healthStaysUpThroughATwoSecondCut() throws Exception {
        HttpResponse<String> before = get("/actuator/health");
        assertThat(before.statusCode()).isEqualTo(200);
        assertThat(before.body()).contains("\"zklock\":{").contains("\"leasesHeld\":");
        List<String> during = new ArrayList<>();
        proxy.cut();
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < end) {
                HttpResponse<String> health = get("/actuator/health");
                assertThat(health.statusCode()).as("health during the cut: %s", health.body()).isEqualTo(200);
                assertThat(health.body()).contains("\"status\":\"UP\"");
                during.add(health.body());
                Thread.sleep(100);
            }
        } finally {
            proxy.heal();
        }
        assertThat(during).anyMatch(body -> body.contains("\"connection\":\"SUSPENDED\""));
        Await.until("the client reconnects", Duration.ofSeconds(30), () -> {
            try {
                return get("/actuator/health").body().contains("\"connection\":\"RECONNECTED\"");
            } catch (Exception e) {
                return false;
            }
        });
    }
}
