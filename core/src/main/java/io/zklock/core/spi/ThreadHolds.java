package io.zklock.core.spi;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The holds of one reentrant lock by owner id, as a map would keep them, but with one hold kept
 * beside the map: most locks are held by one thread of a process at a time (always, for an
 * exclusive lock not shared locally), and a held lease is kept as long as it is held, often by
 * the thousand, so its map entry (32 bytes) was a fifth of what it cost. A hold is in one place
 * only: the slot or the map.
 *
 * @param <H> the hold
 */
final class ThreadHolds<H> {
    private final Function<H, Long> ownerOf;
    private final AtomicReference<H> slot = new AtomicReference<>();
    private final Map<Long, H> others = new ConcurrentHashMap<>();

    ThreadHolds(Function<H, Long> ownerOf) {
        this.ownerOf = ownerOf;
    }

    /** {@return the hold of {@code owner}, or null} */
    H get(Long owner) {
        H one = slot.get();
        return one != null && ownerOf.apply(one).equals(owner) ? one : others.get(owner);
    }

    /** Records {@code hold}, in place of any hold its owner had (only the owner's thread records its holds). */
    void put(H hold) {
        Long owner = ownerOf.apply(hold);
        H one = slot.get();
        if (one != null && ownerOf.apply(one).equals(owner)) {
            slot.compareAndSet(one, null);     // replaced, as a map's put replaces
        }
        if (slot.compareAndSet(null, hold)) {
            others.remove(owner);
        } else {
            others.put(owner, hold);
        }
    }

    /** Forgets {@code hold} if it is still recorded. */
    void remove(H hold) {
        if (!slot.compareAndSet(hold, null)) {
            others.remove(ownerOf.apply(hold), hold);
        }
    }
}
