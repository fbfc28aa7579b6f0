package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The fault mix runs both libraries on one timeline and judges them; it asserts no timing. */
class FaultMixSmokeTest {
    /**
     * A 3 s round per library with one fault (a holder's session expired on the server): both
     * libraries complete operations, the fault is injected in both rounds at the same planned
     * moment, zklock's holders never overlap (no violation), and Curator's are judged in both
     * views (the careless one counts at least what the careful one does). The clients use
     * ZooKeeper's Netty socket: the NIO one tells a client its connection was closed 100 ms late,
     * so a holder expired by force in mid-hold could still say HELD beside its successor with any
     * library (see docs/benchmarks.md, "Forced expiry and the client's socket").
     */
    @Test
    void oneRoundEachOnTheSameTimelineAndZklockHasNoViolation() throws Exception {
        var bytes = new ByteArrayOutputStream();
        Map<String, List<FaultMix.Round>> results;
        try (var out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = FaultMix.run(FaultMix.parse("--scenario", "faults", "--seconds", "3", "--rounds", "1",
                    "--recipe", "mutex", "--kinds", "expire_holder", "--warmup", "0", "--servers", "1",
                    "--client-socket", "netty"), out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        List<FaultMix.Round> rounds = results.get("mutex");
        assertEquals(List.of("zklock", "Curator"), rounds.stream().map(FaultMix.Round::library).toList());
        for (FaultMix.Round r : rounds) {
            assertTrue(r.ops() > 0, r.library() + " completed no operation: " + printed);
            assertEquals(1, r.windows().size(), "one planned fault per round: " + printed);
            assertEquals(FaultMix.Kind.EXPIRE_HOLDER, r.windows().get(0).planned.kind());
        }
        assertEquals(0, rounds.get(0).violations(), "zklock holders overlapped: " + rounds.get(0).example());
        FaultMix.Round curator = rounds.get(1);
        assertTrue(curator.carelessViolations() >= curator.violations(),
                "every write judged in the careful view is judged in the careless view too: " + printed);
        assertTrue(printed.contains("| careless violations |"), printed);
        assertTrue(printed.contains("| mutex | EXPIRE_HOLDER |"), printed);
    }

    /** Bad options are refused by name. */
    @Test
    void badOptionsAreRefusedByName() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> FaultMix.parse("--scenario", "faults", "--recipe", "queue"));
        assertTrue(e.getMessage().contains("queue"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> FaultMix.parse("--kinds", "meteor"));
        assertTrue(e.getMessage().contains("meteor"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> FaultMix.parse("--client-socket", "epoll"));
        assertTrue(e.getMessage().contains("epoll"), e.getMessage());
        assertTrue(Benchmarks.isFaultMix("--scenario", "faults"));
    }

    /** {@code --client-socket netty} gives the clients ZooKeeper's Netty socket; the default is ZooKeeper's own (NIO). */
    @Test
    void theClientSocketIsChosenByOption() {
        String key = org.apache.zookeeper.client.ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET;
        assertEquals("org.apache.zookeeper.ClientCnxnSocketNetty",
                FaultMix.clientConfig(FaultMix.parse("--client-socket", "netty")).getProperty(key));
        assertEquals(null, FaultMix.clientConfig(FaultMix.parse()).getProperty(key));
    }
}
