package io.zklock.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The options of the commands that work on a real ensemble ({@code status}, {@code revoke}):
 * where it is and how long to wait for it, and the one client they open on it.
 */
final class ConnectOptions {
    /** Long enough that a slow redraw of {@code status --watch} never loses its session. */
    private static final int SESSION_TIMEOUT_MS = 30_000;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    Duration timeout = Duration.ofSeconds(5);

    // required: an operator tool that silently asked localhost when the option was forgotten
    // would report "no lock" for a lock that exists elsewhere
    @Option(names = "--connect", required = true, paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "The ZooKeeper ensemble (required); a chroot suffix, host:port/apps, works as in any client.")
    String connect;

    @Option(names = "--client-config", paramLabel = "FILE",
            description = "A ZooKeeper client properties file, as ZooKeeper's own tools read it: TLS (zookeeper.client.secure, "
                    + "zookeeper.clientCnxnSocket, zookeeper.ssl.*), SASL (zookeeper.sasl.*, with -Djava.security.auth.login.config).")
    Path clientConfig;

    @Option(names = "--auth-file", paramLabel = "FILE",
            description = "A file holding scheme:credentials on its first line, e.g. digest:user:password; "
                    + "without it, the environment variable " + Credentials.ENV + " is read. Never on the command line.")
    Path authFile;

    @Option(names = {"--timeout", "--connect-timeout"}, paramLabel = "TIME", defaultValue = "5s",
            description = "How long to wait for ZooKeeper to answer when connecting (default: ${DEFAULT-VALUE}).")
    void timeout(String text) {
        timeout = positive(spec.commandLine(), text, "--timeout");
    }

    /**
     * A started client, connected.
     *
     * @throws Stage.Unreachable if no server answers within the timeout (the client is closed)
     */
    CuratorFramework open() throws InterruptedException {
        CuratorFramework client;
        CuratorFrameworkFactory.Builder builder = Credentials.configure(spec.commandLine(), clientConfig, authFile, System.getenv())
                .apply(CuratorFrameworkFactory.builder());
        try {
            client = builder
                    .connectString(connect)
                    .sessionTimeoutMs(SESSION_TIMEOUT_MS)
                    .connectionTimeoutMs((int) timeout.toMillis())
                    .retryPolicy(new ExponentialBackoffRetry(100, 3))
                    .build();
            client.start();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "invalid --connect '" + connect + "': " + e.getMessage());
        }
        boolean connected = false;
        try {
            connected = client.blockUntilConnected((int) timeout.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            if (!connected) {
                client.close();
            }
        }
        if (!connected) {
            throw new Stage.Unreachable(connect, timeout);
        }
        return client;
    }

    /**
     * A duration option's value, more than zero.
     *
     * @throws ParameterException naming the value and the option, in the form every duration option shares
     */
    static Duration positive(CommandLine commandLine, String text, String option) {
        try {
            Duration d = Durations.parse(text);
            if (!d.isZero()) {
                return d;
            }
        } catch (IllegalArgumentException e) {
            // reported below
        }
        throw new ParameterException(commandLine, "invalid duration '" + text + "' for " + option + " (use e.g. 500ms, 2s, 1m)");
    }
}
