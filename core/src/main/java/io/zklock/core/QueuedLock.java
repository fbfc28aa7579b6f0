package io.zklock.core;

import java.util.Optional;

/**
 * The SPI through which a recipe lets a multi-lock drive it without knowing its class: the
 * engine describes the recipe's node (directory, name, data) and its driver, and a reentrant
 * recipe tells whether the current thread already holds it.
 */
public interface QueuedLock extends DistributedLock {

    /** The engine of this lock: directory, node name prefix, driver and maxLeases. */
    LockEngine engine();

    /**
     * For a lock the current thread holds through a blocking acquisition: a new lease on the
     * same node (re-entry), so a multi-lock counts it instead of queueing it. Empty for a lock
     * the thread does not hold, and always for recipes that do not re-enter.
     *
     * @throws IllegalStateException if the thread holds the lock in a way a multi-lock cannot
     *         build on (the other half of a read-write lock, or a node of another multi-lock)
     */
    default Optional<Lease> reenterIfHeld() {
        return Optional.empty();
    }
}
