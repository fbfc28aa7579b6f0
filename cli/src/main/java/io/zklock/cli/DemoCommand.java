package io.zklock.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.KeeperException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code zklock demo}: each recipe's story told by several sessions, on an embedded ZooKeeper
 * or on an ensemble given with {@code --connect}, under a fresh root path removed afterwards;
 * then one summary table. Exit code 0 when every check passed, 1 otherwise.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Shows every recipe at work, several ZooKeeper sessions each.",
            "",
            "  mutex       a counter incremented without a lock (updates lost), then",
            "              under ZkMutex (none lost); then a holder frozen past its",
            "              session timeout, whose late write its fencing token refuses",
            "  semaphore   more sessions than permits: never too many holders, and",
            "              no permit idle while a session waits",
            "  read-write  readers overlap, a writer holds alone and is not starved",
            "  multi-lock  transfers lock two accounts in random order: no deadlock,",
            "              and the total balance is conserved",
            "  leader      a leader frozen past its session timeout: the standby leads",
            "              with a larger epoch, observers hear it, the old leader's",
            "              late write is refused",
            "",
            "Then one summary table. Durations are written like 500ms, 1.5s, 2m.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every check passed",
            "1:a check failed, or ZooKeeper could not be reached",
            "2:bad usage (an unknown option, an invalid value)"})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    Duration duration = Duration.ofSeconds(2);
    Duration sessionTimeout = Duration.ofSeconds(2);
    Duration connectTimeout = Duration.ofSeconds(5);
    private UnaryOperator<CuratorFrameworkFactory.Builder> security = UnaryOperator.identity();

    @Option(names = "--connect", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "Run on this ensemble instead of an embedded server, under /zklock-demo/<uuid> (removed afterwards).")
    String connect;

    @Option(names = "--client-config", paramLabel = "FILE",
            description = "With --connect: a ZooKeeper client properties file (TLS, SASL), as for status and revoke.")
    Path clientConfig;

    @Option(names = "--auth-file", paramLabel = "FILE",
            description = "With --connect: scheme:credentials for the sessions (else the environment variable "
                    + Credentials.ENV + ", if set), as for status and revoke.")
    Path authFile;

    @Option(names = "--timeline", paramLabel = "FILE.svg",
            description = "Also draw every session's leases on a time line, as an SVG file for a browser.")
    Path timelineFile;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "2s",
            description = "How long each story's sessions run (default: ${DEFAULT-VALUE}).")
    void duration(String text) {
        duration = positive(text, "--duration");
    }

    @Option(names = "--session-timeout", paramLabel = "TIME", defaultValue = "2s",
            description = "Session timeout of the holder frozen in the fencing story (default: ${DEFAULT-VALUE}); "
                    + "the server may round it into its allowed range.")
    void sessionTimeout(String text) {
        sessionTimeout = positive(text, "--session-timeout");
    }

    @Option(names = "--connect-timeout", paramLabel = "TIME", defaultValue = "5s",
            description = "How long to wait for ZooKeeper to answer (default: ${DEFAULT-VALUE}).")
    void connectTimeout(String text) {
        connectTimeout = positive(text, "--connect-timeout");
    }

    private Duration positive(String text, String option) {
        return ConnectOptions.positive(spec.commandLine(), text, option);
    }

    @Override
    public Integer call() throws Exception {
        if (connect == null && (clientConfig != null || authFile != null)) {
            throw new ParameterException(spec.commandLine(), "--client-config and --auth-file need --connect: the embedded server is plain");
        }
        security = connect == null ? UnaryOperator.identity() : Credentials.configure(spec.commandLine(), clientConfig, authFile, System.getenv());
        PrintWriter out = spec.commandLine().getOut();
        Timeline timeline = new Timeline();
        String root = "/zklock-demo/" + UUID.randomUUID();
        List<Story.Result> results = new ArrayList<>();
        if (connect == null) {
            try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start()) {
                run(server.connectString(), "zklock demo: embedded ZooKeeper on " + server.connectString()
                        + " (data in a temporary directory, deleted at exit)", root, timeline, out, results);
            }
        } else {
            run(connect, "zklock demo: ZooKeeper ensemble " + connect + ", under " + root + " (removed afterwards)",
                    root, timeline, out, results);
        }
        out.println();
        SummaryTable.render(results).forEach(out::println);
        if (timelineFile != null) {
            writeTimeline(timeline, out);
        }
        out.flush();
        return results.stream().allMatch(r -> r.failed() == 0) ? 0 : 1;
    }

    private void run(String connectString, String header, String root, Timeline timeline, PrintWriter out, List<Story.Result> results)
            throws Exception {
        try (Stage stage = new Stage(connectString, root, duration, sessionTimeout, connectTimeout, timeline, out, security)) {
            CuratorFramework admin = stage.session();
            admin.create().creatingParentsIfNeeded().forPath(root);
            out.println(header);
            out.println("each story runs " + Durations.format(duration) + "; progress every "
                    + Durations.format(Duration.ofMillis(Math.max(100, duration.toMillis() / 4))));
            try {
                for (Story story : List.of(new MutexStory(), new SemaphoreStory(), new ReadWriteStory(), new MultiLockStory(), new ElectionStory())) {
                    Story.Result result = story.run(stage);
                    for (Story.Check check : result.checks()) {
                        out.printf("  %-4s  %s (%s)%n", check.passed() ? "ok" : "FAIL", check.name(), check.detail());
                    }
                    results.add(result);
                }
            } finally {
                removeRoot(admin, root);
            }
        }
    }

    /** Deletes the demo's root, and its parent if no other demo is using it. */
    private static void removeRoot(CuratorFramework admin, String root) throws Exception {
        admin.delete().deletingChildrenIfNeeded().forPath(root);
        try {
            admin.delete().forPath(root.substring(0, root.lastIndexOf('/')));
        } catch (KeeperException.NotEmptyException | KeeperException.NoNodeException another) {
            // another demo runs beside this one, or has just removed it: either way, not ours to touch
        }
    }

    private void writeTimeline(Timeline timeline, PrintWriter out) throws IOException {
        Path parent = timelineFile.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(timelineFile, TimelineSvg.render(timeline, "zklock demo: every session's leases"),
                StandardCharsets.UTF_8);
        out.println("timeline: " + timelineFile.toAbsolutePath() + " (" + timeline.lanes().size() + " sessions, "
                + timeline.bars().size() + " leases; open it in a browser)");
    }
}
