package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zklock.core.LockAdmin;
import io.zklock.micrometer.ZkLockMetrics;
import io.zklock.shedlock.ZkLockProvider;
import io.zklock.spring.integration.ZkLockRegistry;
import io.zklock.spring.integration.ZkRegistryLock;
import io.zklock.testing.Await;
import io.zklock.testing.QuietPorts;
import io.zklock.testing.ZkTesting;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/** The auto-configuration through Spring Boot's ApplicationContextRunner, against a real server. */
class ZkLockAutoConfigurationTest {
    private static final org.springframework.beans.factory.ObjectProvider<ZkLockCuratorCustomizer> NO_CUSTOMIZERS =
            new org.springframework.beans.factory.support.StaticListableBeanFactory().getBeanProvider(ZkLockCuratorCustomizer.class);
    private static TestingServer server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
                    ZkLockMetricsAutoConfiguration.class, ZkLockHealthAutoConfiguration.class))
            .withPropertyValues("zklock.connect-string=" + server.getConnectString(), "zklock.root=/boot");

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(QuietPorts.next(), true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    /** With only a connect string: a connected client, LockAdmin and a working registry under <root>/spring-integration. */
    @Test
    void makesAClientLockAdminAndARegistryUnderTheRoot() {
        runner.withPropertyValues("zklock.connection-timeout=7s").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(CuratorFramework.class)
                    .hasSingleBean(LockAdmin.class).hasSingleBean(ZkLockRegistry.class);
            CuratorFramework client = context.getBean(CuratorFramework.class);
            assertThat(client.getZookeeperClient().isConnected()).isTrue();
            assertThat(client.getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(7_000);
            ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
            assertThat(registry.root()).isEqualTo("/boot/spring-integration");
            ZkRegistryLock lock = registry.obtain("job");
            assertThat(lock.tryLock()).isTrue();
            assertThat(context.getBean(LockAdmin.class).status("/boot/spring-integration/job").holders()).hasSize(1);
            lock.unlock();
        });
    }

    /** A CuratorFramework the application defines is the one used; the starter makes none. */
    @Test
    void usesTheApplicationsOwnClient() throws Exception {
        try (CuratorFramework own = ZkTesting.client(server.getConnectString(), 30_000)) {
            runner.withPropertyValues("zklock.connect-string=127.0.0.1:1")   // never tried
                    // no destroy method: the test closes it, after checking the starter did not
                    .withBean(CuratorFramework.class, () -> own,
                            bd -> ((org.springframework.beans.factory.support.AbstractBeanDefinition) bd).setDestroyMethodName(""))
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(CuratorFramework.class);
                        assertThat(context.getBean(CuratorFramework.class)).isSameAs(own);
                        ZkRegistryLock lock = context.getBean(ZkLockRegistry.class).obtain("mine");
                        lock.lock();
                        assertThat(ZkTesting.lockNodesBelow(own, "/boot/spring-integration")).hasSize(1);
                        lock.unlock();
                    });
            assertThat(own.getZookeeperClient().isConnected()).as("the application's client is not closed").isTrue();
        }
    }

    /** Without Spring Integration on the class path there is no registry, and the rest still works. */
    @Test
    void noRegistryWithoutSpringIntegration() {
        runner.withClassLoader(new FilteredClassLoader(ExpirableLockRegistry.class)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockRegistry.class).hasSingleBean(LockAdmin.class);
        });
    }

    /** With ShedLock on the class path, a ZkLockProvider under <root>/shedlock that locks; an application's own LockProvider wins; none without ShedLock. */
    @Test
    void makesAShedLockProviderWhenShedLockIsPresent() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ZkLockProvider.class);
            LockProvider provider = context.getBean(LockProvider.class);
            LockConfiguration job = new LockConfiguration(Instant.now(), "nightly", Duration.ofSeconds(30), Duration.ZERO);
            Optional<SimpleLock> first = provider.lock(job);
            assertThat(first).isPresent();
            assertThat(provider.lock(new LockConfiguration(Instant.now(), "nightly", Duration.ofSeconds(30), Duration.ZERO)))
                    .as("a second lock while the first is held").isEmpty();
            CuratorFramework client = context.getBean(CuratorFramework.class);
            assertThat(client.checkExists().forPath("/boot/shedlock")).isNotNull();
            first.get().unlock();
        });
        LockProvider own = configuration -> Optional.empty();
        runner.withBean(LockProvider.class, () -> own).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockProvider.class);
            assertThat(context.getBean(LockProvider.class)).isSameAs(own);
        });
        runner.withClassLoader(new FilteredClassLoader(LockProvider.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockProvider.class));
    }

    /** A MeterRegistry bean gets zklock's meters bound; without one, or without zklock-micrometer, no binding. */
    @Test
    void metricsAreBoundOnlyWhenAMeterRegistryExists() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ZkLockMetrics.class);
            ZkRegistryLock lock = context.getBean(ZkLockRegistry.class).obtain("metered");
            lock.lock();
            lock.unlock();
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.find(ZkLockMetrics.ACQUIRE).timers()).isNotEmpty();
            assertThat(meters.find(ZkLockMetrics.ACQUIRE).timers().stream().mapToLong(t -> t.count()).sum()).isEqualTo(1);
        });
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockMetrics.class));
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withClassLoader(new FilteredClassLoader(ZkLockMetrics.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockMetrics.class));
    }

    /** The properties bind with their documented defaults. */
    @Test
    void propertiesHaveTheDocumentedDefaults() {
        ZkLockProperties defaults = new ZkLockProperties();
        assertThat(defaults.getConnectString()).isEqualTo("localhost:2181");
        assertThat(defaults.getRoot()).isEqualTo("/zklock");
        assertThat(defaults.getSessionTimeout()).hasSeconds(60);
        assertThat(defaults.getConnectionTimeout()).hasSeconds(15);
        runner.withPropertyValues("zklock.session-timeout=5s", "zklock.root=/other").run(context -> {
            ZkLockProperties bound = context.getBean(ZkLockProperties.class);
            assertThat(bound.getSessionTimeout()).hasSeconds(5);
            assertThat(context.getBean(ZkLockRegistry.class).root()).isEqualTo("/other/spring-integration");
        });
        runner.withPropertyValues("zklock.root=/").run(context ->
                assertThat(context.getBean(ZkLockRegistry.class).root()).isEqualTo("/spring-integration"));
    }

    /**
     * A bad setting fails the start with one line naming the property and its value, reported
     * by the failure analyzer found through spring.factories: a blank connect string, a root
     * that is not a valid path or is under /zookeeper, a timeout that is empty, zero or too long.
     */
    @Test
    void aBadSettingFailsTheStartWithOneLineNamingTheProperty() {
        assertBadSetting("zklock.connect-string", "zklock.connect-string=", "zklock.connect-string = '' is not valid: it is blank");
        assertBadSetting("zklock.root", "zklock.root=/x/", "zklock.root = '/x/' is not valid: it is not a valid ZooKeeper path");
        assertBadSetting("zklock.root", "zklock.root=relative", "zklock.root = 'relative' is not valid: it is not a valid ZooKeeper path");
        assertBadSetting("zklock.root", "zklock.root=/zookeeper/locks", "zklock.root = '/zookeeper/locks' is not valid: /zookeeper belongs to ZooKeeper");
        assertBadSetting("zklock.connection-timeout", "zklock.connection-timeout=0s", "zklock.connection-timeout = 'PT0S' is not valid: it must be positive");
        assertBadSetting("zklock.session-timeout", "zklock.session-timeout=30d", "zklock.session-timeout = 'PT720H' is not valid: it must be positive and at most");
    }

    /** An empty timeout setting keeps the default, and a null one set on the properties is refused naming it: never a NullPointerException. */
    @Test
    void anEmptyOrNullTimeoutIsNeverANullPointerException() {
        runner.withPropertyValues("zklock.session-timeout=", "zklock.connection-timeout=").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ZkLockProperties.class).getSessionTimeout()).hasSeconds(60);
            assertThat(context.getBean(ZkLockProperties.class).getConnectionTimeout()).hasSeconds(15);
        });
        ZkLockProperties properties = new ZkLockProperties();
        properties.setConnectString(server.getConnectString());
        properties.setSessionTimeout(null);
        assertThatThrownBy(() -> new ZkLockAutoConfiguration.ClientConfiguration().zkLockCuratorFramework(properties, NO_CUSTOMIZERS))
                .isInstanceOf(InvalidZkLockPropertyException.class)
                .hasMessage("zklock.session-timeout has no value is not valid: it is missing: give a duration, e.g. 15s");
        properties.setSessionTimeout(Duration.ofSeconds(30));
        properties.setConnectionTimeout(null);
        assertThatThrownBy(() -> new ZkLockAutoConfiguration.ClientConfiguration().zkLockCuratorFramework(properties, NO_CUSTOMIZERS))
                .isInstanceOf(InvalidZkLockPropertyException.class).hasMessageStartingWith("zklock.connection-timeout has no value");
    }

    private void assertBadSetting(String property, String setting, String message) {
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).as(setting).hasFailed();
            Throwable failure = context.getStartupFailure();
            Throwable root = failure;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            assertThat(root).as(setting).isInstanceOf(InvalidZkLockPropertyException.class).hasMessageStartingWith(message);
            FailureAnalysis analysis = analyzer(InvalidZkLockPropertyFailureAnalyzer.class).analyze(failure);
            assertThat(analysis).as(setting).isNotNull();
            assertThat(analysis.getDescription()).startsWith(message).doesNotContain("\n");
            assertThat(analysis.getAction()).isEqualTo("Set " + property + " to a valid value.");
        });
    }

    private static FailureAnalyzer analyzer(Class<? extends FailureAnalyzer> type) {
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> { }));
        return analyzers.stream().filter(type::isInstance).findFirst().orElseThrow();
    }

    /** A real SpringApplication with a blank connect string prints Spring Boot's failure report with our one line, and no stack of bean creation exceptions. */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aSpringApplicationReportsABlankConnectStringInOneLine(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run("--zklock.connect-string=", "--spring.main.banner-mode=off"))
                .hasRootCauseInstanceOf(InvalidZkLockPropertyException.class);
        assertThat(output.getAll())
                .contains("Description:", "zklock.connect-string = '' is not valid: it is blank",
                        "Action:", "Set zklock.connect-string to a valid value.")
                .doesNotContain("UnsatisfiedDependencyException", "BeanCreationException", "NullPointerException");
    }

    /** The registry steps aside for any LockRegistry the application defines, as the ShedLock provider does for any LockProvider. */
    @Test
    void theRegistryStepsAsideForAnApplicationsLockRegistry() {
        runner.withUserConfiguration(OwnLockRegistry.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class).doesNotHaveBean(ZkLockRegistry.class);
            assertThat(context.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
        });
    }

    /** An application's own LockRegistry, of another kind than ours. */
    @Configuration(proxyBeanMethods = false)
    static class OwnLockRegistry {
        @Bean
        LockRegistry<?> myRegistry() {
            return new DefaultLockRegistry();
        }
    }

    /**
     * With the default zklock.root, the starter's registry and provider live at
     * ZkLockRegistry.DEFAULT_ROOT and ZkLockProvider.DEFAULT_ROOT: a service that makes its own
     * registry with the default root is excluded by the starter's holder of the same key.
     */
    @Test
    void withTheDefaultRootTheStarterLocksWhatTheModulesDefaultsLock() throws Exception {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
                .withPropertyValues("zklock.connect-string=" + server.getConnectString())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ZkLockRegistry.class).root()).isEqualTo(ZkLockRegistry.DEFAULT_ROOT);
                    assertThat(context.getBean(ZkLockProvider.class).root()).isEqualTo(ZkLockProvider.DEFAULT_ROOT);
                    ZkRegistryLock ours = context.getBean(ZkLockRegistry.class).obtain("shared");
                    ours.lock();
                    try (CuratorFramework elsewhere = ZkTesting.client(server.getConnectString(), 30_000)) {
                        ZkRegistryLock theirs = new ZkLockRegistry(elsewhere).obtain("shared");
                        assertThat(CompletableFuture.supplyAsync(theirs::tryLock).get(20, TimeUnit.SECONDS))
                                .as("a default-root registry took a key the starter's registry holds").isFalse();
                    } finally {
                        ours.unlock();
                    }
                });
    }

    /**
     * Two CuratorFramework beans do not break the start: the beans that use the client step
     * aside, and with one marked primary they are made on that one.
     */
    @Test
    void twoClientsDoNotBreakTheStartAndAPrimaryOneIsUsed() throws Exception {
        try (CuratorFramework first = ZkTesting.client(server.getConnectString(), 30_000);
             CuratorFramework second = ZkTesting.client(server.getConnectString(), 30_000)) {
            runner.withBean("first", CuratorFramework.class, () -> first, bd -> bd.setDestroyMethodName(""))
                    .withBean("second", CuratorFramework.class, () -> second, bd -> bd.setDestroyMethodName(""))
                    .run(context -> assertThat(context).hasNotFailed()
                            .doesNotHaveBean(ZkLockRegistry.class).doesNotHaveBean(ZkLockProvider.class)
                            .doesNotHaveBean(LockAdmin.class).doesNotHaveBean(ZkLockHealthIndicator.class));
            runner.withBean("first", CuratorFramework.class, () -> first, bd -> bd.setDestroyMethodName(""))
                    .withBean("second", CuratorFramework.class, () -> second, bd -> {
                        bd.setDestroyMethodName("");
                        bd.setPrimary(true);
                    })
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(ZkLockRegistry.class).hasSingleBean(ZkLockProvider.class)
                                .hasSingleBean(LockAdmin.class).hasSingleBean(ZkLockHealthIndicator.class);
                        ZkRegistryLock lock = context.getBean(ZkLockRegistry.class).obtain("primary");
                        lock.lock();
                        try {
                            String node = context.getBean(LockAdmin.class).status("/boot/spring-integration/primary").holders()
                                    .get(0).nodePath();
                            assertThat(first.checkExists().forPath(node).getEphemeralOwner()).as("the node's session")
                                    .isEqualTo(second.getZookeeperClient().getZooKeeper().getSessionId());
                        } finally {
                            lock.unlock();
                        }
                    });
            assertThat(first.getZookeeperClient().isConnected()).isTrue();
            assertThat(second.getZookeeperClient().isConnected()).isTrue();
        }
    }

    /** With Spring Boot's own metrics auto-configuration making the MeterRegistry, ours runs after it and binds to it. */
    @Test
    void metricsBindToTheRegistrySpringBootMakes() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZkLockMetricsAutoConfiguration.class, ZkLockAutoConfiguration.class,
                        MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class))
                .withPropertyValues("zklock.connect-string=" + server.getConnectString())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(ZkLockMetrics.class).hasSingleBean(MeterRegistry.class);
                    ZkRegistryLock lock = context.getBean(ZkLockRegistry.class).obtain("boot-metered");
                    lock.lock();
                    lock.unlock();
                    assertThat(context.getBean(MeterRegistry.class).find(ZkLockMetrics.ACQUIRE).timers()
                            .stream().mapToLong(t -> t.count()).sum()).isEqualTo(1);
                });
    }

    /**
     * A real SpringApplication whose ensemble is unreachable prints Spring Boot's failure report
     * with our one line and action, and no stack of bean creation exceptions.
     */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aSpringApplicationReportsAnUnreachableEnsembleInOneLine(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run("--zklock.connect-string=127.0.0.1:1",
                "--zklock.connection-timeout=300ms", "--spring.main.banner-mode=off"))
                .hasRootCauseInstanceOf(EnsembleUnreachableException.class);
        assertThat(output.getAll())
                .contains("Description:", "cannot reach ZooKeeper at 127.0.0.1:1 within 300 ms",
                        "Action:", "Start ZooKeeper at 127.0.0.1:1, or set zklock.connect-string")
                .doesNotContain("UnsatisfiedDependencyException", "BeanCreationException");
    }

    /** The application of the start-up failure test: the starter alone. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(ZkLockAutoConfiguration.class)
    static class Application {
    }

    /**
     * The health indicator is UP while the session lives: UP with connection SUSPENDED while the
     * server is away within the session, DOWN once the session is lost, UP again on a new
     * session; it can be switched off.
     */
    @Test
    void healthFollowsTheSession() throws Exception {
        runner.withPropertyValues("zklock.session-timeout=4s").run(context -> {
            HealthIndicator health = context.getBean("zklockHealthIndicator", HealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat(health.health().getDetails()).containsKey("sessionId").containsEntry("connection", "CONNECTED");
            server.stop();
            try {
                Await.until("connection SUSPENDED", java.time.Duration.ofSeconds(20),
                        () -> "SUSPENDED".equals(health.health().getDetails().get("connection")));
                assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                Await.until("health DOWN once the session is lost", java.time.Duration.ofSeconds(30),
                        () -> Status.DOWN.equals(health.health().getStatus()));
            } finally {
                server.restart();
            }
            Await.until("health UP again", java.time.Duration.ofSeconds(30),
                    () -> Status.UP.equals(health.health().getStatus()));
        });
        runner.withPropertyValues("management.health.zklock.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockHealthIndicator.class));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockHealthIndicator.class));
    }

    /**
     * An unreachable ensemble fails the start with EnsembleUnreachableException, whose message is
     * one line naming the connect string; the failure analyzer, found through spring.factories,
     * reports that line.
     */
    @Test
    void anUnreachableEnsembleFailsTheStartWithOneLineNamingIt() {
        runner.withPropertyValues("zklock.connect-string=127.0.0.1:1", "zklock.connection-timeout=300ms").run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            Throwable root = failure;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            assertThat(root).isInstanceOf(EnsembleUnreachableException.class)
                    .hasMessage("cannot reach ZooKeeper at 127.0.0.1:1 within 300 ms");
            FailureAnalysis analysis = analyzer(EnsembleUnreachableFailureAnalyzer.class).analyze(failure);
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).isEqualTo("cannot reach ZooKeeper at 127.0.0.1:1 within 300 ms")
                    .doesNotContain("\n");
            assertThat(analysis.getAction()).contains("zklock.connect-string");
        });
    }
}
