package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.Lease;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockStatus;
import io.zklock.core.RevocationResult;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;

/**
 * Node data nobody trusts, on a real server: bytes another client writes into a holder's or a
 * waiter's node (generated garbage, invalid UTF-8, lines that almost parse, a forged grant line,
 * up to about 1 MB) never call a revocation handler, never invalidate a holder, never grant a
 * semaphore beyond maxLeases, never make a waiter list in a loop, and status reads them.
 */
class HostileDataPropertiesTest {
    private static final Duration LONG = Duration.ofSeconds(60);
    /** Requests the waiter behind a written node may send once woken: one listing and one watch read, twice over at most. */
    private static final long WAKE_BOUND = 4;
    /** The semaphore whose waiting nodes carry grant notices, with one permit so that every node behind the first waits. */
    private static final Recipe ONE_PERMIT = Recipe.semaphore(1);

    private static TestingServer server;
    private static ZkProbe probe;
    private final List<CuratorFramework> clients = new ArrayList<>();

    @BeforeContainer
    static void start() throws Exception {
        server = new TestingServer(true);
        probe = new ZkProbe(server.getPort());
    }

    @AfterContainer
    static void stop() throws Exception {
        server.close();
    }

    @AfterTry
    void close() {
        clients.forEach(CuratorFramework::close);
        clients.clear();
    }

    CuratorFramework client() {
        CuratorFramework c = ZkTesting.client(server.getConnectString(), 60_000);
        clients.add(c);
        return c;
    }

    @Provide
    Arbitrary<byte[]> hostile() {
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(512);
        Arbitrary<byte[]> lines = Arbitraries.of("granted=yes", "revoke-requested=1970-01-01T00:00:00", "revoke-requested=0",
                        "revoke-by=", "revoke-by=mallory", "multi=x", "host=", "pid=-9", "abc", "\uFFFD", "requested=never")
                .list().ofMinSize(1).ofMaxSize(6).map(l -> String.join("\n", l).getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> invalid = Arbitraries.of(new byte[] {(byte) 0xC3}, new byte[] {(byte) 0xFF, 0, (byte) 0xFE}, "abc".getBytes(StandardCharsets.UTF_8));
        return Arbitraries.oneOf(random, lines, invalid);
    }

    /**
     * Property: whatever bytes another client writes into the holder's and the waiters' nodes of a
     * one-permit semaphore, the holder stays valid and its revocation handler is not called
     * unless the bytes hold a well-formed request (both lines, an instant); the waiter behind the
     * written waiter is woken at most once (no listing loop); status reads every node; each
     * waiter is granted in turn, one at a time.
     */
    @Property(tries = 12)
    void garbageInNodesNeverRevokesNeverLoopsAndNeverGrantsBeyondMaxLeases(@ForAll("hostile") byte[] bytes) throws Exception {
        String path = "/hostile/" + UUID.randomUUID();
        AtomicInteger handlerCalls = new AtomicInteger();
        CuratorFramework holderClient = client();
        Lease holder = ONE_PERMIT.create(holderClient, path).acquire();
        holder.onRevocationRequested(l -> handlerCalls.incrementAndGet());
        CuratorFramework firstClient = client();
        CompletableFuture<Lease> first = ONE_PERMIT.create(firstClient, path).acquireAsync(LONG);
        awaitNodes(path, 2);
        CuratorFramework behindClient = client();
        CompletableFuture<Lease> behind = ONE_PERMIT.create(behindClient, path).acquireAsync(LONG);
        awaitNodes(path, 3);
        List<String> nodes = new LockAdmin(client()).status(path).participants().stream().map(p -> p.nodePath()).toList();
        // the holder and the waiters have set their watches once none of them has sent anything for a while
        ConformanceSupport.awaitQuiet(probe, ConformanceSupport.sessionsOf(List.of(holderClient, firstClient, behindClient)));

        CuratorFramework mallory = client();
        long session = ConformanceSupport.sessionOf(behindClient);
        long before = probe.packetsBySession().getOrDefault(session, 0L);
        mallory.setData().forPath(nodes.get(1), bytes);   // the first waiter's node: the one the last waiter watches
        mallory.setData().forPath(nodes.get(0), bytes);   // the holder's
        Thread.sleep(500);
        long woken = probe.packetsBySession().getOrDefault(session, 0L) - before;
        assertTrue(woken <= WAKE_BOUND, woken + " requests from the waiter behind a written node");

        LockStatus status = new LockAdmin(mallory).status(path);
        assertEquals(3, status.participants().size());
        assertEquals(1, status.holders().size());
        assertTrue(holder.isValid());
        assertFalse(first.isDone() || behind.isDone(), "nobody granted beyond maxLeases");
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (!(text.contains("revoke-by=mallory") && text.matches("(?s).*revoke-requested=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d(:\\d\\d)?Z.*"))) {
            assertEquals(0, handlerCalls.get(), "handler called for garbage");
        }
        holder.close();
        Lease second = first.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertFalse(behind.isDone());
        second.close();
        behind.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
    }

    /** A forged grant line in a waiting semaphore node wakes the waiter behind it once, not in a listing loop (the 5,000 requests a second). */
    @Example
    void aForgedGrantLineWakesTheWaiterBehindOnce() throws Exception {
        garbageInNodesNeverRevokesNeverLoopsAndNeverGrantsBeyondMaxLeases("host=x\ngranted=yes\n".getBytes(StandardCharsets.UTF_8));
    }

    /** A three-byte write into a waiting semaphore node (the probe) wakes the waiter behind it once at most. */
    @Example
    void aThreeByteWriteWakesTheWaiterBehindOnce() throws Exception {
        garbageInNodesNeverRevokesNeverLoopsAndNeverGrantsBeyondMaxLeases("abc".getBytes(StandardCharsets.UTF_8));
    }

    /** About 1 MB of garbage in a holder's node: status reads it, a revocation request is still written, the holder is told once. */
    @Example
    void aMegabyteOfGarbageStillTakesARequest() throws Exception {
        String path = "/hostile/" + UUID.randomUUID();
        AtomicInteger handlerCalls = new AtomicInteger();
        Lease holder = ONE_PERMIT.create(client(), path).acquire();
        holder.onRevocationRequested(l -> handlerCalls.incrementAndGet());
        byte[] huge = new byte[1_000_000];
        java.util.Arrays.fill(huge, (byte) 0xFF);
        client().setData().forPath(holder.nodePath(), huge);
        LockAdmin admin = new LockAdmin(client());
        LockStatus status = admin.status(path);
        assertEquals(1, status.holders().size());
        assertTrue(status.problems().stream().anyMatch(p -> p.contains("unreadable")), status.problems().toString());
        assertEquals(RevocationResult.REQUESTED, admin.requestRevocation(holder.nodePath()));
        long deadline = System.nanoTime() + LONG.toNanos();
        while (handlerCalls.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(1, handlerCalls.get());
        assertTrue(holder.isValid());
        holder.close();
    }

    private void awaitNodes(String path, int n) throws Exception {
        long deadline = System.nanoTime() + LONG.toNanos();
        while (ZkTesting.children(clients.get(0), path).size() < n) {
            assertTrue(System.nanoTime() < deadline, "nodes in " + path);
            Thread.sleep(10);
        }
    }

    /**
     * Foreign children that look almost like lock nodes (a kind with no sequence, a sequence with
     * no kind, a uuid of the wrong shape, an 11-digit sequence, no protected prefix), made by
     * another client in every lock directory of every recipe of {@link Recipe#all()} (each of a
     * multi-lock's): a rival waiter is still granted once the holders release, nobody is granted
     * while they hold, status lists every one as foreign, and zklock deletes none of them.
     */
    @Example
    void foreignChildrenThatAlmostLookLikeLockNodesAreIgnoredListedAndKept() throws Exception {
        CuratorFramework mallory = client();
        for (Recipe recipe : Recipe.all()) {
            String path = "/foreign/" + recipe.name() + "-" + UUID.randomUUID();
            CuratorFramework holderClient = client();
            List<Lease> holders = new ArrayList<>();
            for (int i = 0; i < recipe.holds(); i++) {
                holders.add(recipe.create(holderClient, path).tryAcquire(LONG).orElseThrow(() -> new AssertionError(recipe + ": holder not granted")));
            }
            List<String> holderNodes = Recipe.nodesOf(holders.get(0));
            List<List<String>> foreignByPart = new ArrayList<>();
            for (int i = 0; i < recipe.parts().size(); i++) {
                String dir = path + recipe.parts().get(i).subPath();
                String nodeName = holderNodes.get(i).substring(dir.length() + 1);
                List<String> foreign = almostLockNodes(LockNode.parse(nodeName).orElseThrow().kind());
                for (String child : foreign) {
                    mallory.create().forPath(dir + "/" + child);
                }
                foreignByPart.add(foreign);
            }
            CompletableFuture<Lease> waiter = recipe.rival(client(), path).acquireAsync(LONG);
            Thread.sleep(300);
            assertFalse(waiter.isDone(), recipe + ": nobody granted while the holders hold");
            String inspected = path + recipe.inspected().subPath();
            LockStatus status = new LockAdmin(mallory).status(inspected);
            assertEquals(foreignByPart.get(0).stream().sorted().toList(), status.foreignChildren(), recipe.name());
            assertEquals(recipe.holds() + 1, status.participants().size(), recipe.name());
            holders.forEach(Lease::close);
            waiter.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
            for (int i = 0; i < recipe.parts().size(); i++) {
                String dir = path + recipe.parts().get(i).subPath();
                assertEquals(foreignByPart.get(i).stream().sorted().toList(), ZkTesting.children(mallory, dir).stream().sorted().toList(),
                        recipe + " at " + dir + ": zklock deleted none of the foreign children, and left none of its own");
            }
        }
    }

    /** Names that almost parse as lock nodes of {@code kind}. */
    private static List<String> almostLockNodes(String kind) {
        String uuid = UUID.randomUUID().toString();
        return List.of(
                "_c_" + uuid + "-" + kind,                                 // a kind with no sequence
                "_c_" + uuid + "--0000000001",                             // a sequence with no kind
                "_c_" + uuid.toUpperCase(Locale.ROOT) + "-" + kind + "-0000000000",   // a uuid of the wrong shape
                "_c_" + uuid.substring(1) + "-" + kind + "-0000000000",    // a uuid one character short
                "_c_" + uuid + "-" + kind + "-00000000001",                // eleven digits: past the counter's range
                "_c_" + uuid + "-" + kind + "-99999999999999999999",       // a sequence that overflows a long
                uuid + "-" + kind + "-0000000000",                         // no protected prefix
                "lock-0000000000");
    }
}
