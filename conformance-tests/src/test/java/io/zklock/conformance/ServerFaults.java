package io.zklock.conformance;

import org.apache.curator.test.InstanceSpec;

/** Server settings for the tests that stop, restart or starve a server of its own. */
final class ServerFaults {
    /** A tick of 500 ms lets sessions be as short as 1 s, so a session loss takes seconds, not tens. */
    static final int TICK_MS = 500;

    private ServerFaults() {
    }

    /** A standalone server on a free port with a short tick, its data deleted on close. */
    static InstanceSpec fastTicks() {
        return new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1);
    }
}
