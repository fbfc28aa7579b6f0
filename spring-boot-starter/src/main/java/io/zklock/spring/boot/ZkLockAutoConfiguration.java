package io.zklock.spring.boot;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.zklock.core.LockAdmin;
import io.zklock.shedlock.ZkLockProvider;
import io.zklock.spring.integration.ZkLockRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.common.PathUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * zklock for a Spring Boot application: a started {@link CuratorFramework} on
 * {@code zklock.connect-string} (unless the application defines its own, which is then used),
 * a {@link LockAdmin}, a {@link ZkLockRegistry} under {@code <zklock.root>/spring-integration}
 * when Spring Integration is on the class path, and a ShedLock {@link ZkLockProvider} under
 * {@code <zklock.root>/shedlock} when ShedLock and {@code zklock-shedlock} are: with the
 * default root, the paths of {@link ZkLockRegistry#DEFAULT_ROOT} and
 * {@link ZkLockProvider#DEFAULT_ROOT}, so services that make their own registry or provider
 * with the defaults lock the same nodes. Each bean steps aside for one the application defines
 * (the registry for any {@code LockRegistry}, the provider for any {@code LockProvider}); the
 * beans that use the client are made only when there is one client, or one marked primary.
 * An application that also uses Spring Cloud Zookeeper gets one client, Spring Cloud's: this
 * auto-configuration runs after Spring Cloud Zookeeper's, and so steps aside for its client.
 * {@code zklock.registry.enabled} and {@code zklock.shedlock.enabled} switch those beans off.
 * Bad settings fail the start with one line naming the property
 * ({@link InvalidZkLockPropertyException}). Metrics and health are in
 * {@link ZkLockMetricsAutoConfiguration} and {@link ZkLockHealthAutoConfiguration}.
 */
@AutoConfiguration(afterName = ZkLockAutoConfiguration.SPRING_CLOUD_ZOOKEEPER)
@ConditionalOnClass(CuratorFramework.class)
@EnableConfigurationProperties(ZkLockProperties.class)
public class ZkLockAutoConfiguration {
    /**
     * Spring Cloud Zookeeper's auto-configuration, which also makes a {@code CuratorFramework}
     * when there is none: ours runs after it, so an application with both has one client, Spring
     * Cloud's (on {@code spring.cloud.zookeeper.connect-string}), which zklock then uses.
     */
    static final String SPRING_CLOUD_ZOOKEEPER = "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration";

    /** Made by Spring Boot. */
    public ZkLockAutoConfiguration() {
    }

    /**
     * The client, unless the application defines one. A class of its own, ordered first among
     * the member classes, so that its bean is registered before the conditions of the beans
     * that use the client are evaluated: Spring registers member classes, sorted by
     * {@link Order}, before the outer class's own beans.
     */
    @Configuration(proxyBeanMethods = false)
    @Order(Ordered.HIGHEST_PRECEDENCE)
    public static class ClientConfiguration {
        /** Made by Spring Boot. */
        public ClientConfiguration() {
        }

        /**
         * The client, started and connected: the context fails to start, with
         * {@link EnsembleUnreachableException}, if no connection comes within
         * {@code zklock.connection-timeout}, or with {@link InvalidZkLockPropertyException} if a
         * setting is blank, missing or out of range.
         *
         * @param properties the {@code zklock.} settings
         * @param customizers applied to the builder, in order, after the settings
         * @return the connected client, closed with the context
         */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        public CuratorFramework zkLockCuratorFramework(ZkLockProperties properties,
                ObjectProvider<ZkLockCuratorCustomizer> customizers) {
            String connectString = properties.getConnectString();
            if (connectString == null || connectString.isBlank()) {
                throw new InvalidZkLockPropertyException("zklock.connect-string", connectString,
                        "it is blank: it names the ensemble, host:port[,host:port...][/chroot]");
            }
            int sessionMs = millis("zklock.session-timeout", properties.getSessionTimeout());
            int connectionMs = millis("zklock.connection-timeout", properties.getConnectionTimeout());
            CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                    .connectString(connectString)
                    .sessionTimeoutMs(sessionMs)
                    .connectionTimeoutMs(connectionMs)
                    .retryPolicy(ClientSettings.retryPolicy(properties.getRetry()));
            ClientSettings.apply(properties, builder);
            customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
            CuratorFramework client = builder.build();
            client.start();
            boolean connected;
            try {
                connected = client.blockUntilConnected(connectionMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                connected = false;
            }
            if (!connected) {
                client.close();
                throw new EnsembleUnreachableException(connectString, properties.getConnectionTimeout());
            }
            return client;
        }
    }

    /**
     * @param client the client
     * @return inspection and revocation of any lock on the ensemble
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(CuratorFramework.class)
    public LockAdmin zkLockAdmin(CuratorFramework client) {
        return new LockAdmin(client);
    }

    /** The Spring Integration lock registry, when Spring Integration is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.integration.support.locks.ExpirableLockRegistry")
    public static class RegistryConfiguration {
        /** Made by Spring Boot. */
        public RegistryConfiguration() {
        }

        /**
         * @param client the client
         * @param properties the {@code zklock.} settings
         * @param events where a {@link ZkLockLostEvent} is published for each lock lost while held
         * @return the registry, its locks under {@code <zklock.root>/spring-integration}; none if
         *         the application defines its own {@code LockRegistry}
         */
        @Bean
        @ConditionalOnMissingBean(type = "org.springframework.integration.support.locks.LockRegistry")
        @ConditionalOnSingleCandidate(CuratorFramework.class)
        @ConditionalOnBooleanProperty(name = "zklock.registry.enabled", matchIfMissing = true)
        public ZkLockRegistry zkLockRegistry(CuratorFramework client, ZkLockProperties properties,
                ApplicationEventPublisher events) {
            ZkLockRegistry registry = new ZkLockRegistry(client,
                    ZkLockAutoConfiguration.under(properties.getRoot(), ZkLockRegistry.DEFAULT_ROOT));
            int capacity = properties.getRegistry().getCacheCapacity();
            if (capacity < 1) {
                throw new InvalidZkLockPropertyException("zklock.registry.cache-capacity", String.valueOf(capacity),
                        "it must be at least 1");
            }
            registry.setCacheCapacity(capacity);
            registry.addLockLostListener((lock, node, token) -> events.publishEvent(
                    new ZkLockLostEvent(registry, ZkLockLostEvent.Kind.REGISTRY_LOCK, lock.key(), token)));
            return registry;
        }
    }

    /** The ShedLock provider, when ShedLock and {@code zklock-shedlock} are on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"net.javacrumbs.shedlock.core.LockProvider", "io.zklock.shedlock.ZkLockProvider"})
    public static class ShedLockConfiguration {
        /** Made by Spring Boot. */
        public ShedLockConfiguration() {
        }

        /**
         * @param client the client
         * @param properties the {@code zklock.} settings
         * @param events where a {@link ZkLockLostEvent} is published for each job run whose lease is lost
         * @return the provider, its nodes under {@code <zklock.root>/shedlock}; none if the
         *         application defines its own {@code LockProvider}
         */
        @Bean
        @ConditionalOnMissingBean(type = "net.javacrumbs.shedlock.core.LockProvider")
        @ConditionalOnSingleCandidate(CuratorFramework.class)
        @ConditionalOnBooleanProperty(name = "zklock.shedlock.enabled", matchIfMissing = true)
        public ZkLockProvider zkLockProvider(CuratorFramework client, ZkLockProperties properties,
                ApplicationEventPublisher events) {
            ZkLockProvider provider = new ZkLockProvider(client,
                    ZkLockAutoConfiguration.under(properties.getRoot(), ZkLockProvider.DEFAULT_ROOT));
            provider.addLockLostListener(lock -> events.publishEvent(
                    new ZkLockLostEvent(provider, ZkLockLostEvent.Kind.SHEDLOCK_JOB, lock.jobName(), lock.fencingToken())));
            return provider;
        }
    }

    /**
     * The path under {@code zklock.root} named as the last node of {@code defaultRoot}: with the
     * default root, {@code defaultRoot} itself.
     */
    static String under(String root, String defaultRoot) {
        return ZKPaths.makePath(rootOf(root), ZKPaths.getNodeFromPath(defaultRoot));
    }

    /** {@code zklock.root}, checked. */
    static String rootOf(String root) {
        if (root == null || root.isBlank()) {
            throw new InvalidZkLockPropertyException("zklock.root", root, "it is blank: it must be an absolute ZooKeeper path");
        }
        try {
            PathUtils.validatePath(root);
        } catch (IllegalArgumentException e) {
            throw new InvalidZkLockPropertyException("zklock.root", root, "it is not a valid ZooKeeper path: " + e.getMessage());
        }
        if (root.equals("/zookeeper") || root.startsWith("/zookeeper/")) {
            throw new InvalidZkLockPropertyException("zklock.root", root, "/zookeeper belongs to ZooKeeper and cannot hold locks");
        }
        return root;
    }

    static int millis(String property, Duration value) {
        if (value == null) {
            throw new InvalidZkLockPropertyException(property, null, "it is missing: give a duration, e.g. 15s");
        }
        if (value.isNegative() || value.isZero() || value.toMillis() > Integer.MAX_VALUE) {
            throw new InvalidZkLockPropertyException(property, value.toString(),
                    "it must be positive and at most " + Integer.MAX_VALUE + " ms");
        }
        return (int) value.toMillis();
    }
}
