package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The election scenario runs every library once in quick mode and prints its table; it asserts no timing, only what is counted. */
class ElectionBenchSmokeTest {
    /**
     * One failover and one hand-off per library complete, each with a positive time; an
     * idle zklock standby sends no request (server-counted), the polling initiator does.
     */
    @Test
    void everyLibraryFailsOverAndHandsOffAndIdleStandbysAreCounted() throws Exception {
        var bytes = new ByteArrayOutputStream();
        Map<String, ElectionBench.Result> results;
        try (var out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = ElectionBench.run(ElectionBench.Options.of(true), out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(List.of("zklock", "LeaderLatch", "LeaderSelector", "LockRegistryLeaderInitiator"), List.copyOf(results.keySet()));
        for (String library : List.of("zklock", "LeaderLatch", "LeaderSelector")) {
            ElectionBench.Result r = results.get(library);
            assertEquals(1, r.failover().size(), printed);
            assertEquals(1, r.handoff().size(), printed);
            assertTrue(r.failover().quantile(0.5) > 0 && r.handoff().quantile(0.5) > 0, printed);
        }
        assertEquals(0.0, results.get("zklock").idleRequestsPerMinute(), printed);
        assertTrue(results.get("LockRegistryLeaderInitiator").idleRequestsPerMinute() > 0, printed);
        assertTrue(printed.contains("| zklock | "), printed);
        assertTrue(ElectionBench.selected("--scenario", "election"));
    }
}
