package io.zklock.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Whether a lock keeps its node after the last local lease closes, and for how long (the lock
 * caching of distributed lock managers). Off by default.
 *
 * <p>With caching on, a process that closes its last lease on a node keeps the node for the
 * idle period and grants the lock again locally, with no ZooKeeper request, to the next
 * acquisition in the same process (any lock object of the same client, lock path and kind;
 * any thread). A node keeps its fencing token across such local grants (a later node's token is
 * larger): the token orders the holders of different processes, not two local leases of one
 * node. A node is granted again locally for at most ten idle periods after ZooKeeper granted
 * it; after that its process lets it go at its last close and queues a new one.
 *
 * <p>A conflicting waiter of any process that queues behind a cached node <em>asks</em> for it
 * back: it reads the node and writes an ask into its data at the version read (a read and a
 * conditional write per node asked; a semaphore's waiter first asks only the cached permits
 * it needs, and every one ahead of it once it has waited 25 ms). An ask is not a revocation
 * request: the leases' {@link Lease#onRevocationRequested revocation} handlers do not hear
 * it. The holder watches its node and hears the write: from then on its process grants
 * nothing more on that node and deletes it once the leases in use on it close, so a waiter
 * waits for the leases in use and one notification, never for the idle period.
 *
 * <p><b>Order.</b> Grants follow arrival order from the moment a request's node is queued, as
 * without caching, except that <em>a thread waiting inside its process has no place in the
 * queue until it queues a node</em>: a semaphore's thread waiting, for at most 25 ms and only
 * while every permit is taken and nobody is queued, for a permit its process holds in use;
 * and a reader waiting for the read node another reader of its process is queueing. A waiter
 * of another process that queues meanwhile goes first. A node asked back, or granted while a
 * conflicting waiter that asks it stood behind it, is never granted again locally, and a local
 * hand-over never passes a queued waiter.
 *
 * <p>Turn it on for a lock that one process takes again and again while others rarely
 * conflict: a read-mostly read lock, a mutex one service instance re-takes, a semaphore whose
 * permits a process reuses. It costs a conflicting waiter a read and a conditional write per
 * cached node it asks (a mutex's or read lock's holder on a server with persistent watches
 * hears a waiter of another client queue behind its node and lets go without being asked; the
 * waiter then asks only if it still waits after 100 ms), and the holder one read of its node
 * per new node. The
 * algorithm is stated once, in the package documentation of {@code io.zklock.core.internal.cache}.
 *
 * <p><b>Not beside Curator's clients.</b> Only zklock's waiters ask a cached node back; a
 * waiter of Curator's recipes never does, and would wait out the idle period behind a node
 * whose holder did not hear it queue (cut off, a server without persistent watches). So
 * caching is for a path that no Curator client uses any more: phase 3 of a migration (see
 * {@link LockCompatibility}), once the last Curator replica is gone. A lock in
 * {@link LockCompatibility#CURATOR} refuses caching at construction.
 */
public final class LeaseCaching {
    private static final LeaseCaching OFF = new LeaseCaching(Duration.ZERO);
    /** The longest idle period accepted. */
    public static final Duration MAX_IDLE = Duration.ofHours(1);

    private final Duration idle;

    private LeaseCaching(Duration idle) {
        this.idle = idle;
    }

    /** {@return no caching: each lease's close deletes its node, as by default} */
    public static LeaseCaching off() {
        return OFF;
    }

    /**
     * Caching on: a node is kept for {@code idle} after its last local lease closes.
     *
     * @param idle how long an unused node is kept; positive, at most {@link #MAX_IDLE}
     * @return the setting
     * @throws IllegalArgumentException if {@code idle} is null, not positive or above {@link #MAX_IDLE}
     */
    public static LeaseCaching keepIdleFor(Duration idle) {
        if (idle == null || idle.isNegative() || idle.isZero() || idle.compareTo(MAX_IDLE) > 0) {
            throw new IllegalArgumentException("idle period must be positive and at most " + MAX_IDLE + ", was " + idle);
        }
        return new LeaseCaching(idle);
    }

    /** {@return whether caching is on} */
    public boolean isOn() {
        return !idle.isZero();
    }

    /** {@return how long an unused node is kept; zero when caching is off} */
    public Duration idle() {
        return idle;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LeaseCaching other && idle.equals(other.idle);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(idle);
    }

    @Override
    public String toString() {
        return isOn() ? "LeaseCaching[keep idle for " + idle + "]" : "LeaseCaching[off]";
    }
}
