/**
 * zklock behind Spring Integration's lock SPI: {@link io.zklock.spring.integration.ZkLockRegistry}
 * (the registry, one lock per key), {@link io.zklock.spring.integration.ZkRegistryLock} (its
 * locks: re-entry, time to live, renewal, lost holds) and {@code LockKeys} (a key to one node
 * name, and the root they live under). Built on {@link io.zklock.mutex.ZkMutex}.
 *
 * <p>Read {@code ZkLockRegistry}'s class comment for what uses the registry, then the Overview at
 * the top of {@code ZkRegistryLock}'s source: the per-thread hold and the steps of an
 * acquisition.
 *
 * <p>Leader election for Spring Integration's candidates:
 * {@link io.zklock.spring.integration.ZkLeaderInitiator}, over {@code io.zklock.leader}; its
 * Overview is at the top of its source.
 */
package io.zklock.spring.integration;
