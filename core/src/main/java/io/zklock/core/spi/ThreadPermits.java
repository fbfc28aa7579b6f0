package io.zklock.core.spi;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.zklock.core.Lease;
import io.zklock.core.internal.lease.PermitLease;

/**
 * The permits each thread took from one non-reentrant lock (a semaphore) through blocking
 * calls, keyed by {@link Owners} ids, so the lock can say whether the current thread holds it.
 * A permit is forgotten when its lease is closed. Not for users.
 */
public final class ThreadPermits {
    private final Map<Long, Set<Lease>> byOwner = new ConcurrentHashMap<>();

    /**
     * Remembers {@code lease}, just taken by the current thread with a blocking call.
     *
     * @param lease the engine's lease of one permit
     * @return the lease to hand to the caller: a view whose close forgets it
     */
    public Lease track(Lease lease) {
        Long owner = Owners.current();
        Lease[] tracked = new Lease[1];
        tracked[0] = new PermitLease(lease, () -> untrack(tracked[0], owner));
        byOwner.compute(owner, (k, set) -> {   // atomic with untrack: never added to a set it just dropped
            Set<Lease> mine = set == null ? ConcurrentHashMap.newKeySet() : set;
            mine.add(tracked[0]);
            return mine;
        });
        return tracked[0];
    }

    /** {@return whether the current thread holds at least one valid permit taken by a blocking call} */
    public boolean heldByCurrentThread() {
        Set<Lease> mine = byOwner.get(Owners.current());
        return mine != null && mine.stream().anyMatch(Lease::isValid);
    }

    /** Forgets {@code lease}, and its owner's set once empty, in one atomic step like {@link #track}'s. */
    private void untrack(Lease lease, Long owner) {
        byOwner.computeIfPresent(owner, (k, set) -> {
            set.remove(lease);
            return set.isEmpty() ? null : set;
        });
    }
}
