package io.zklock.spring.boot;

import java.util.concurrent.TimeUnit;

import io.zklock.core.LockAdmin;
import io.zklock.shedlock.ZkLockProvider;
import io.zklock.spring.integration.ZkLockRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * zklock for a Spring Boot application: a started {@link CuratorFramework} on
 * {@code zklock.connect-string} (unless the application defines its own, which is then used),
 * a {@link LockAdmin}, and a {@link ZkLockRegistry} under {@code <zklock.root>/registry} when
 * Spring Integration is on the class path, and a ShedLock {@link ZkLockProvider} under
 * {@code <zklock.root>/shedlock} when ShedLock and {@code zklock-shedlock} are. Each bean steps aside for one of the same type
 * that the application defines. Metrics and health are in
 * {@link ZkLockMetricsAutoConfiguration} and {@link ZkLockHealthAutoConfiguration}.
 */
@AutoConfiguration
@ConditionalOnClass(CuratorFramework.class)
@EnableConfigurationProperties(ZkLockProperties.class)
public class ZkLockAutoConfiguration {
    /** Made by Spring Boot. */
    public ZkLockAutoConfiguration() {
    }

    /**
     * The client, started and connected: the context fails to start, with
     * {@link EnsembleUnreachableException}, if no connection comes within
     * {@code zklock.connection-timeout}.
     *
     * @param properties the {@code zklock.} settings
     * @return the connected client, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public CuratorFramework zkLockCuratorFramework(ZkLockProperties properties) {
        String connectString = properties.getConnectString();
        if (connectString == null || connectString.isBlank()) {
            throw new IllegalArgumentException("zklock.connect-string is empty");
        }
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(Math.toIntExact(properties.getSessionTimeout().toMillis()))
                .connectionTimeoutMs(Math.toIntExact(properties.getConnectionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 5_000))
                .build();
        client.start();
        boolean connected;
        try {
            connected = client.blockUntilConnected(
                    Math.toIntExact(properties.getConnectionTimeout().toMillis()), TimeUnit.MILLISECONDS);
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

    /**
     * @param client the client
     * @return inspection and revocation of any lock on the ensemble
     */
    @Bean
    @ConditionalOnMissingBean
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
         * @return the registry, its locks under {@code <zklock.root>/registry}
         */
        @Bean
        @ConditionalOnMissingBean
        public ZkLockRegistry zkLockRegistry(CuratorFramework client, ZkLockProperties properties) {
            return new ZkLockRegistry(client, ZkLockAutoConfiguration.under(properties.getRoot(), "registry"));
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
         * @return the provider, its nodes under {@code <zklock.root>/shedlock}; none if the
         *         application defines its own {@code LockProvider}
         */
        @Bean
        @ConditionalOnMissingBean(type = "net.javacrumbs.shedlock.core.LockProvider")
        public ZkLockProvider zkLockProvider(CuratorFramework client, ZkLockProperties properties) {
            return new ZkLockProvider(client, ZkLockAutoConfiguration.under(properties.getRoot(), "shedlock"));
        }
    }

    static String under(String root, String child) {
        if (root == null || !root.startsWith("/")) {
            throw new IllegalArgumentException("zklock.root must be an absolute ZooKeeper path, was '" + root + "'");
        }
        return root.equals("/") ? "/" + child : root + "/" + child;
    }
}
