package io.zklock.conformance.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A standalone ZooKeeper server of any version, run as its own JVM from that version's jars
 * (so its classes never meet the client's), on a free loopback port with a fresh data
 * directory. {@link #close()} kills it and deletes the data; a shutdown hook kills it if the
 * test JVM exits first.
 */
final class ServerProcess implements AutoCloseable {
    private final String version;
    private final Process process;
    private final Thread killer;
    private final Path dataDir;
    private final Path log;
    private final int port;

    private ServerProcess(String version, Process process, Path dataDir, Path log, int port) {
        this.version = version;
        this.process = process;
        this.dataDir = dataDir;
        this.log = log;
        this.port = port;
        this.killer = new Thread(process::destroyForcibly, "kill-zookeeper-" + version);
        Runtime.getRuntime().addShutdownHook(killer);
    }

    /**
     * Starts the server whose jars are in {@code jars} and waits until it answers {@code ruok}
     * and reports {@code version} through {@code srvr}.
     *
     * @param log where the server's output goes
     */
    static ServerProcess start(String version, Path jars, Path log, Duration startTimeout) throws IOException {
        List<Path> classpath;
        try (Stream<Path> files = Files.list(jars)) {
            classpath = files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
        }
        if (classpath.isEmpty()) {
            throw new IllegalStateException("no server jars in " + jars + ": run with -Pmatrix");
        }
        int port = freePort();
        Path dataDir = Files.createTempDirectory("zk-" + version + "-");
        Path config = dataDir.resolve("zoo.cfg");
        Files.writeString(config, String.join("\n",
                "tickTime=500",
                "dataDir=" + dataDir.resolve("data"),
                "clientPort=" + port,
                "clientPortAddress=127.0.0.1",
                "maxClientCnxns=0",
                "admin.enableServer=false",
                "4lw.commands.whitelist=ruok,srvr,wchs,wchp",
                ""));
        Files.createDirectories(log.getParent());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dzookeeper.admin.enableServer=false",
                "-Dzookeeper.4lw.commands.whitelist=ruok,srvr,wchs,wchp",
                "-Dznode.container.checkIntervalMs=1000",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp", classpath.stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator)),
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                config.toString()));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        ServerProcess server = new ServerProcess(version, process, dataDir, log, port);
        try {
            server.awaitReady(startTimeout);
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    /** What the server says of its version ({@code srvr}), for the report. */
    String reportedVersion() {
        return fourLetterWord("srvr").lines()
                .filter(l -> l.startsWith("Zookeeper version:"))
                .findFirst().orElse("?");
    }

    /** Watches the server holds over all sessions ({@code wchs}: "Total watches:N"). */
    int watchCount() {
        return fourLetterWord("wchs").lines()
                .filter(l -> l.startsWith("Total watches:"))
                .mapToInt(l -> Integer.parseInt(l.substring("Total watches:".length()).trim()))
                .findFirst().orElseThrow(() -> new IllegalStateException("no watch total in wchs"));
    }

    /** The paths the server watches, per path its sessions ({@code wchp}): what a failed watch count shows. */
    String watchedPaths() {
        return fourLetterWord("wchp");
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("ZooKeeper " + version + " exited with " + process.exitValue()
                        + " before serving; its log " + log + " ends:\n" + tail());
            }
            try {
                // ruok says imok as soon as the port is open; srvr reports a version only once serving
                String reported = reportedVersion();
                if ("imok".equals(fourLetterWord("ruok")) && !reported.equals("?")) {
                    if (!reported.contains(version + "-") && !reported.contains(version + " ")) {
                        throw new IllegalStateException("expected ZooKeeper " + version + ", the server says: " + reported);
                    }
                    return;
                }
            } catch (UncheckedIOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("ZooKeeper " + version + " not serving after " + timeout
                        + "; its log " + log + " ends:\n" + tail());
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted starting ZooKeeper " + version, e);
            }
        }
    }

    private String fourLetterWord(String word) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is no test failure
        }
    }
}
