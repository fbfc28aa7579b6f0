package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The quick run completes and counts requests; it asserts no timing, ever. */
class BenchmarksSmokeTest {
    /** Every scenario runs on both libraries, is printed, and has its server requests counted. */
    @Test
    void quickRunCompletesAndCountsRequests() throws Exception {
        var bytes = new ByteArrayOutputStream();
        List<Benchmarks.Outcome> outcomes;
        try (var out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            outcomes = Benchmarks.run(Benchmarks.Options.parse("--quick"), out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(Scenario.all(Benchmarks.Options.parse("--quick")).size(), outcomes.size());
        for (Benchmarks.Outcome o : outcomes) {
            String id = o.scenario().id();
            assertTrue(printed.contains("| " + id + " | "), "no table row for scenario " + id);
            for (Benchmarks.Side side : List.of(o.zklock(), o.curator())) {
                assertTrue(side.result().ops() > 0, "no operations in scenario " + id);
                assertTrue(side.requestsPerOp() > 0, "no requests counted in scenario " + id);
            }
        }
        assertTrue(printed.contains("Targets"), printed);
        Benchmarks.Outcome reacquire = outcomes.stream().filter(o -> o.scenario().id().equals("2r")).findFirst().orElseThrow();
        assertTrue(reacquire.zklock().requestsPerOp() < reacquire.curator().requestsPerOp() - 0.5,
                "a re-acquire nobody else touched skips the listing: " + reacquire.zklock().requestsPerOp()
                        + " vs " + reacquire.curator().requestsPerOp() + " requests per cycle");
    }
}
