package io.zklock.spring.boot;

import java.util.List;

import io.zklock.core.LockAdmin;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code zklock} actuator endpoint ({@link ZkLockEndpoint}) when Actuator is on the class
 * path, a {@link LockAdmin} bean exists, and the endpoint is available (enabled and exposed, as
 * Boot decides for every endpoint); its lists walk {@code zklock.root}.
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, LockAdmin.class})
@ConditionalOnBean(LockAdmin.class)
@ConditionalOnAvailableEndpoint(ZkLockEndpoint.class)
@EnableConfigurationProperties(ZkLockProperties.class)
public class ZkLockEndpointAutoConfiguration {
    /** Made by Spring Boot. */
    public ZkLockEndpointAutoConfiguration() {
    }

    /**
     * @param admin the application's lock admin
     * @param properties {@code zklock.root}, the root the endpoint lists
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    public ZkLockEndpoint zkLockEndpoint(LockAdmin admin, ZkLockProperties properties) {
        return new ZkLockEndpoint(admin, List.of(ZkLockAutoConfiguration.rootOf(properties.getRoot())));
    }
}
