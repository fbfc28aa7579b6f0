package io.zklock.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * A standalone ZooKeeper server in this process, from ZooKeeper's own jar (no test library):
 * loopback only, on a free port, with its data in a temporary directory that is deleted when
 * the server closes or, failing that, when the JVM exits.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    /** ZooKeeper's clock; sessions may be as short as two ticks, so the fencing story can use 1 s. */
    static final int TICK_MS = 500;

    private final Path dir;
    private final ZooKeeperServerEmbedded server;
    private final String connectString;
    private final Thread cleanup;

    private EmbeddedZooKeeper(Path dir, ZooKeeperServerEmbedded server, String connectString) {
        this.dir = dir;
        this.server = server;
        this.connectString = connectString;
        this.cleanup = new Thread(() -> deleteTree(dir), "zklock-embedded-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    /** Starts a server and waits until it serves clients. */
    public static EmbeddedZooKeeper start() throws Exception {
        Path dir = Files.createTempDirectory("zklock-demo-");
        try {
            int port = freePort();
            Properties config = new Properties();
            config.setProperty("clientPort", Integer.toString(port));
            config.setProperty("clientPortAddress", InetAddress.getLoopbackAddress().getHostAddress());
            config.setProperty("tickTime", Integer.toString(TICK_MS));
            config.setProperty("maxSessionTimeout", "60000");
            config.setProperty("admin.enableServer", "false");
            // a demo's data need not survive a power cut: skipping fsync keeps the story brisk
            config.setProperty("forceSync", "no");
            ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                    .baseDir(dir)
                    .configuration(config)
                    .exitHandler(ExitHandler.LOG_ONLY)
                    .build();
            server.start(10_000);
            return new EmbeddedZooKeeper(dir, server, server.getConnectionString());
        } catch (Exception | Error e) {
            deleteTree(dir);
            throw e;
        }
    }

    /** {@code host:port} for clients. */
    public String connectString() {
        return connectString;
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            deleteTree(dir);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to: it deletes an already deleted tree, harmlessly
            }
        }
    }

    private static int freePort() throws IOException {
        // another process may take the port before the server binds it; unlikely enough for a demo
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temp directory left behind is not worth failing the demo for
        }
    }
}
