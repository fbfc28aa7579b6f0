package io.zklock.core.spi;

import java.util.Optional;

import io.zklock.core.Lease;

/**
 * What a multi-lock needs of one of its locks, without knowing the lock's class and without
 * anything on the recipe's public surface: the lock's engine and, for a reentrant recipe,
 * re-entry by the current thread. Recipes register their component with {@link LockComponents}.
 */
public interface LockComponent {

    /** The engine of the lock: directory, node name prefix, driver and maxLeases. */
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
