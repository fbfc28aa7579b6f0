/**
 * The observer SPI that metrics bind to: a process-wide {@link io.zklock.core.observe.LockObserver},
 * installed with {@link io.zklock.core.observe.LockObservers#install}, is told of every
 * acquisition's end (mode, outcome, wait, ZooKeeper requests issued, queue found ahead) and of
 * every granted lease's state changes. No observer is installed by default, and then a request
 * allocates nothing for it. {@code zklock-micrometer} is the implementation most users want.
 */
package io.zklock.core.observe;
