package io.zklock.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.zklock.micrometer.ZkLockMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Binds zklock's meters ({@link ZkLockMetrics}) to the application's {@link MeterRegistry}
 * when {@code zklock-micrometer} is on the class path and a registry bean exists;
 * {@code zklock.metrics.enabled=false} switches it off, {@code zklock.metrics.path-tags=true}
 * tags each meter with its lock's path.
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({ZkLockMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "zklock.metrics.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ZkLockProperties.class)
public class ZkLockMetricsAutoConfiguration {
    /** Made by Spring Boot. */
    public ZkLockMetricsAutoConfiguration() {
    }

    /**
     * @param registry the application's meter registry
     * @param properties the {@code zklock.metrics.} settings
     * @return the binding, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ZkLockMetrics zkLockMetrics(MeterRegistry registry, ZkLockProperties properties) {
        return ZkLockMetrics.builder().pathTags(properties.getMetrics().isPathTags()).bind(registry);
    }
}
