/**
 * zklock behind Spring Integration's lock SPI: {@link io.zklock.spring.integration.ZkLockRegistry}
 * (the registry) and {@link io.zklock.spring.integration.ZkRegistryLock} (its locks; read its
 * Overview first). Built on {@code io.zklock.mutex.ZkMutex}.
 */
package io.zklock.spring.integration;
