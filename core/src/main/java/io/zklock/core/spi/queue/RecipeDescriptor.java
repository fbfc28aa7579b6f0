package io.zklock.core.spi.queue;

/**
 * The facts a recipe states once, for each kind of node it queues: the kind written into the
 * node names, the driver that decides their grants, and how many holders the lock admits. A
 * lock engine is built on one ({@code LockEngine}); what follows from these facts is derived
 * here, never passed beside them.
 *
 * @param kind the kind written into the node names, a lower-case word ({@code lock},
 *        {@code read}, {@code write}, {@code sem3})
 * @param driver decides the grants of these nodes
 * @param maxLeases holders admitted at once, at least 1
 */
public record RecipeDescriptor(String kind, LockDriver driver, int maxLeases) {
    /** Two uuids for the sample nodes {@link #sharesLocally()} asks the driver about. */
    private static final String FIRST = "00000000-0000-4000-8000-000000000001";
    private static final String SECOND = "00000000-0000-4000-8000-000000000002";

    /**
     * @throws IllegalArgumentException naming the bad value: a kind that is not a lower-case
     *         word, a null driver, or {@code maxLeases} below 1
     */
    public RecipeDescriptor {
        LockNode.checkKind(kind);
        if (driver == null) {
            throw new IllegalArgumentException("driver is null");
        }
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1, was " + maxLeases);
        }
    }

    /**
     * Whether one node of this kind, kept cached by its process, serves several local leases at
     * once (a read lock's readers) rather than one at a time (a mutex's holder, a semaphore's
     * permit). Derived from the driver: it shares exactly when two nodes of this kind, one
     * queued behind the other, do not {@linkplain LockDriver#conflicts conflict}, so that they
     * could hold together anyway.
     *
     * @return whether a node of this kind is shared by its process's leases
     */
    public boolean sharesLocally() {
        return !driver.conflicts(LockNode.of(FIRST, kind, 0), LockNode.of(SECOND, kind, 1));
    }
}
