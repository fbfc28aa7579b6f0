/** The read-write lock recipe: {@link io.zklock.readwrite.ZkReadWriteLock}. */
package io.zklock.readwrite;
