package io.zklock.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockException;
import io.zklock.core.LockStatus;
import io.zklock.core.RevocationResult;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.ZkProbe;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Secured ensembles, on a real server with digest authentication, for every recipe (mutex,
 * semaphore, read lock, write lock, multi-lock): every node zklock creates carries the ACL the
 * client's {@link ACLProvider} gives for its path; another identity without rights fails at once
 * with a message naming the cause, cannot revoke, and leaves the owner's lease untouched; a
 * read-only identity can run status; a session whose authentication failed fails its
 * acquisitions instead of hanging.
 */
class SecurityConformanceTest {
    private static final Duration LONG = Duration.ofSeconds(60);
    /**
     * Requests a refused acquisition may send: its create, or its transaction and the creation of
     * each directory with Curator's look at every parent on the way (a multi-lock of two locks
     * five levels down sends 11); a retry loop sends thousands a second.
     */
    private static final long REFUSED_REQUEST_BOUND = 20;
    private static final String ROOT = "/secure";

    private static TestingServer server;
    private static ZkProbe probe;
    private final List<CuratorFramework> clients = new CopyOnWriteArrayList<>();

    static List<ACL> aliceAcl() {
        try {
            // a mutable list, as ZooKeeper's own Ids lists are: Curator's create sorts out duplicates in place
            return new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest("alice:alice-secret"))),
                    new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Alice's provider: her ACL under {@link #ROOT}, the open ACL elsewhere (per path, as Curator allows). */
    static final ACLProvider ALICE_PER_PATH = new ACLProvider() {
        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.OPEN_ACL_UNSAFE;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return path.startsWith(ROOT) ? aliceAcl() : ZooDefs.Ids.OPEN_ACL_UNSAFE;
        }
    };

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
        probe = new ZkProbe(server.getPort());
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(CuratorFramework::close);
        clients.clear();
    }

    /** The recipes, each a lock on a path made from a client; the multi-lock spans a mutex and a semaphore. */
    static Stream<Arguments> recipes() {
        return Stream.of(
                Arguments.of("mutex", (BiFunction<CuratorFramework, String, DistributedLock>) ZkMutex::new),
                Arguments.of("semaphore", (BiFunction<CuratorFramework, String, DistributedLock>) (c, p) -> new ZkSemaphore(c, p, 2)),
                Arguments.of("read", (BiFunction<CuratorFramework, String, DistributedLock>) (c, p) -> new ZkReadWriteLock(c, p).readLock()),
                Arguments.of("write", (BiFunction<CuratorFramework, String, DistributedLock>) (c, p) -> new ZkReadWriteLock(c, p).writeLock()),
                Arguments.of("multilock", (BiFunction<CuratorFramework, String, DistributedLock>) (c, p) ->
                        new ZkMultiLock(List.of(new ZkMutex(c, p + "/m"), new ZkSemaphore(c, p + "/s", 2)))));
    }

    CuratorFramework client(String auth, ACLProvider acl) throws InterruptedException {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(15_000).connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(20, 3, 200))
                .ensembleTracker(false);
        if (auth != null) {
            b.authorization(auth.substring(0, auth.indexOf(':')), auth.substring(auth.indexOf(':') + 1).getBytes(StandardCharsets.UTF_8));
        }
        if (acl != null) {
            b.aclProvider(acl);
        }
        CuratorFramework c = b.build();
        clients.add(c);
        c.start();
        assertTrue(c.blockUntilConnected(20, TimeUnit.SECONDS), "connected");
        return c;
    }

    CuratorFramework alice() throws InterruptedException {
        return client("digest:alice:alice-secret", ALICE_PER_PATH);
    }

    static String pathFor(String recipe) {
        return ROOT + "/" + recipe + "/" + UUID.randomUUID() + "/deep/lock";
    }

    static long session(CuratorFramework c) throws Exception {
        return c.getZookeeperClient().getZooKeeper().getSessionId();
    }

    /** Every node the acquisition created, directories and container parents included, carries the ACL Alice's provider gives for its path. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void everyNodeZklockCreatesCarriesTheClientsAcl(String recipe, BiFunction<CuratorFramework, String, DistributedLock> make)
            throws Exception {
        CuratorFramework alice = alice();
        String path = pathFor(recipe);
        try (Lease lease = make.apply(alice, path).acquire()) {
            String top = ROOT + "/" + recipe + "/" + path.split("/")[3];
            List<String> nodes = new ArrayList<>();
            collect(alice, top, nodes);
            assertTrue(nodes.stream().anyMatch(n -> n.contains("/_c_")), "lock nodes among " + nodes);
            assertTrue(nodes.contains(path) || nodes.contains(path + "/m"), "the lock directory among " + nodes);
            for (String node : nodes) {
                assertEquals(aliceAcl(), alice.getACL().forPath(node), "ACL of " + node);
            }
            assertEquals(aliceAcl(), alice.getACL().forPath(ROOT), "ACL of the container parent " + ROOT);
            assertTrue(lease.isValid());
        }
    }

    /**
     * Another identity with read rights only: its acquire, of the held lock and of a new lock in
     * Alice's subtree, fails at once with a LockException naming NoAuth and the path, after a
     * handful of requests (no retry loop, no wait for the timeout); its revocation request is
     * NOT_AUTHORIZED; status works for it; Alice's lease and node data are untouched.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void anotherIdentityCannotTakeOrRevokeButCanReadStatus(String recipe, BiFunction<CuratorFramework, String, DistributedLock> make)
            throws Exception {
        CuratorFramework alice = alice();
        String path = pathFor(recipe);
        Lease lease = make.apply(alice, path).acquire();
        String node = lease.nodePath();
        byte[] before = alice.getData().forPath(node);

        CuratorFramework bob = client("digest:bob:bob-secret", null);
        long bobSession = session(bob);
        for (String target : List.of(path, path.replace("/deep/lock", "/deep/other"))) {
            long sent = probe.packetsBySession().getOrDefault(bobSession, 0L);
            CompletableFuture<Lease> attempt = make.apply(bob, target).acquireAsync(LONG);
            ExecutionException e = assertThrows(ExecutionException.class, () -> attempt.get(LONG.toSeconds(), TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof LockException, "a LockException, not " + e.getCause());
            String message = e.getCause().getMessage();
            assertTrue(message.contains("not authorized (NoAuth)") && message.contains(target), message);
            long requests = probe.packetsBySession().getOrDefault(bobSession, 0L) - sent;
            assertTrue(requests <= REFUSED_REQUEST_BOUND, requests + " requests for a refused acquire of " + target);
            // the blocking call says the same
            LockException blocking = assertThrows(LockException.class, () -> make.apply(bob, target).tryAcquire(LONG));
            assertTrue(blocking.getMessage().contains("not authorized (NoAuth)"), blocking.getMessage());
        }

        LockAdmin bobAdmin = new LockAdmin(bob);
        assertEquals(RevocationResult.NOT_AUTHORIZED, bobAdmin.requestRevocation(node));
        Map<String, RevocationResult> all = bobAdmin.requestRevocationOfHolders(node.substring(0, node.lastIndexOf('/')));
        assertFalse(all.isEmpty());
        all.values().forEach(r -> assertEquals(RevocationResult.NOT_AUTHORIZED, r));
        LockStatus status = bobAdmin.status(node.substring(0, node.lastIndexOf('/')));
        assertEquals(LockStatus.State.LOCK, status.state());
        assertTrue(status.holders().stream().anyMatch(p -> p.nodePath().equals(node)), status.toString());
        assertEquals(List.of(), status.problems());

        assertTrue(lease.isValid(), "the owner's lease is untouched");
        assertArrayEquals(before, alice.getData().forPath(node), "the owner's node data is untouched");
        lease.close();
        assertEquals(null, alice.checkExists().forPath(node));
    }

    /** An identity that may not even read: status fails with a LockException naming NoAuth, nothing is written. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void anIdentityThatMayNotReadGetsStatusRefusedWithTheCause(String recipe, BiFunction<CuratorFramework, String, DistributedLock> make)
            throws Exception {
        List<ACL> aliceOnly = new ArrayList<>(List.of(aliceAcl().get(0)));
        CuratorFramework alice = client("digest:alice:alice-secret", new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return aliceOnly;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                return aliceOnly;
            }
        });
        String path = ROOT + "-private/" + recipe + "/" + UUID.randomUUID();
        try (Lease lease = make.apply(alice, path).acquire()) {
            String dir = lease.nodePath().substring(0, lease.nodePath().lastIndexOf('/'));
            LockAdmin carol = new LockAdmin(client("digest:carol:carol-secret", null));
            LockException e = assertThrows(LockException.class, () -> carol.status(dir));
            assertTrue(e.getMessage().contains("not authorized (NoAuth) on " + dir), e.getMessage());
            assertEquals(RevocationResult.NOT_AUTHORIZED, carol.requestRevocation(lease.nodePath()));
            assertTrue(lease.isValid());
            assertEquals(Optional.empty(), new LockAdmin(alice).status(dir).participants().get(0).revocationRequest());
        }
    }

    /**
     * A session whose authentication the server refused (a scheme it has no provider for: the
     * server answers AuthFailed and closes the connection): an acquisition fails with a
     * LockException naming the cause, well within its timeout, instead of hanging (the multi-lock's
     * sweep of a transaction whose reply was lost used to retry its listing for ever on such a
     * session).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void anAuthFailedSessionFailsItsAcquisitionsWithTheCause(String recipe, BiFunction<CuratorFramework, String, DistributedLock> make)
            throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(15_000).connectionTimeoutMs(5_000).retryPolicy(new ExponentialBackoffRetry(20, 3, 200))
                .authorization("no-such-scheme", "whatever".getBytes(StandardCharsets.UTF_8)).ensembleTracker(false).build();
        clients.add(c);
        c.start();
        CompletableFuture<Lease> attempt = make.apply(c, "/open/" + recipe + "/" + UUID.randomUUID()).acquireAsync(LONG);
        ExecutionException e = assertThrows(ExecutionException.class, () -> attempt.get(LONG.toSeconds() / 2, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof LockException, "a LockException, not " + e.getCause());
        assertTrue(e.getCause().getMessage().contains("authentication failed (AuthFailed)"), e.getCause().getMessage());
    }

    private static void collect(CuratorFramework c, String path, List<String> out) throws Exception {
        out.add(path);
        for (String child : c.getChildren().forPath(path)) {
            collect(c, path + "/" + child, out);
        }
    }
}
