/**
 * Micrometer meters for every zklock recipe: {@link io.zklock.micrometer.ZkLockMetrics}, the one
 * class here, which installs an {@code io.zklock.core.observe.LockObserver} (for one client's
 * locks, or the process's) that records each acquisition's start and end and each lease's grant
 * and state changes, and, given an {@code ObservationRegistry}, makes the wait and the hold
 * observations. Read its class comment first: the table of meters and gauges, their tags, the
 * observations' key values, and how to bind it once per registry.
 */
package io.zklock.micrometer;
