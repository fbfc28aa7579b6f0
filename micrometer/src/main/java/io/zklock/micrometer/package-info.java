/** Micrometer meters for every zklock recipe: {@link io.zklock.micrometer.ZkLockMetrics}. */
package io.zklock.micrometer;
