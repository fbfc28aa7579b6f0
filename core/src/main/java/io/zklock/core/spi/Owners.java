package io.zklock.core.spi;

/** The owner id that thread-bound hold counts are keyed by. */
public final class Owners {
    private Owners() {
    }

    /**
     * The current thread's id: no Thread object is retained, and HotSpot never reuses an id,
     * so a hold can never be mistaken for another thread's.
     */
    @SuppressWarnings("deprecation")           // Thread.threadId() is JDK 19+; getId() is the same number
    public static Long current() {
        return Thread.currentThread().getId();
    }
}
