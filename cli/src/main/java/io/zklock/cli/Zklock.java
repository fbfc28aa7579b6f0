package io.zklock.cli;

import java.io.PrintWriter;

import io.zklock.core.LockException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The {@code zklock} command. Expected failures (bad usage, an unreachable ensemble) are one
 * line on standard error, {@code zklock: ...}, never a stack trace.
 */
@Command(name = "zklock", mixinStandardHelpOptions = true, version = "zklock 0.1.0-SNAPSHOT",
        description = "Distributed lock recipes on Apache ZooKeeper.",
        subcommands = {DemoCommand.class, StatusCommand.class, RevokeCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success (demo: every check passed)",
            "1:a check failed, or ZooKeeper could not be reached or read",
            "2:bad usage",
            "3:revoke: nothing done (nobody holds, the node is gone, not confirmed)"})
public final class Zklock implements Runnable {
    static final int BAD_USAGE = 2;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with zklock's error handling, for {@link #main} and for tests. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Zklock());
        cli.setParameterExceptionHandler((e, args) -> {
            PrintWriter err = e.getCommandLine().getErr();
            String message = e.getMessage() == null ? "bad usage" : e.getMessage().lines().findFirst().orElse("bad usage");
            err.println("zklock: " + message);
            err.flush();
            return BAD_USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            PrintWriter err = commandLine.getErr();
            if (e instanceof Stage.Unreachable || e instanceof LockException) {
                // expected: ZooKeeper is away or refuses; the message names the path and the cause
                err.println("zklock: " + e.getMessage().lines().findFirst().orElse(e.toString()));
            } else {
                // not an expected failure: the trace is what a bug report needs
                err.println("zklock: unexpected failure: " + e);
                e.printStackTrace(err);
            }
            err.flush();
            return 1;
        });
        return cli;
    }

    /** {@code zklock} alone: the usage, and the bad-usage code, since no command was given. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "missing command; try 'zklock demo', 'zklock status', or 'zklock --help'");
    }
}
