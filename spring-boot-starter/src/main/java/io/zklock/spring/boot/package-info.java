/**
 * Spring Boot auto-configuration for zklock: {@link io.zklock.spring.boot.ZkLockAutoConfiguration}
 * (client, lock registry, ShedLock provider, {@code LockAdmin}), with its settings in
 * {@link io.zklock.spring.boot.ZkLockProperties}; {@link io.zklock.spring.boot.ZkLockMetricsAutoConfiguration}
 * (meters); {@link io.zklock.spring.boot.ZkLeaderAutoConfiguration} with
 * {@link io.zklock.spring.boot.ZkLeaderProperties} (a leader election under
 * {@code zklock.leader.}, for Spring Integration's roles); {@link io.zklock.spring.boot.ZkLockHealthAutoConfiguration} with
 * {@link io.zklock.spring.boot.ZkLockHealthIndicator} (health); and the start-up failure report
 * for an unreachable ensemble ({@link io.zklock.spring.boot.EnsembleUnreachableException},
 * {@link io.zklock.spring.boot.EnsembleUnreachableFailureAnalyzer}) and for a bad {@code zklock.}
 * setting ({@link io.zklock.spring.boot.InvalidZkLockPropertyFailureAnalyzer}).
 *
 * <p>Read {@code ZkLockAutoConfiguration}'s class comment first: which beans it makes, when, and
 * how each steps aside for the application's own.
 */
package io.zklock.spring.boot;
