/**
 * Leader election on the locks' engine: {@link io.zklock.leader.ZkLeaderElection} (candidates
 * queue as a fair mutex's waiters; the first leads), {@link io.zklock.leader.Leadership} (the
 * leader's lease, whose epoch fences), the observers' {@link io.zklock.leader.LeaderInfo},
 * {@link io.zklock.leader.LeaderListener} and {@link io.zklock.leader.LeaderSubscription}, and
 * {@link io.zklock.leader.LeaderKind}, the election's node kind for inspection (registered
 * through {@link java.util.ServiceLoader}, so {@code zklock status} shows an election path as
 * such).
 *
 * <p>Read {@code ZkLeaderElection}'s Overview first; observers share one watch per client
 * ({@code io.zklock.core.spi.QueueHeadWatch}). Queueing, waiting, session handling and cleanup are the engine's
 * ({@code io.zklock.core.spi}).
 */
package io.zklock.leader;
