package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The quick run completes and counts requests and wake-ups; it asserts no timing, ever. */
class BenchmarksSmokeTest {
    /**
     * Every scenario runs on both libraries, is printed, and has its server requests counted
     * (zklock's cached scenarios may count none: a cached re-take of a mutex must count almost
     * none); the scale scenarios (at tiny sizes) count wake-ups and report their figures.
     */
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
                // zklock's cached re-grants (scenarios c*) may send no request at all: that is the point
                if (side == o.curator() || !id.startsWith("c")) {
                    assertTrue(side.requestsPerOp() > 0, "no requests counted in scenario " + id);
                }
            }
        }
        Benchmarks.Outcome cached = outcomes.stream().filter(o -> o.scenario().id().equals("c1")).findFirst().orElseThrow();
        assertTrue(cached.zklock().requestsPerOp() < 0.5 && cached.curator().requestsPerOp() > 2.5,
                "a cached mutex re-taken by one client sends (almost) no request: " + cached.zklock().requestsPerOp()
                        + " vs Curator's " + cached.curator().requestsPerOp());
        assertTrue(printed.contains("Targets"), printed);
        for (String id : List.of("8b", "9", "11")) {
            Benchmarks.Outcome o = outcomes.stream().filter(x -> x.scenario().id().equals(id)).findFirst().orElseThrow();
            for (Benchmarks.Side side : List.of(o.zklock(), o.curator())) {
                assertTrue(side.notificationsTotal() > 0, "threads waited in scenario " + id + " but no wake-up was counted");
            }
        }
        Benchmarks.Outcome held = outcomes.stream().filter(o -> o.scenario().id().equals("10")).findFirst().orElseThrow();
        for (Benchmarks.Side side : List.of(held.zklock(), held.curator())) {
            assertEquals(50, side.result().ops(), "every held lock acquired once and released once");
            assertEquals(List.of("server watches while held", "heap per held lease, bytes",
                    "heap per lock object after release, bytes"), List.copyOf(side.figures().keySet()));
        }
        assertTrue(printed.contains("Queue (8)") && printed.contains("Herd (9)"), printed);
        Benchmarks.Outcome reacquire = outcomes.stream().filter(o -> o.scenario().id().equals("2r")).findFirst().orElseThrow();
        assertTrue(reacquire.zklock().requestsPerOp() < reacquire.curator().requestsPerOp() - 0.5,
                "a re-acquire nobody else touched skips the listing: " + reacquire.zklock().requestsPerOp()
                        + " vs " + reacquire.curator().requestsPerOp() + " requests per cycle");
    }
}
