package io.zklock.core.spi;

/** Engines with an internal setting changed, for tests of other packages (not API). */
public final class TestEngines {
    private TestEngines() {
    }

    /**
     * {@code engine} with another escalation bound (see {@code LockContext.ESCALATE_MS}); it
     * shares {@code engine}'s cache.
     *
     * @param engine the engine
     * @param millis the bound, in milliseconds
     * @return the engine with that bound
     */
    public static LockEngine withEscalation(LockEngine engine, long millis) {
        return new LockEngine(engine.context().withEscalation(millis));
    }
}
