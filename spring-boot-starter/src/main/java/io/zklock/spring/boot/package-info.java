/**
 * Spring Boot auto-configuration for zklock: {@link io.zklock.spring.boot.ZkLockAutoConfiguration}
 * (client, lock registry, {@code LockAdmin}), {@link io.zklock.spring.boot.ZkLockMetricsAutoConfiguration},
 * {@link io.zklock.spring.boot.ZkLockHealthAutoConfiguration}, and the start-up failure report for an
 * unreachable ensemble ({@link io.zklock.spring.boot.EnsembleUnreachableFailureAnalyzer}).
 */
package io.zklock.spring.boot;
