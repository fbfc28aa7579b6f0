package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.zklock.conformance.harness.Recipe;
import io.zklock.core.Lease;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockException;
import io.zklock.core.LockStatus;
import io.zklock.core.RevocationResult;
import io.zklock.shedlock.ZkLockProvider;
import io.zklock.spring.integration.ZkLockRegistry;
import io.zklock.spring.integration.ZkRegistryLock;
import io.zklock.testing.ZkProbe;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Secured ensembles, on a real server with digest authentication, for every recipe of
 * {@link Recipe#all()} and for the nodes the integrations create (zklock-shedlock's
 * {@link ZkLockProvider}, zklock-spring-integration's {@link ZkLockRegistry}): every node zklock
 * creates carries the ACL the client's {@link ACLProvider} gives for its path; another identity
 * without rights fails at once with a message naming the cause, cannot revoke, and leaves the
 * owner's lease untouched; a read-only identity can run status; a session whose authentication
 * failed fails its acquisitions instead of hanging.
 */
class SecurityPropertiesTest {
    private static final Duration LONG = Duration.ofSeconds(60);
    /**
     * Requests a refused acquisition may send per lock directory it stands on: its create (for a
     * multi-lock its one transaction), and where the directory is missing, its creation with
     * Curator's look at every parent on the way (six requests for a lock five levels down; a
     * multi-lock makes its directories together, 21 requests for four of them); a retry loop
     * sends thousands a second.
     */
    private static final long REFUSED_REQUESTS_PER_DIRECTORY = 10;
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

    static List<Recipe> recipes() {
        return Recipe.all();
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

    /** Bob: authenticated, but in no ACL of Alice's; he may read what anyone may read. */
    CuratorFramework bob() throws InterruptedException {
        return client("digest:bob:bob-secret", null);
    }

    static String pathFor(Recipe recipe) {
        return ROOT + "/" + recipe.name() + "/" + UUID.randomUUID() + "/deep/lock";
    }

    static long session(CuratorFramework c) throws Exception {
        return c.getZookeeperClient().getZooKeeper().getSessionId();
    }

    /** Requests {@code c}'s session has sent so far, as the server counts them. */
    static long sent(CuratorFramework c) throws Exception {
        return probe.packetsBySession().getOrDefault(session(c), 0L);
    }

    /** Every node the acquisition created, directories and container parents included, carries the ACL Alice's provider gives for its path. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void everyNodeZklockCreatesCarriesTheClientsAcl(Recipe recipe) throws Exception {
        CuratorFramework alice = alice();
        String path = pathFor(recipe);
        try (Lease lease = recipe.create(alice, path).acquire()) {
            String top = ROOT + "/" + recipe.name() + "/" + path.split("/")[3];
            List<String> nodes = new ArrayList<>();
            collect(alice, top, nodes);
            assertTrue(nodes.containsAll(Recipe.nodesOf(lease)), "the lease's nodes among " + nodes);
            for (Recipe.Component part : recipe.parts()) {
                assertTrue(nodes.contains(path + part.subPath()), "the lock directory " + path + part.subPath() + " among " + nodes);
            }
            assertAclsAreAlices(alice, nodes);
            assertAclsAreAlices(alice, List.of(ROOT, ROOT + "/" + recipe.name()));     // container parents made on the way
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
    void anotherIdentityCannotTakeOrRevokeButCanReadStatus(Recipe recipe) throws Exception {
        CuratorFramework alice = alice();
        String path = pathFor(recipe);
        Lease lease = recipe.create(alice, path).acquire();
        String node = lease.nodePath();
        byte[] before = alice.getData().forPath(node);

        CuratorFramework bob = bob();
        for (String target : List.of(path, path.replace("/deep/lock", "/deep/other"))) {
            long sent = sent(bob);
            CompletableFuture<Lease> attempt = recipe.create(bob, target).acquireAsync(LONG);
            ExecutionException e = assertThrows(ExecutionException.class, () -> attempt.get(LONG.toSeconds(), TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof LockException, "a LockException, not " + e.getCause());
            String message = e.getCause().getMessage();
            assertTrue(message.contains("not authorized (NoAuth)") && message.contains(target), message);
            long requests = sent(bob) - sent;
            assertTrue(requests <= REFUSED_REQUESTS_PER_DIRECTORY * recipe.nodesPerLease(), requests + " requests for a refused acquire of " + target);
            // the blocking call says the same
            LockException blocking = assertThrows(LockException.class, () -> recipe.create(bob, target).tryAcquire(LONG));
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
    void anIdentityThatMayNotReadGetsStatusRefusedWithTheCause(Recipe recipe) throws Exception {
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
        String path = ROOT + "-private/" + recipe.name() + "/" + UUID.randomUUID();
        try (Lease lease = recipe.create(alice, path).acquire()) {
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
    void anAuthFailedSessionFailsItsAcquisitionsWithTheCause(Recipe recipe) throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(15_000).connectionTimeoutMs(5_000).retryPolicy(new ExponentialBackoffRetry(20, 3, 200))
                .authorization("no-such-scheme", "whatever".getBytes(StandardCharsets.UTF_8)).ensembleTracker(false).build();
        clients.add(c);
        c.start();
        CompletableFuture<Lease> attempt = recipe.create(c, "/open/" + recipe.name() + "/" + UUID.randomUUID()).acquireAsync(LONG);
        ExecutionException e = assertThrows(ExecutionException.class, () -> attempt.get(LONG.toSeconds() / 2, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof LockException, "a LockException, not " + e.getCause());
        assertTrue(e.getCause().getMessage().contains("authentication failed (AuthFailed)"), e.getCause().getMessage());
    }

    private static LockConfiguration job(String name) {
        return new LockConfiguration(Instant.now(), name, Duration.ofMinutes(10), Duration.ZERO);
    }

    /**
     * ShedLock's nodes (the provider's root and the container parents above it, the job's lock
     * directory under {@code jobs} and its lock node, the job's marker under {@code marks}) carry
     * the ACL Alice's provider gives for their paths.
     */
    @Test
    void shedLocksNodesCarryTheClientsAcl() throws Exception {
        CuratorFramework alice = alice();
        String root = ROOT + "/shedlock/" + UUID.randomUUID();
        SimpleLock lock = new ZkLockProvider(alice, root).lock(job("report")).orElseThrow();
        try {
            List<String> nodes = new ArrayList<>();
            collect(alice, root, nodes);
            assertTrue(nodes.containsAll(List.of(root + "/jobs", root + "/jobs/report", root + "/marks", root + "/marks/report")),
                    "the lock directory and the marker among " + nodes);
            assertEquals(1, nodes.stream().filter(n -> n.startsWith(root + "/jobs/report/_c_")).count(), "one lock node among " + nodes);
            assertAclsAreAlices(alice, nodes);
            assertAclsAreAlices(alice, List.of(ROOT, ROOT + "/shedlock"));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Another identity cannot lock Alice's job, held or free, nor a new job under her root: lock()
     * throws ShedLock's LockException naming NoAuth (never an empty result, which would skip the
     * job quietly on every run), after a handful of requests; Alice's hold and her job's marker are
     * untouched, and she locks the job again once she has unlocked it.
     */
    @Test
    void anotherIdentityCannotLockAShedLockJob() throws Exception {
        CuratorFramework alice = alice();
        String root = ROOT + "/shedlock/" + UUID.randomUUID();
        SimpleLock held = new ZkLockProvider(alice, root).lock(job("report")).orElseThrow();
        byte[] marker = alice.getData().forPath(root + "/marks/report");
        List<String> lockNodes = alice.getChildren().forPath(root + "/jobs/report");

        CuratorFramework bob = bob();
        ZkLockProvider bobs = new ZkLockProvider(bob, root);
        for (String name : List.of("report", "other")) {
            assertShedLockRefused(bob, bobs, root, name);
        }
        assertArrayEquals(marker, alice.getData().forPath(root + "/marks/report"), "the job's marker is untouched");
        assertEquals(lockNodes, alice.getChildren().forPath(root + "/jobs/report"), "Alice's lock node is untouched");
        assertEquals(Optional.empty(), new ZkLockProvider(client("digest:alice:alice-secret", ALICE_PER_PATH), root).lock(job("report")),
                "Alice's hold still shuts out her other processes");
        assertEquals(null, bob.checkExists().forPath(root + "/marks/other"), "no marker made for Bob");

        held.unlock();
        assertShedLockRefused(bob, bobs, root, "report");      // free now: still refused, with the cause
        assertTrue(new ZkLockProvider(alice, root).lock(job("report")).map(l -> {
            l.unlock();
            return true;
        }).orElse(false), "Alice locks her job again");
    }

    private static void assertShedLockRefused(CuratorFramework bob, ZkLockProvider bobs, String root, String name) throws Exception {
        long sent = sent(bob);
        net.javacrumbs.shedlock.support.LockException e = assertThrows(net.javacrumbs.shedlock.support.LockException.class,
                () -> bobs.lock(job(name)), "job '" + name + "'");
        assertTrue(e.getMessage().startsWith("cannot lock job '" + name + "': acquisition of lock " + root + "/jobs/" + name + " failed: ")
                && e.getMessage().contains("not authorized (NoAuth)"), e.getMessage());
        long requests = sent(bob) - sent;
        assertTrue(requests <= REFUSED_REQUESTS_PER_DIRECTORY, requests + " requests for a refused lock of job '" + name + "'");
    }

    /**
     * The Spring Integration registry's nodes (its root and the container parents above it, each
     * key's directory, plain or percent-encoded, and the lock nodes in them) carry the ACL Alice's
     * provider gives for their paths.
     */
    @Test
    void lockRegistrysNodesCarryTheClientsAcl() throws Exception {
        CuratorFramework alice = alice();
        String root = ROOT + "/spring-integration/" + UUID.randomUUID();
        try (ZkLockRegistry registry = new ZkLockRegistry(alice, root)) {
            List<ZkRegistryLock> locks = List.of(registry.obtain("order-42"), registry.obtain("tenant/a b"));
            locks.forEach(ZkRegistryLock::lock);
            try {
                List<String> nodes = new ArrayList<>();
                collect(alice, root, nodes);
                for (ZkRegistryLock lock : locks) {
                    assertTrue(nodes.contains(lock.path()), "the key directory " + lock.path() + " among " + nodes);
                    assertEquals(1, nodes.stream().filter(n -> n.startsWith(lock.path() + "/_c_")).count(), "one lock node among " + nodes);
                }
                assertAclsAreAlices(alice, nodes);
                assertAclsAreAlices(alice, List.of(ROOT, ROOT + "/spring-integration"));
            } finally {
                locks.forEach(ZkRegistryLock::unlock);
            }
        }
    }

    /**
     * Another identity cannot take a key of Alice's registry, held or new: tryLock(), tryLock with
     * a minute to wait, lockInterruptibly() and lock() each throw a LockException naming NoAuth and the
     * key's path, after a handful of requests and well within the wait; Alice's hold is untouched.
     */
    @Test
    void anotherIdentityCannotTakeARegistryLock() throws Exception {
        CuratorFramework alice = alice();
        String root = ROOT + "/spring-integration/" + UUID.randomUUID();
        CuratorFramework bob = bob();
        try (ZkLockRegistry registry = new ZkLockRegistry(alice, root); ZkLockRegistry bobs = new ZkLockRegistry(bob, root)) {
            ZkRegistryLock held = registry.obtain("order-42");
            held.lock();
            List<String> lockNodes = alice.getChildren().forPath(held.path());
            for (String key : List.of("order-42", "order-43")) {
                ZkRegistryLock lock = bobs.obtain(key);
                assertRegistryRefused(bob, lock, "tryLock()", () -> lock.tryLock());
                assertRegistryRefused(bob, lock, "tryLock(60 s)", () -> lock.tryLock(LONG.toSeconds(), TimeUnit.SECONDS));
                assertRegistryRefused(bob, lock, "lockInterruptibly()", () -> {
                    lock.lockInterruptibly();
                    return true;
                });
                assertRegistryRefused(bob, lock, "lock()", () -> {
                    lock.lock();
                    return true;
                });
                assertFalse(lock.isHeldByCurrentThread());
            }
            assertTrue(held.isHeldByCurrentThread(), "Alice's hold is untouched");
            assertEquals(lockNodes, alice.getChildren().forPath(held.path()), "Alice's lock node is untouched");
            held.unlock();
            assertEquals(List.of(), alice.getChildren().forPath(held.path()));
        }
    }

    /** An attempt that may block, run on a thread of its own. */
    @FunctionalInterface
    private interface Attempt {
        boolean run() throws InterruptedException;
    }

    private static void assertRegistryRefused(CuratorFramework bob, ZkRegistryLock lock, String call, Attempt attempt) throws Exception {
        long sent = sent(bob);
        CompletableFuture<Boolean> result = CompletableFuture.supplyAsync(() -> {
            try {
                return attempt.run();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(LONG.toSeconds() / 2, TimeUnit.SECONDS),
                call + " of " + lock.key());
        assertTrue(e.getCause() instanceof LockException, call + ": a LockException, not " + e.getCause());
        String message = e.getCause().getMessage();
        assertTrue(message.contains("not authorized (NoAuth)") && message.contains(lock.path()), call + ": " + message);
        long requests = sent(bob) - sent;
        assertTrue(requests <= REFUSED_REQUESTS_PER_DIRECTORY, requests + " requests for a refused " + call + " of " + lock.key());
    }

    private static void assertAclsAreAlices(CuratorFramework c, List<String> nodes) throws Exception {
        for (String node : nodes) {
            assertEquals(aliceAcl(), c.getACL().forPath(node), "ACL of " + node);
        }
    }

    private static void collect(CuratorFramework c, String path, List<String> out) throws Exception {
        assertNotNull(c.checkExists().forPath(path), path);
        out.add(path);
        for (String child : c.getChildren().forPath(path)) {
            collect(c, path + "/" + child, out);
        }
    }
}
