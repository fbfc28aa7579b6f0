/** The bounded-lease semaphore recipe ({@code ZkSemaphore}); not yet implemented. */
package io.zklock.semaphore;
