package io.zklock.cli;

import static io.zklock.cli.LiveServer.zklock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status} and {@code revoke} against a TLS-only embedded server (Netty, a secure client
 * port and no plain one), its certificate made for the test by the JDK's own {@code keytool}:
 * the commands reach it through a ZooKeeper client properties file ({@code --client-config})
 * and only so, and the key store password in that file never shows.
 */
class TlsEnsembleEndToEndTest {
    private static final String STORE_PASSWORD = "tls-St0re-pw";

    @TempDir
    static Path dir;
    private static ZooKeeperServerEmbedded server;
    private static String connect;
    private static Path clientConfig;
    private static CuratorFramework holder;

    @BeforeAll
    static void start() throws Exception {
        Path keyStore = dir.resolve("zk.p12");
        Path cert = dir.resolve("zk.crt");
        Path trustStore = dir.resolve("trust.p12");
        keytool("-genkeypair", "-alias", "zk", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-keystore", keyStore.toString(),
                "-storetype", "PKCS12", "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
        keytool("-exportcert", "-alias", "zk", "-keystore", keyStore.toString(), "-storepass", STORE_PASSWORD, "-file", cert.toString());
        keytool("-importcert", "-noprompt", "-alias", "zk", "-file", cert.toString(), "-keystore", trustStore.toString(),
                "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);

        int port = freePort();
        Properties config = new Properties();
        config.setProperty("secureClientPort", Integer.toString(port));
        config.setProperty("secureClientPortAddress", "127.0.0.1");
        config.setProperty("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
        config.setProperty("ssl.keyStore.location", keyStore.toString());
        config.setProperty("ssl.keyStore.password", STORE_PASSWORD);
        config.setProperty("ssl.trustStore.location", trustStore.toString());
        config.setProperty("ssl.trustStore.password", STORE_PASSWORD);
        config.setProperty("admin.enableServer", "false");
        config.setProperty("tickTime", "500");
        Path data = Files.createDirectories(dir.resolve("data"));
        server = ZooKeeperServerEmbedded.builder().baseDir(data).configuration(config).exitHandler(ExitHandler.LOG_ONLY).build();
        server.start(10_000);
        connect = "127.0.0.1:" + port;

        clientConfig = dir.resolve("client.properties");
        Files.writeString(clientConfig, String.join("\n",
                "zookeeper.client.secure=true",
                "zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty",
                "zookeeper.ssl.keyStore.location=" + keyStore,
                "zookeeper.ssl.keyStore.password=" + STORE_PASSWORD,
                "zookeeper.ssl.trustStore.location=" + trustStore,
                "zookeeper.ssl.trustStore.password=" + STORE_PASSWORD, ""));
        holder = CuratorFrameworkFactory.builder().connectString(connect).zkClientConfig(new ZKClientConfig(clientConfig))
                .retryPolicy(new RetryOneTime(100)).build();
        holder.start();
        assertTrue(holder.blockUntilConnected(20, TimeUnit.SECONDS), "a TLS client connects");
    }

    @AfterAll
    static void stop() {
        if (holder != null) {
            holder.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool finished");
        assertEquals(0, p.exitValue(), "keytool " + args[0] + ": " + output);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void assertNoSecret(LiveServer.Run run) {
        assertFalse(run.out().contains(STORE_PASSWORD) || run.err().contains(STORE_PASSWORD), "the store password leaked: " + run);
    }

    /** With the client properties file, status over TLS shows the holder; the store password never shows. */
    @Test
    void statusOverTlsWithAClientPropertiesFile() throws Exception {
        String path = "/tls/status";
        try (Lease lease = new ZkMutex(holder, path).acquire()) {
            LiveServer.Run run = zklock("status", path, "--connect", connect, "--client-config", clientConfig.toString());
            assertEquals(0, run.exit(), run.toString());
            assertTrue(run.out().startsWith(path + ": mutex, 1 holder"), run.out());
            assertTrue(run.out().contains(lease.nodePath().substring(path.length() + 1)), run.out());
            assertNoSecret(run);
        }
    }

    /** Without it, a plain client cannot speak to a TLS-only port: one line, exit 1, within the timeout. */
    @Test
    void withoutTheClientPropertiesFileATlsOnlyServerIsUnreachable() {
        LiveServer.Run run = zklock("status", "/tls/status", "--connect", connect, "--timeout", "2s");
        assertEquals(1, run.exit(), run.toString());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains("cannot reach ZooKeeper at " + connect), run.err());
    }

    /** revoke over TLS writes the request into the holder's node. */
    @Test
    void revokeOverTls() throws Exception {
        String path = "/tls/revoke";
        try (Lease lease = new ZkMutex(holder, path).acquire()) {
            LiveServer.Run run = zklock("revoke", path, "--connect", connect, "--client-config", clientConfig.toString());
            assertEquals(0, run.exit(), run.toString());
            assertTrue(run.out().startsWith("REQUESTED"), run.out());
            assertNoSecret(run);
            assertTrue(new String(holder.getData().forPath(lease.nodePath())).contains("revoke-requested="));
        }
    }

    /** demo --connect runs every story over TLS through the client properties file; without --connect the option is refused. */
    @Test
    void demoOverTls() {
        LiveServer.Run run = zklock("demo", "--connect", connect, "--client-config", clientConfig.toString(),
                "--duration", "300ms", "--session-timeout", "1s");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("zklock demo: ZooKeeper ensemble " + connect), run.out());
        assertNoSecret(run);
        LiveServer.Run refused = zklock("demo", "--client-config", clientConfig.toString());
        assertEquals(2, refused.exit(), refused.toString());
        assertTrue(refused.err().contains("need --connect"), refused.err());
    }
}
