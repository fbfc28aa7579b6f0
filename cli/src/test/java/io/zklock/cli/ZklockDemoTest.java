package io.zklock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The demo runs to the end on its embedded ZooKeeper and reports every grant. */
class ZklockDemoTest {
    /** Two clients, one round: two mutex grants and two semaphore grants are printed, and the command exits 0. */
    @Test
    void demoPrintsEveryGrantAndExitsZero() {
        Zklock.Demo demo = new Zklock.Demo();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        demo.out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int exit = new CommandLine(demo).execute("--clients", "2", "--rounds", "1", "--hold", "PT0.01S");
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, printed);
        assertEquals(4, printed.lines().filter(l -> l.contains(" holds, token ")).count(), printed);
        assertTrue(printed.contains("done: every lease released, 0 lock nodes left"), printed);
    }

    /** Bad options are refused with a usage error, not a stack trace. */
    @Test
    void badOptionsAreRefused() {
        assertEquals(2, new CommandLine(new Zklock.Demo()).execute("--clients", "0"));
    }
}
