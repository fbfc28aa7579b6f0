/** The all-or-nothing multi-lock ({@code ZkMultiLock}); not yet implemented. */
package io.zklock.multilock;
