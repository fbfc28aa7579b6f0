package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quick run with {@code --jfr} writes a recording that {@link JfrCost} splits by library:
 * each library's rounds carry exactly the operations and client counts the run printed, and
 * the recording holds allocation samples and waits of both libraries' client threads. Counts,
 * no timings.
 */
class JfrCostTest {
    @Test
    void theRecordingSplitsByLibraryWithTheRunsOwnCounts(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("run.jfr");
        List<Benchmarks.Outcome> outcomes;
        try (var out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)) {
            outcomes = Benchmarks.run(Benchmarks.Options.parse("--quick", "--scenario", "2r", "--jfr", file.toString()), out);
        }
        Map<String, JfrCost.Tally> tallies = JfrCost.analyse(file);
        assertEquals(List.of("2r zklock", "2r Curator"), List.copyOf(tallies.keySet()));
        Benchmarks.Outcome o = outcomes.get(0);
        for (var side : List.of(Map.entry("2r zklock", o.zklock()), Map.entry("2r Curator", o.curator()))) {
            JfrCost.Tally t = tallies.get(side.getKey());
            assertEquals(side.getValue().result().ops(), t.ops, side.getKey() + ": operations");
            assertEquals(side.getValue().packets(), t.requests, side.getKey() + ": requests");
            assertEquals(side.getValue().clientBytes(), t.bytes, side.getKey() + ": client bytes");
            assertEquals(side.getValue().clientWaits(), t.waits, side.getKey() + ": client waits");
            assertTrue(t.bytes > 0 && t.waits > 0, side.getKey() + ": every cycle allocates and waits for replies");
            assertTrue(t.sampledBytes > 0 && !t.sites.isEmpty(), side.getKey() + ": no allocation sample in its rounds");
            assertTrue(t.waitsByThread.containsKey("caller"), side.getKey() + ": the callers' waits are missing: " + t.waitsByThread);
        }
        var printed = new ByteArrayOutputStream();
        try (var out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            JfrCost.print(tallies, 5, out);
        }
        assertTrue(printed.toString(StandardCharsets.UTF_8).contains("| 2r | zklock |"), printed.toString(StandardCharsets.UTF_8));
    }
}
