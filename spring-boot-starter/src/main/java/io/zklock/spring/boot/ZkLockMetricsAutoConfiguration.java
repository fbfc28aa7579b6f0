package io.zklock.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.zklock.micrometer.ZkLockMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Binds zklock's meters ({@link ZkLockMetrics}) to the application's {@link MeterRegistry}
 * when {@code zklock-micrometer} is on the class path and a registry bean exists.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({ZkLockMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
public class ZkLockMetricsAutoConfiguration {
    /** Made by Spring Boot. */
    public ZkLockMetricsAutoConfiguration() {
    }

    /**
     * @param registry the application's meter registry
     * @return the binding, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ZkLockMetrics zkLockMetrics(MeterRegistry registry) {
        return ZkLockMetrics.bind(registry);
    }
}
