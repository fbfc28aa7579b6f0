package io.zklock.spring.boot;

import io.zklock.micrometer.ZkLockMetrics;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code zklock} health indicator ({@link ZkLockHealthIndicator}) when Spring Boot's health
 * support (Actuator) is on the class path and there is one {@link CuratorFramework} (or one
 * marked primary); {@code management.health.zklock.enabled=false} turns it off. Its lease and
 * waiter counts are the {@code ZkLockMetrics} binding's, when there is one.
 */
@AutoConfiguration(after = {ZkLockAutoConfiguration.class, ZkLockMetricsAutoConfiguration.class})
@ConditionalOnClass({HealthIndicator.class, CuratorFramework.class})
@ConditionalOnSingleCandidate(CuratorFramework.class)
@ConditionalOnEnabledHealthIndicator("zklock")
public class ZkLockHealthAutoConfiguration {
    /** Made by Spring Boot. */
    public ZkLockHealthAutoConfiguration() {
    }

    /**
     * @param client the client whose connection is reported
     * @param beans where the metrics binding is found, if {@code zklock-micrometer} is on the class path
     * @return the indicator, named {@code zklock}
     */
    @Bean(name = "zklockHealthIndicator")
    @ConditionalOnMissingBean(name = "zklockHealthIndicator")
    public ZkLockHealthIndicator zklockHealthIndicator(CuratorFramework client, org.springframework.beans.factory.BeanFactory beans) {
        if (!ClassUtils.isPresent("io.zklock.micrometer.ZkLockMetrics", getClass().getClassLoader())) {
            return new ZkLockHealthIndicator(client);
        }
        return Counts.indicator(client, beans);
    }

    /** Apart, so that ZkLockMetrics is loaded only when it is on the class path. */
    private static final class Counts {
        static ZkLockHealthIndicator indicator(CuratorFramework client, org.springframework.beans.factory.BeanFactory beans) {
            ObjectProvider<ZkLockMetrics> metrics = beans.getBeanProvider(ZkLockMetrics.class);
            ZkLockMetrics bound = metrics.getIfUnique();
            return bound == null ? new ZkLockHealthIndicator(client)
                    : new ZkLockHealthIndicator(client, bound::leasesHeld, bound::requestsWaiting);
        }
    }
}
