package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.zklock.spring.integration.ZkLockRegistry;
import io.zklock.spring.integration.ZkRegistryLock;
import io.zklock.testing.Await;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.core.annotation.Order;

/**
 * The starter's client settings (digest credentials, client properties file, namespace, retry,
 * customizers), its per-bean switches, the lost-lock event, its order after Spring Cloud
 * Zookeeper, and its metadata; through ApplicationContextRunner on a real server.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZkLockStarterSettingsTest {
    private static final String SECRET = "s3cr3t-never-shown";
    private static TestingServer server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
            .withPropertyValues("zklock.connect-string=" + server.getConnectString(), "zklock.root=/settings");

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    /**
     * Digest credentials from a file authenticate the client (a node only its user may read is
     * read by it, refused to a client without them), and the password appears in no output;
     * a malformed file fails the start naming the property and the file, not its content.
     */
    @Test
    void digestCredentialsFromAFileAreUsedAndNeverShown(@TempDir Path dir, CapturedOutput output) throws Exception {
        Path file = dir.resolve("digest");
        Files.writeString(file, "locks:" + SECRET + "\n", StandardCharsets.UTF_8);
        runner.withPropertyValues("zklock.auth.digest-file=" + file).run(context -> {
            assertThat(context).hasNotFailed();
            CuratorFramework client = context.getBean(CuratorFramework.class);
            client.create().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath("/settings-secured", new byte[] {1});
            assertThat(client.getData().forPath("/settings-secured")).containsExactly(1);
            try (CuratorFramework stranger = ZkTesting.client(server.getConnectString(), 30_000)) {
                org.junit.jupiter.api.Assertions.assertThrows(KeeperException.NoAuthException.class,
                        () -> stranger.getData().forPath("/settings-secured"));
            }
            client.delete().forPath("/settings-secured");
        });
        Files.writeString(file, SECRET + "\n", StandardCharsets.UTF_8);
        runner.withPropertyValues("zklock.auth.digest-file=" + file).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidZkLockPropertyException.class)
                    .hasMessageContaining("zklock.auth.digest-file").hasMessageContaining(file.toString())
                    .hasMessageNotContaining(SECRET);
        });
        runner.withPropertyValues("zklock.auth.digest-env=ZKLOCK_TEST_NO_SUCH_VARIABLE").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("ZKLOCK_TEST_NO_SUCH_VARIABLE");
        });
        assertThat(output.getAll()).doesNotContain(SECRET);
    }

    /** A ZooKeeper client properties file, a namespace and the retry settings reach the client. */
    @Test
    void clientPropertiesNamespaceAndRetryReachTheClient(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("client.properties");
        Files.writeString(config, "zookeeper.request.timeout=4321\n", StandardCharsets.UTF_8);
        runner.withPropertyValues("zklock.client-config-file=" + config, "zklock.namespace=tenant-a",
                "zklock.retry.base-sleep=250ms", "zklock.retry.max-retries=4", "zklock.retry.max-sleep=2s").run(context -> {
            assertThat(context).hasNotFailed();
            CuratorFramework client = context.getBean(CuratorFramework.class);
            assertThat(client.getZookeeperClient().getZooKeeper().getClientConfig().getProperty("zookeeper.request.timeout"))
                    .isEqualTo("4321");
            assertThat(client.getNamespace()).isEqualTo("tenant-a");
            ExponentialBackoffRetry retry = (ExponentialBackoffRetry) client.getZookeeperClient().getRetryPolicy();
            assertThat(retry.getBaseSleepTimeMs()).isEqualTo(250);
            assertThat(retry.getN()).isEqualTo(4);
            ZkRegistryLock lock = context.getBean(ZkLockRegistry.class).obtain("k");
            lock.lock();
            try (CuratorFramework plain = ZkTesting.client(server.getConnectString(), 30_000)) {
                assertThat(ZkTesting.lockNodesBelow(plain, "/tenant-a/settings/spring-integration")).hasSize(1);
            }
            lock.unlock();
        });
        runner.withPropertyValues("zklock.namespace=/bad").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("zklock.namespace"));
        runner.withPropertyValues("zklock.retry.max-retries=40").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("zklock.retry.max-retries"));
    }

    /** ZkLockCuratorCustomizer beans change the builder before the client starts, in their order, after the properties. */
    @Test
    void customizersAreAppliedInOrderBeforeTheStart() {
        runner.withPropertyValues("zklock.namespace=from-properties")
                .withBean("second", ZkLockCuratorCustomizer.class, () -> new Second())
                .withBean("first", ZkLockCuratorCustomizer.class, () -> new First())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(CuratorFramework.class).getNamespace()).isEqualTo("second");
                });
    }

    @Order(1)
    static final class First implements ZkLockCuratorCustomizer {
        @Override
        public void customize(org.apache.curator.framework.CuratorFrameworkFactory.Builder builder) {
            assertThat(builder.getNamespace()).isEqualTo("from-properties");
            builder.namespace("first");
        }
    }

    @Order(2)
    static final class Second implements ZkLockCuratorCustomizer {
        @Override
        public void customize(org.apache.curator.framework.CuratorFrameworkFactory.Builder builder) {
            assertThat(builder.getNamespace()).isEqualTo("first");
            builder.namespace("second");
        }
    }

    /** zklock.registry.enabled and zklock.shedlock.enabled switch their beans off; the cache capacity is bound. */
    @Test
    void perBeanSwitchesAndTheCacheCapacity() {
        runner.withPropertyValues("zklock.registry.cache-capacity=123").run(context -> {
            assertThat(context.getBean(ZkLockRegistry.class).cacheCapacity()).isEqualTo(123);
            assertThat(context).hasSingleBean(io.zklock.shedlock.ZkLockProvider.class);
        });
        runner.withPropertyValues("zklock.registry.enabled=false", "zklock.shedlock.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockRegistry.class)
                    .doesNotHaveBean(io.zklock.shedlock.ZkLockProvider.class).hasSingleBean(CuratorFramework.class);
        });
        runner.withPropertyValues("zklock.registry.cache-capacity=0").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("zklock.registry.cache-capacity"));
    }

    /** A registry lock lost with its session is published as a ZkLockLostEvent naming its key. */
    @Test
    void aLostLockIsPublishedAsAnApplicationEvent() {
        List<ZkLockLostEvent> events = new CopyOnWriteArrayList<>();
        runner.withBean(ApplicationListener.class, () -> (ApplicationListener<ZkLockLostEvent>) events::add).run(context -> {
            CuratorFramework client = context.getBean(CuratorFramework.class);
            ZkRegistryLock lock = context.getBean(ZkLockRegistry.class).obtain("orders");
            lock.lock();
            long token = lock.fencingToken();
            Sessions.expire(client, server.getConnectString());
            Await.until("the event", java.time.Duration.ofSeconds(30), () -> !events.isEmpty());
            assertThat(events).singleElement().satisfies(e -> {
                assertThat(e.getKind()).isEqualTo(ZkLockLostEvent.Kind.REGISTRY_LOCK);
                assertThat(e.getName()).isEqualTo("orders");
                assertThat(e.getFencingToken()).isEqualTo(token);
            });
            org.junit.jupiter.api.Assertions.assertThrows(java.util.ConcurrentModificationException.class, lock::unlock);
        });
    }

    /**
     * With Spring Cloud Zookeeper on the class path, its auto-configuration runs first and makes
     * the one client (on spring.cloud.zookeeper.connect-string); ours steps aside and the
     * registry locks on that client.
     */
    @Test
    void springCloudZookeepersClientIsTheOneUsed() throws Exception {
        try (TestingServer cloud = new TestingServer(true)) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
                            org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration.class))
                    .withPropertyValues("zklock.connect-string=" + server.getConnectString(), "zklock.root=/cloud",
                            "spring.cloud.zookeeper.connect-string=" + cloud.getConnectString())
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(CuratorFramework.class);
                        CuratorFramework client = context.getBean(CuratorFramework.class);
                        assertThat(context.getBeanNamesForType(CuratorFramework.class)).containsExactly("curatorFramework");
                        assertThat(client.getZookeeperClient().getCurrentConnectionString()).isEqualTo(cloud.getConnectString());
                        ZkRegistryLock lock = context.getBean(ZkLockRegistry.class).obtain("k");
                        lock.lock();
                        try (CuratorFramework onCloud = ZkTesting.client(cloud.getConnectString(), 30_000)) {
                            assertThat(ZkTesting.lockNodesBelow(onCloud, "/cloud/spring-integration")).hasSize(1);
                        }
                        lock.unlock();
                    });
        }
        assertThat(ZkLockAutoConfiguration.SPRING_CLOUD_ZOOKEEPER)
                .isEqualTo(org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration.class.getName());
    }

    /**
     * The jar's metadata: every zklock property documented (a description) in the configuration
     * metadata, and the auto-configurations' conditions in the auto-configuration metadata.
     */
    @Test
    void theMetadataDocumentsEveryProperty() throws Exception {
        String metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        metadata = metadata.substring(metadata.indexOf("\"properties\""));     // not the groups
        if (metadata.contains("\"hints\"")) {
            metadata = metadata.substring(0, metadata.indexOf("\"hints\""));
        }
        List<String> undocumented = new java.util.ArrayList<>();
        List<String> names = new java.util.ArrayList<>();
        java.util.regex.Matcher entry = java.util.regex.Pattern
                .compile("\\{[^{}]*\"name\"\\s*:\\s*\"([^\"]+)\"[^{}]*\\}").matcher(metadata);
        while (entry.find()) {
            String name = entry.group(1);
            names.add(name);
            java.util.regex.Matcher description = java.util.regex.Pattern
                    .compile("\"description\"\\s*:\\s*\"([^\"]*)\"").matcher(entry.group());
            if (!description.find() || description.group(1).isBlank() || description.group(1).contains("{@")) {
                undocumented.add(name);
            }
        }
        assertThat(undocumented).isEmpty();
        assertThat(names).contains("zklock.auth.digest-file", "zklock.auth.digest-env", "zklock.client-config-file",
                "zklock.namespace", "zklock.retry.max-retries", "zklock.registry.cache-capacity",
                "zklock.registry.enabled", "zklock.shedlock.enabled", "zklock.metrics.enabled", "zklock.metrics.path-tags",
                "management.health.zklock.enabled");
        java.util.Properties conditions = new java.util.Properties();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-autoconfigure-metadata.properties")) {
            assertThat(in).as("spring-autoconfigure-processor's output").isNotNull();
            conditions.load(in);
        }
        assertThat(conditions.getProperty("io.zklock.spring.boot.ZkLockAutoConfiguration.AutoConfigureAfter"))
                .isEqualTo(ZkLockAutoConfiguration.SPRING_CLOUD_ZOOKEEPER);
        assertThat(Map.copyOf(conditions)).containsKey("io.zklock.spring.boot.ZkLockHealthAutoConfiguration.ConditionalOnClass");
    }
}
