package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import org.junit.jupiter.api.Test;

/** The registry of lock components finds a lock's component, and lets go of a collected lock's at once. */
class LockComponentsTest {
    private static final int LOCKS = 1_000;

    /** A registered lock's component is found by the lock itself; another lock has none. */
    @Test
    void aLockFindsItsOwnComponent() {
        var lock = new Stub();
        LockComponent component = new Component();
        LockComponents.register(lock, component);
        assertSame(component, LockComponents.of(lock).orElseThrow());
        assertEquals(Optional.empty(), LockComponents.of(new Stub()));
    }

    /**
     * Once the locks are collected, their components (and what those keep: engines, lock
     * contexts) are collected too, with no further use of the registry: nothing waits for a
     * lock made later to drop them.
     */
    @Test
    void aCollectedLocksComponentGoesWithoutFurtherUse() throws InterruptedException {
        List<WeakReference<LockComponent>> components = new ArrayList<>();
        for (int i = 0; i < LOCKS; i++) {
            LockComponent component = new Component();    // one object each (a lambda capturing nothing is one for all)
            components.add(new WeakReference<>(component));
            LockComponents.register(new Stub(), component);
        }
        for (int i = 0; i < 100 && components.stream().anyMatch(ref -> ref.get() != null); i++) {
            System.gc();
            Thread.sleep(20);
        }
        long kept = components.stream().filter(ref -> ref.get() != null).count();
        assertTrue(kept == 0, kept + " of " + LOCKS + " components of collected locks are still kept");
    }

    /** A component of no engine. */
    private static final class Component implements LockComponent {
        @Override
        public LockEngine engine() {
            return null;
        }
    }

    /** A lock of no engine. */
    private static final class Stub implements DistributedLock {
        @Override
        public String path() {
            return "/stub";
        }

        @Override
        public Lease acquire() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<Lease> tryAcquire(Duration timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Lease> acquireAsync(Duration timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return false;
        }

        @Override
        public Lock asLock() {
            throw new UnsupportedOperationException();
        }
    }
}
