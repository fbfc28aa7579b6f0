package io.zklock.core.spi;

import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.zklock.core.DistributedLock;

/**
 * The engine's handles on the recipes' locks. A recipe registers its {@link LockComponent}
 * once, in its constructor; a multi-lock looks it up, and a lock nobody registered is foreign
 * to the engine.
 *
 * <p>Locks are held weakly, by identity, and a collected lock's entry goes as soon as the
 * collector has cleared it (a cleaner's thread removes it), not at the registry's next use:
 * its component, and the engine and lock context the component keeps, are then free to go
 * too. A component must not reference its lock (an inner class of the recipe would), or the
 * lock could never be collected.
 */
public final class LockComponents {
    private static final Map<Key, LockComponent> COMPONENTS = new ConcurrentHashMap<>();
    private static final Cleaner CLEANER = Cleaner.create();

    private LockComponents() {
    }

    /**
     * Makes {@code component} the engine's handle on {@code lock}.
     *
     * @return {@code lock}
     */
    public static <L extends DistributedLock> L register(L lock, LockComponent component) {
        Key key = new Key(lock);
        if (COMPONENTS.put(key, component) == null) {
            CLEANER.register(lock, () -> COMPONENTS.remove(key));
        }
        return lock;
    }

    /** The component registered for {@code lock}; empty for a lock not built on this engine. */
    public static Optional<LockComponent> of(DistributedLock lock) {
        return Optional.ofNullable(COMPONENTS.get(new Key(lock)));
    }

    /** A lock, held weakly and compared by identity; a cleared key equals only itself. */
    private static final class Key extends WeakReference<DistributedLock> {
        private final int hash;

        Key(DistributedLock lock) {
            super(lock);
            this.hash = System.identityHashCode(lock);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            if (this == other) {
                return true;
            }
            Object lock = get();
            return other instanceof Key key && lock != null && lock == key.get();
        }
    }
}
