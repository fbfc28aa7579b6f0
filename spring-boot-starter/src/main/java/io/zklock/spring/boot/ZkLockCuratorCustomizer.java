package io.zklock.spring.boot;

import org.apache.curator.framework.CuratorFrameworkFactory;

/**
 * Changes the builder of the {@code CuratorFramework} the starter makes, before the client is
 * built and started: an ACL provider, an ensemble provider, a compression provider, or anything
 * else the {@code zklock.*} properties do not cover. Every bean of this type is applied, in
 * {@link org.springframework.core.annotation.Order} order, after the properties. Not applied
 * to a client the application (or Spring Cloud Zookeeper) defines.
 */
@FunctionalInterface
public interface ZkLockCuratorCustomizer {
    /**
     * @param builder the builder, with the {@code zklock.*} settings applied
     */
    void customize(CuratorFrameworkFactory.Builder builder);
}
