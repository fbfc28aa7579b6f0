package io.zklock.core.spi;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

import io.zklock.core.DistributedLock;

/**
 * The engine's handles on the recipes' locks. A recipe registers its {@link LockComponent}
 * once, in its constructor; a multi-lock looks it up, and a lock nobody registered is foreign
 * to the engine.
 *
 * <p>Locks are held weakly. A component must not reference its lock (an inner class of the
 * recipe would), or the lock could never be collected.
 */
public final class LockComponents {
    private static final Map<DistributedLock, LockComponent> COMPONENTS = Collections.synchronizedMap(new WeakHashMap<>());

    private LockComponents() {
    }

    /**
     * Makes {@code component} the engine's handle on {@code lock}.
     *
     * @return {@code lock}
     */
    public static <L extends DistributedLock> L register(L lock, LockComponent component) {
        COMPONENTS.put(lock, component);
        return lock;
    }

    /** The component registered for {@code lock}; empty for a lock not built on this engine. */
    public static Optional<LockComponent> of(DistributedLock lock) {
        return Optional.ofNullable(COMPONENTS.get(lock));
    }
}
