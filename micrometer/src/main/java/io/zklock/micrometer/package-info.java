/**
 * Micrometer meters for every zklock recipe: {@link io.zklock.micrometer.ZkLockMetrics}, the one
 * class here, which installs an {@code io.zklock.core.observe.LockObserver} that records each
 * acquisition's end and each lease's state changes. Read its class comment first: the table of
 * meters, their tags, and how to bind it once per registry.
 */
package io.zklock.micrometer;
