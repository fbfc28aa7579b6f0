package io.zklock.cli;

import static io.zklock.cli.LiveServer.zklock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code status} and {@code revoke} on a digest-secured lock: credentials come from a file or the
 * environment, never the command line, and never show in output or errors; an identity without
 * rights is refused with the cause named; a client properties file is read as ZooKeeper's tools do.
 */
class SecuredEnsembleEndToEndTest {
    private static final String SECRET = "s3cr3t-Pa55";
    private static LiveServer zk;
    private static CuratorFramework alice;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        zk = new LiveServer();
        List<ACL> acl = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL,
                new Id("digest", DigestAuthenticationProvider.generateDigest("alice:" + SECRET)))));
        alice = CuratorFrameworkFactory.builder().connectString(zk.connect()).retryPolicy(new RetryOneTime(100))
                .authorization("digest", ("alice:" + SECRET).getBytes(StandardCharsets.UTF_8))
                .aclProvider(new ACLProvider() {
                    @Override
                    public List<ACL> getDefaultAcl() {
                        return acl;
                    }

                    @Override
                    public List<ACL> getAclForPath(String path) {
                        return acl;
                    }
                }).build();
        alice.start();
        assertTrue(alice.blockUntilConnected(10, TimeUnit.SECONDS));
    }

    @AfterAll
    static void stop() {
        alice.close();
        zk.close();
    }

    private Path file(String name, String content) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, content);
        return f;
    }

    private static void assertNoSecret(LiveServer.Run run) {
        assertFalse(run.out().contains(SECRET) || run.err().contains(SECRET), "the secret leaked: " + run);
    }

    /** Without credentials, status of a lock only Alice may read fails in one line naming NoAuth (exit 1); with her auth file it shows her holder. */
    @Test
    void statusNeedsTheOwnersCredentialsFromAFile() throws Exception {
        String path = "/secured/status";
        try (Lease lease = new ZkMutex(alice, path).acquire()) {
            LiveServer.Run anonymous = zklock("status", path, "--connect", zk.connect());
            assertEquals(1, anonymous.exit(), anonymous.toString());
            assertTrue(anonymous.err().contains("not authorized (NoAuth) on " + path), anonymous.err());
            assertEquals(1, anonymous.err().lines().count(), anonymous.err());

            Path auth = file("alice.auth", "digest:alice:" + SECRET + "\n");
            LiveServer.Run run = zklock("status", path, "--connect", zk.connect(), "--auth-file", auth.toString());
            assertEquals(0, run.exit(), run.toString());
            assertTrue(run.out().startsWith(path + ": mutex, 1 holder"), run.out());
            assertTrue(run.out().contains(lease.nodePath().substring(path.length() + 1)), run.out());
            assertNoSecret(run);
        }
    }

    /** Another identity's revoke is NOT_AUTHORIZED, exit 3, and the lease is untouched; no secret shows. */
    @Test
    void anotherIdentitysRevokeIsRefused() throws Exception {
        String path = "/secured/revoke";
        // Alice's ACL lets only her read: Bob's status read is refused, so give Bob read access to this lock alone
        try (Lease lease = new ZkMutex(alice, path).acquire()) {
            alice.setACL().withACL(List.of(alice.getACL().forPath(lease.nodePath()).get(0),
                    new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE))).forPath(path);
            alice.setACL().withACL(List.of(alice.getACL().forPath(lease.nodePath()).get(0),
                    new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE))).forPath(lease.nodePath());
            Path bob = file("bob.auth", "digest:bob:" + SECRET);
            LiveServer.Run run = zklock("revoke", path, "--connect", zk.connect(), "--auth-file", bob.toString());
            assertEquals(3, run.exit(), run.toString());
            assertTrue(run.out().contains("NOT_AUTHORIZED"), run.out());
            assertNoSecret(run);
            assertTrue(lease.isValid());
            assertFalse(new String(alice.getData().forPath(lease.nodePath()), StandardCharsets.UTF_8).contains("revoke-"));
        }
    }

    /** A malformed auth file, a missing one and an unreadable client properties file are usage errors (exit 2) that never echo the content. */
    @Test
    void badCredentialSourcesAreRefusedWithoutEchoingThem() throws Exception {
        Path bad = file("bad.auth", SECRET);
        LiveServer.Run run = zklock("status", "/x", "--connect", zk.connect(), "--auth-file", bad.toString());
        assertEquals(2, run.exit(), run.toString());
        assertTrue(run.err().contains("must hold scheme:credentials"), run.err());
        assertNoSecret(run);
        LiveServer.Run missing = zklock("status", "/x", "--connect", zk.connect(), "--auth-file", dir.resolve("none").toString());
        assertEquals(2, missing.exit(), missing.toString());
        LiveServer.Run config = zklock("status", "/x", "--connect", zk.connect(), "--client-config", dir.resolve("none.properties").toString());
        assertEquals(2, config.exit(), config.toString());
        assertTrue(config.err().contains("--client-config"), config.err());
    }

    /** ZKLOCK_AUTH is read when no file is given; a malformed value is refused without showing it. */
    @Test
    void theEnvironmentVariableIsReadWhenNoFileIsGiven() {
        CommandLine cli = Zklock.commandLine();
        CuratorFrameworkFactory.Builder b = Credentials.configure(cli, null, null, Map.of(Credentials.ENV, "digest:alice:" + SECRET))
                .apply(CuratorFrameworkFactory.builder());
        assertEquals("digest", b.getAuthInfos().get(0).getScheme());
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> Credentials.configure(cli, null, null, Map.of(Credentials.ENV, SECRET)));
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());
        assertTrue(e.getMessage().contains(Credentials.ENV), e.getMessage());
    }

    /** A client properties file is handed to the client as ZooKeeper's ZKClientConfig: a setting in it reaches the session. */
    @Test
    void aClientPropertiesFileConfiguresTheSession() throws Exception {
        Path props = file("client.properties", "zookeeper.sasl.client=false\n");
        CuratorFrameworkFactory.Builder b = Credentials.configure(Zklock.commandLine(), props, null, Map.of())
                .apply(CuratorFrameworkFactory.builder());
        assertEquals("false", b.getZkClientConfig().getProperty("zookeeper.sasl.client"));
        LiveServer.Run run = zklock("status", "/secured/none", "--connect", zk.connect(), "--client-config", props.toString());
        assertEquals(0, run.exit(), run.toString());
    }
}
