package io.zklock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The command as a user runs it, in a JVM of its own (so that everything it writes, logs
 * included, is seen): help, bad usage and an unreachable ensemble.
 */
class CommandLineTest {

    /** The result of one run: exit code, standard output and standard error. */
    private record Run(int exit, String out, String err) {
    }

    /** {@code zklock --help} lists the demo, status and revoke commands and exits 0. */
    @Test
    void rootHelpListsTheCommands() throws Exception {
        Run run = zklock("--help");
        assertEquals(0, run.exit, run.err);
        for (String command : List.of("demo", "status", "revoke", "Exit codes:")) {
            assertTrue(run.out.contains(command), command + " missing from\n" + run.out);
        }
    }

    /** {@code status --help} and {@code revoke --help} describe their options and exit codes, and exit 0. */
    @Test
    void statusAndRevokeHelpDescribeTheOptions() throws Exception {
        Run status = zklock("status", "--help");
        assertEquals(0, status.exit, status.err);
        for (String option : List.of("--connect", "--timeout", "--json", "--recursive", "--watch", "Exit codes:")) {
            assertTrue(status.out.contains(option), option + " missing from\n" + status.out);
        }
        assertFalse(status.out.contains("--watch-count"), status.out);
        Run revoke = zklock("revoke", "--help");
        assertEquals(0, revoke.exit, revoke.err);
        for (String option : List.of("--connect", "--node", "--force", "--yes", "fencing tokens", "3   nothing done")) {
            assertTrue(revoke.out.contains(option), option + " missing from\n" + revoke.out);
        }
    }

    /**
     * status and revoke on an ensemble nobody answers at: one line naming the address, exit 1, no
     * trace, within the timeout given (measured beyond what a JVM of the command takes to start
     * and print its help, so that a loaded machine's slow start is not counted).
     */
    @Test
    void statusAndRevokeOnAnUnreachableEnsembleAreOneLineAndExitOne() throws Exception {
        long start = System.nanoTime();
        assertEquals(0, zklock("--help").exit);
        long startUp = System.nanoTime() - start;
        for (String command : List.of("status", "revoke")) {
            long started = System.nanoTime();
            Run run = zklock(command, "/locks/x", "--connect", "127.0.0.1:1", "--timeout", "1s");
            long took = System.nanoTime() - started - startUp;
            assertEquals(1, run.exit, run.err);
            assertEquals("zklock: cannot reach ZooKeeper at 127.0.0.1:1 within 1 s\n", run.err);
            assertEquals("", run.out);
            assertTrue(took < TimeUnit.SECONDS.toNanos(4), command + " took " + took / 1_000_000 + " ms beyond a start-up");
        }
    }

    /** revoke --force with no terminal and no --yes is refused in one line, exit 2, before any connection is tried. */
    @Test
    void forceWithoutTerminalIsRefused() throws Exception {
        Run run = zklock("revoke", "/locks/x", "--force", "--connect", "127.0.0.1:1", "--timeout", "1s");
        assertEquals(2, run.exit, run.err);
        assertEquals("zklock: --force asks for confirmation on a terminal, and there is none; add --yes to delete without asking\n",
                run.err);
    }

    /** {@code zklock demo --help} describes every option and exits 0 without running anything. */
    @Test
    void demoHelpDescribesTheOptions() throws Exception {
        Run run = zklock("demo", "--help");
        assertEquals(0, run.exit, run.err);
        for (String option : List.of("--connect", "--timeline", "--duration", "--session-timeout")) {
            assertTrue(run.out.contains(option), option + " missing from\n" + run.out);
        }
        assertTrue(!run.out.contains("embedded ZooKeeper on"), run.out);
    }

    /** A bad duration is one line naming the value and the option, and exit code 2. */
    @Test
    void badDurationIsOneLineAndExitTwo() throws Exception {
        Run run = zklock("demo", "--duration", "x");
        assertEquals(2, run.exit);
        assertEquals("zklock: invalid duration 'x' for --duration (use e.g. 500ms, 2s, 1m)\n", run.err);
        assertEquals("", run.out);
    }

    /** An unknown option, or no command at all, is one line and exit code 2. */
    @Test
    void badUsageIsOneLineAndExitTwo() throws Exception {
        for (String[] args : List.of(new String[] {"demo", "--bogus"}, new String[] {})) {
            Run run = zklock(args);
            assertEquals(2, run.exit, run.err);
            assertEquals(1, run.err.lines().count(), run.err);
            assertTrue(run.err.startsWith("zklock: "), run.err);
        }
    }

    /** An ensemble nobody answers at is one line naming the address, exit code 1, and no stack trace. */
    @Test
    void unreachableEnsembleIsOneLineAndExitOne() throws Exception {
        Run run = zklock("demo", "--connect", "127.0.0.1:1", "--connect-timeout", "1s");
        assertEquals(1, run.exit, run.err);
        assertEquals("zklock: cannot reach ZooKeeper at 127.0.0.1:1 within 1 s\n", run.err);
        assertEquals("", run.out);
    }

    private static Run zklock(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-cp", System.getProperty("java.class.path"), Zklock.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        var out = p.getInputStream().readAllBytes();    // small outputs: reading one then the other cannot block
        var err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "zklock " + String.join(" ", args) + " did not end");
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }
}
