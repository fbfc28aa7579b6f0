package io.zklock.core.spi;

import java.lang.ref.ReferenceQueue;
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
 * collector has cleared it (one daemon thread per JVM takes the cleared keys off the map), not
 * at the registry's next use: its component, and the engine and lock context the component
 * keeps, are then free to go too. The key is the weak reference itself, so an entry costs no
 * more than a weak map's. A component must not reference its lock (an inner class of the recipe would), or the
 * lock could never be collected.
 */
public final class LockComponents {
    private static final Map<Key, LockComponent> COMPONENTS = new ConcurrentHashMap<>();
    private static final ReferenceQueue<DistributedLock> CLEARED = new ReferenceQueue<>();

    static {
        Thread dropper = new Thread(LockComponents::dropCleared, "zklock-lock-components");
        dropper.setDaemon(true);
        dropper.start();
    }

    private LockComponents() {
    }

    /**
     * Makes {@code component} the engine's handle on {@code lock}.
     *
     * @return {@code lock}
     */
    public static <L extends DistributedLock> L register(L lock, LockComponent component) {
        COMPONENTS.put(new Key(lock, CLEARED), component);
        return lock;
    }

    /** The component registered for {@code lock}; empty for a lock not built on this engine. */
    public static Optional<LockComponent> of(DistributedLock lock) {
        return Optional.ofNullable(COMPONENTS.get(new Key(lock, null)));
    }

    /** Takes each cleared key off the map, as the collector clears it; runs for the JVM's life. */
    private static void dropCleared() {
        while (true) {
            try {
                COMPONENTS.remove(CLEARED.remove());
            } catch (InterruptedException e) {
                return;                        // nobody interrupts it; if somebody does, entries go at the JVM's end
            }
        }
    }

    /** A lock, held weakly and compared by identity; a cleared key equals only itself. */
    private static final class Key extends WeakReference<DistributedLock> {
        private final int hash;

        Key(DistributedLock lock, ReferenceQueue<DistributedLock> cleared) {
            super(lock, cleared);
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
