/**
 * Spring Boot auto-configuration for zklock: {@link io.zklock.spring.boot.ZkLockAutoConfiguration}
 * (client, {@code LockAdmin}, the Spring Integration lock registry, the ShedLock lock provider),
 * {@link io.zklock.spring.boot.ZkLockMetricsAutoConfiguration},
 * {@link io.zklock.spring.boot.ZkLockHealthAutoConfiguration}, and the one-line start-up failure
 * reports for an unreachable ensemble ({@link io.zklock.spring.boot.EnsembleUnreachableFailureAnalyzer})
 * and a bad {@code zklock.} setting ({@link io.zklock.spring.boot.InvalidZkLockPropertyFailureAnalyzer}).
 */
package io.zklock.spring.boot;
