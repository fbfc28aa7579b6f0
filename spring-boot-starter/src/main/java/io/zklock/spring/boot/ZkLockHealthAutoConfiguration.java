package io.zklock.spring.boot;

import org.apache.curator.framework.CuratorFramework;
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
 * marked primary); {@code management.health.zklock.enabled=false} turns it off.
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, CuratorFramework.class})
@ConditionalOnSingleCandidate(CuratorFramework.class)
@ConditionalOnEnabledHealthIndicator("zklock")
public class ZkLockHealthAutoConfiguration {
    /** Made by Spring Boot. */
    public ZkLockHealthAutoConfiguration() {
    }

    /**
     * @param client the client whose connection is reported
     * @return the indicator, named {@code zklock}
     */
    @Bean(name = "zklockHealthIndicator")
    @ConditionalOnMissingBean(name = "zklockHealthIndicator")
    public ZkLockHealthIndicator zklockHealthIndicator(CuratorFramework client) {
        return new ZkLockHealthIndicator(client);
    }
}
