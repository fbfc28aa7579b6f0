package io.zklock.semaphore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LockCompatibility;
import io.zklock.core.LockOptions;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** {@link ZkSemaphore} on a real server: permits, maxLeases agreement, bad input, round trips. */
class ZkSemaphoreTest extends EmbeddedServerTest {
    /** How long a session sends nothing before its requests are counted from there. */
    private static final Duration QUIET = Duration.ofMillis(300);

    private int nodes(String path) {
        return ZkTesting.children(client, path).size();
    }

    /** maxLeases below 1, a null client and a bad path are refused at construction, naming the value. */
    /**
     * A semaphore in Curator's layout built with a validity margin of its own keeps it in its
     * permits' validFor() (both nodes of a permit keep it), where one built without keeps the client's.
     */
    @Test
    void aCuratorLayoutSemaphoreKeepsItsOwnValidityMargin() throws Exception {
        LockOptions curator = LockOptions.defaults().withCompatibility(LockCompatibility.CURATOR);
        int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        long most = negotiated - 15_000 - (long) (0.05 * negotiated);
        ZkSemaphore wide = new ZkSemaphore(client, "/semaphores/margin", 2, curator.withValidityMargin(Duration.ofSeconds(15), 0.05));
        ZkSemaphore usual = new ZkSemaphore(client, "/semaphores/margin", 2, curator);
        try (Lease a = wide.acquire(); Lease b = usual.acquire()) {
            long valid = a.validFor().toMillis();
            assertTrue(valid > 0 && valid <= most, "validFor " + valid + " ms with the wide margin, at most " + most);
            assertTrue(b.validFor().toMillis() > most, "the client's margin is narrower: " + b.validFor());
        }
    }

    @Test
    void badArgumentsAreRefused() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> new ZkSemaphore(client, "/s", 0));
        assertTrue(zero.getMessage().contains("0"), zero.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ZkSemaphore(client, "/s", -3))
                .getMessage().contains("-3"));
        assertThrows(IllegalArgumentException.class, () -> new ZkSemaphore(null, "/s", 2));
        assertThrows(IllegalArgumentException.class, () -> new ZkSemaphore(client, "s", 2));
    }

    /** Each lease is one permit: one thread can take them all, the next request waits, and closing one frees one. */
    @Test
    void everyLeaseIsOnePermit() throws Exception {
        ZkSemaphore semaphore = new ZkSemaphore(client, "/sem/permits", 2);
        Lease first = semaphore.acquire();
        Lease second = semaphore.acquire();
        assertNotEquals(first.nodePath(), second.nodePath());
        assertTrue(semaphore.isHeldByCurrentThread());
        assertEquals(Optional.empty(), semaphore.tryAcquire(Duration.ZERO));
        assertEquals(2, nodes("/sem/permits"));
        first.close();
        try (Lease third = semaphore.tryAcquire(LONG).orElseThrow()) {
            assertTrue(third.isValid());
        }
        second.close();
        assertFalse(semaphore.isHeldByCurrentThread());
        assertEquals(0, nodes("/sem/permits"));
        assertEquals(2, semaphore.maxLeases());
    }

    /** A client asking with another maxLeases gets IllegalStateException naming both values, takes no permit and leaves no node. */
    @Test
    void maxLeasesDisagreementIsRefusedBeforeAPermitIsTaken() throws Exception {
        ZkSemaphore three = new ZkSemaphore(client, "/sem/agree", 3);
        ZkSemaphore five = new ZkSemaphore(other, "/sem/agree", 5);
        try (Lease held = three.acquire()) {
            IllegalStateException blocking = assertThrows(IllegalStateException.class, () -> five.tryAcquire(LONG));
            assertTrue(blocking.getMessage().contains("maxLeases 3") && blocking.getMessage().contains("maxLeases 5"),
                    blocking.getMessage());
            ExecutionException async = assertThrows(ExecutionException.class,
                    () -> five.acquireAsync(LONG).get(30, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, async.getCause());
            assertThrows(IllegalStateException.class, five::acquire);
            Await.equal("only the holder's node", 1, LONG, () -> nodes("/sem/agree"));
            assertTrue(held.isValid());
        }
        try (Lease now = five.tryAcquire(LONG).orElseThrow()) {
            assertTrue(now.isValid(), "once the directory is empty, a new value is the semaphore's");
        }
    }

    /**
     * An acquire after another session's turn is 2 requests (create, list), a re-acquire of a
     * semaphore nobody else touched since 1 (one transaction, no listing) once a plain acquire
     * has shown the others gone, a release 1.
     */
    @Test
    void roundTrips() throws Exception {
        ZkProbe probe = new ZkProbe(server.getPort());
        ZkSemaphore semaphore = new ZkSemaphore(client, "/sem/rt", 2);
        ZkSemaphore others = new ZkSemaphore(other, "/sem/rt", 2);
        semaphore.acquire().close();
        long acquire = Long.MAX_VALUE;
        long reacquire = Long.MAX_VALUE;
        long release = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            others.acquire().close();
            Lease[] lease = new Lease[1];
            acquire = Math.min(acquire, probe.requestsDuring(() -> lease[0] = semaphore.acquire()));
            release = Math.min(release, probe.requestsDuring(lease[0]::close));
            semaphore.acquire().close();       // after a miss, one plain acquire shows inference would hold again
            reacquire = Math.min(reacquire, probe.requestsDuring(() -> lease[0] = semaphore.acquire()));
            lease[0].close();
        }
        assertEquals(2, acquire, "requests per acquire after another session's turn");
        assertEquals(1, reacquire, "requests per re-acquire");
        assertEquals(1, release, "requests per release");
    }

    /**
     * A contended hand-off costs the new holder one read and one small write: it wakes on the
     * release, lists the directory (leaving its children watch), and touches its own node to
     * wake the waiter behind it.
     */
    @Test
    void contendedGrantCostsOneReadAndOneWrite() throws Exception {
        ZkProbe probe = new ZkProbe(server.getPort());
        CuratorFramework third = ZkTesting.client(server.getConnectString(), 60_000);
        try {
            Lease holder = new ZkSemaphore(client, "/sem/handoff", 1).acquire();
            CompletableFuture<Lease> head = new ZkSemaphore(other, "/sem/handoff", 1).acquireAsync(LONG);
            Await.equal("head queued", 2, LONG, () -> nodes("/sem/handoff"));
            CompletableFuture<Lease> follower = new ZkSemaphore(third, "/sem/handoff", 1).acquireAsync(LONG);
            Await.equal("follower queued", 3, LONG, () -> nodes("/sem/handoff"));
            long headSession = other.getZookeeperClient().getZooKeeper().getSessionId();
            probe.awaitQuiet(Set.of(headSession), QUIET, LONG);   // the head's wake-up on the follower's arrival settles
            other.checkExists().forPath("/");  // no ping from the head's session for seconds
            long before = probe.packetsBySession().get(headSession);
            holder.close();
            Lease granted = head.get(30, TimeUnit.SECONDS);
            Await.until("the head's grant notice sent", LONG, () -> probe.packetsBySession().get(headSession) - before >= 2);
            probe.awaitQuiet(Set.of(headSession), QUIET, LONG);   // anything more it would send, sent
            assertEquals(2, probe.packetsBySession().get(headSession) - before, "head's requests for its grant");
            granted.close();
            follower.get(30, TimeUnit.SECONDS).close();
        } finally {
            third.close();
        }
    }

    /** A grant announces itself only when a node follows: the follower learns at once and is granted when a permit frees. */
    @Test
    void waiterBehindTheHeadIsGrantedThroughTheHeadsAnnouncement() throws Exception {
        ZkSemaphore mine = new ZkSemaphore(client, "/sem/chain", 1);
        ZkSemaphore theirs = new ZkSemaphore(other, "/sem/chain", 1);
        Lease holder = mine.acquire();
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(theirs.acquireAsync(LONG));
            int expected = i + 2;
            Await.equal("waiter queued", expected, LONG, () -> nodes("/sem/chain"));
        }
        holder.close();
        for (CompletableFuture<Lease> waiter : waiters) {
            waiter.get(30, TimeUnit.SECONDS).close();
        }
        Await.equal("nodes", 0, LONG, () -> nodes("/sem/chain"));
    }
}
