package io.zklock.spring.boot;

import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.zklock.micrometer.ZkLockMetrics;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ObjectProvider;
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
 * tags each meter with its lock's path. The binding records the locks of the application's
 * {@link CuratorFramework} only (the one bean, or the primary one; every lock of the process if
 * there is none), so two applications in one JVM each see their own. With an
 * {@link ObservationRegistry} bean it also makes the wait and hold observations
 * ({@code zklock.observations.enabled=false} switches them off), and with a Micrometer Tracing
 * {@code Tracer} bean it writes the caller's trace id into each lock node it creates, so that a
 * waiter's span names the holder's trace.
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
        "org.springframework.boot.micrometer.tracing.autoconfigure.NoopTracerAutoConfiguration",
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
     * @param properties the {@code zklock.metrics.} and {@code zklock.observations.} settings
     * @param client the application's client, whose locks are measured
     * @param observations the application's observation registry, if any
     * @param traceIds the current trace id, if Micrometer Tracing is there
     * @return the binding, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ZkLockMetrics zkLockMetrics(MeterRegistry registry, ZkLockProperties properties, ObjectProvider<CuratorFramework> client,
            ObjectProvider<ObservationRegistry> observations, ObjectProvider<TraceIds> traceIds) {
        ZkLockMetrics.Builder builder = ZkLockMetrics.builder().pathTags(properties.getMetrics().isPathTags());
        CuratorFramework own = client.getIfUnique();
        if (own != null) {
            builder.client(own);
        }
        if (properties.getObservations().isEnabled()) {
            observations.ifUnique(builder::observations);
            traceIds.ifUnique(builder::traceIds);
        }
        return builder.bind(registry);
    }

    /** The current trace id of the caller's thread, from the application's tracer. */
    interface TraceIds extends Supplier<String> {
    }

    /** The trace ids, when Micrometer Tracing is on the class path. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.tracing.Tracer")
    static class TracingConfiguration {
        /**
         * @param tracer the application's tracer, looked up on first use
         * @return the current span's trace id, or null outside a span or without a tracer
         */
        @Bean
        TraceIds zkLockTraceIds(ObjectProvider<Tracer> tracer) {
            return new TraceIds() {
                private volatile Tracer found;

                @Override
                public String get() {
                    Tracer t = found;
                    if (t == null) {
                        t = tracer.getIfUnique(() -> Tracer.NOOP);
                        found = t;
                    }
                    Span span = t.currentSpan();
                    return span == null ? null : span.context().traceId();
                }
            };
        }
    }
}
