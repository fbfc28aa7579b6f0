/** The read-write lock recipe ({@code ZkReadWriteLock}); not yet implemented. */
package io.zklock.readwrite;
