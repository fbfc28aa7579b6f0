package io.zklock.core.spi;

/** The owner id that thread-bound hold counts are keyed by. */
public final class Owners {
    /** Each thread's id, boxed once: a hold keyed by it keeps no box of its own. */
    @SuppressWarnings("deprecation")           // Thread.threadId() is JDK 19+; getId() is the same number
    private static final ThreadLocal<Long> ID = ThreadLocal.withInitial(() -> Thread.currentThread().getId());

    private Owners() {
    }

    /**
     * The current thread's id: no Thread object is retained, and HotSpot never reuses an id,
     * so a hold can never be mistaken for another thread's.
     */
    public static Long current() {
        return ID.get();
    }
}
