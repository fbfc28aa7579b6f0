package io.zklock.core.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import org.junit.jupiter.api.Test;

/**
 * Who asks whom, without a server: the waiter's side ({@link WhoAsks#askedBy}) and the holder's
 * side ({@link WhoAsks#askedAtGrant}) read one rule off the same listing.
 */
class WhoAsksTest {
    /** Readers hold together; any other pair conflicts. */
    private static final LockDriver READ_WRITE = new LockDriver() {
        @Override
        public io.zklock.core.spi.queue.Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean conflicts(LockNode ahead, LockNode ours) {
            return !(ahead.is("read") && ours.is("read"));
        }
    };

    private static int sequence;

    /** A node of {@code kind}, cached or not, with the next sequence number. */
    private static LockNode node(String kind, boolean cached) {
        return LockNode.parse(LockNode.protectedName(LockNode.newProtectedId(cached), LockNode.namePrefix(kind)) + String.format("%010d", sequence++))
                .orElseThrow();
    }

    private static List<LockNode> queue(String... specs) {
        List<LockNode> nodes = new ArrayList<>();
        for (String spec : specs) {
            nodes.add(node(spec.substring(1), spec.charAt(0) == 'c'));
        }
        return LockNode.sorted(nodes.stream().map(LockNode::name).toList());
    }

    /** A mutex waiter asks every cached node ahead of it, none that is not cached, none behind it. */
    @Test
    void aMutexWaiterAsksEveryCachedNodeAhead() {
        List<LockNode> q = queue("clock", "plock", "clock", "plock", "clock");
        assertEquals(List.of(q.get(0), q.get(2)), WhoAsks.askedBy(q, q.get(3), 1, LockDriver.EXCLUSIVE, false));
        assertFalse(WhoAsks.escalationAsksMore(q, q.get(3), 1, LockDriver.EXCLUSIVE, null), "a mutex waiter has nothing to escalate");
    }

    /** A writer asks the cached read nodes ahead; a reader asks only the cached write nodes ahead. */
    @Test
    void aWaiterAsksOnlyTheCachedNodesThatConflictWithIt() {
        List<LockNode> q = queue("cread", "cwrite", "cread", "pwrite", "cread");
        assertEquals(List.of(q.get(0), q.get(1), q.get(2)), WhoAsks.askedBy(q, q.get(3), 1, READ_WRITE, false));
        assertEquals(List.of(q.get(1)), WhoAsks.askedBy(q, q.get(4), 1, READ_WRITE, false));
    }

    /** A semaphore waiter at index i asks the first i - maxLeases + 1 cached nodes ahead, all of them once escalated. */
    @Test
    void aPermitWaiterAsksWhatItNeedsThenEverythingOnceEscalated() {
        List<LockNode> q = queue("csem", "psem", "csem", "csem", "psem", "psem");
        assertEquals(List.of(q.get(0), q.get(2)), WhoAsks.askedBy(q, q.get(4), 3, LockDriver.EXCLUSIVE, false),
                "index 4 of 3 needs 2 gone");
        assertEquals(List.of(q.get(0), q.get(2), q.get(3)), WhoAsks.askedBy(q, q.get(5), 3, LockDriver.EXCLUSIVE, false));
        assertEquals(List.of(q.get(0), q.get(2), q.get(3)), WhoAsks.askedBy(q, q.get(4), 3, LockDriver.EXCLUSIVE, true));
        assertTrue(WhoAsks.escalationAsksMore(q, q.get(4), 3, LockDriver.EXCLUSIVE, null));
        assertFalse(WhoAsks.escalationAsksMore(q, q.get(5), 3, LockDriver.EXCLUSIVE, null), "it asks every cached node ahead already");
        assertEquals(List.of(), WhoAsks.askedBy(q, q.get(2), 3, LockDriver.EXCLUSIVE, false), "a holder asks nobody");
    }

    /** The holder's side names the nodes the waiters behind ask: those, and only those. */
    @Test
    void aHolderIsAskedAtItsGrantExactlyWhenAWaiterBehindAsksIt() {
        List<LockNode> sem = queue("csem", "csem", "csem", "psem");   // 3 permits, one waiter: it asks the first cached one
        assertTrue(WhoAsks.askedAtGrant(sem, sem.get(0), 3, LockDriver.EXCLUSIVE));
        assertFalse(WhoAsks.askedAtGrant(sem, sem.get(1), 3, LockDriver.EXCLUSIVE));
        assertFalse(WhoAsks.askedAtGrant(sem, sem.get(2), 3, LockDriver.EXCLUSIVE));
        List<LockNode> rw = queue("cread", "cread", "pread");
        assertFalse(WhoAsks.askedAtGrant(rw, rw.get(0), 1, READ_WRITE), "a reader behind a reader asks nothing");
        List<LockNode> rwWriter = queue("cread", "cread", "pwrite");
        assertTrue(WhoAsks.askedAtGrant(rwWriter, rwWriter.get(0), 1, READ_WRITE));
        assertTrue(WhoAsks.askedAtGrant(rwWriter, rwWriter.get(1), 1, READ_WRITE));
        List<LockNode> alone = queue("clock");
        assertFalse(WhoAsks.askedAtGrant(alone, alone.get(0), 1, LockDriver.EXCLUSIVE), "nobody behind");
        List<LockNode> plain = queue("plock", "plock");
        assertFalse(WhoAsks.askedAtGrant(plain, plain.get(0), 1, LockDriver.EXCLUSIVE), "a node that is not cached is never asked");
    }

    /**
     * Nodes whose holder hears creations ({@code h}: marked with another client's tag, {@code o}:
     * with the waiter's own client's): the waiter asks another client's only once escalated, and
     * escalates for them; its own client's, which does not act on its own creations, at once. The
     * holder counts itself asked by any conflicting waiter behind it.
     */
    @Test
    void aNodeWhoseHolderHearsCreationsIsAskedOnlyOnceEscalatedUnlessItIsOurClients() {
        List<LockNode> q = new ArrayList<>();
        q.add(tagged("lock", "0badcafe"));
        q.add(tagged("lock", "12345678"));
        q.add(node("lock", true));
        q.add(node("lock", false));
        LockNode waiter = q.get(3);
        assertEquals(List.of(q.get(1), q.get(2)), WhoAsks.askedBy(q, waiter, 1, LockDriver.EXCLUSIVE, false, "12345678"));
        assertEquals(List.of(q.get(0), q.get(1), q.get(2)), WhoAsks.askedBy(q, waiter, 1, LockDriver.EXCLUSIVE, true, "12345678"));
        assertTrue(WhoAsks.escalationAsksMore(q, waiter, 1, LockDriver.EXCLUSIVE, "12345678"), "the bound covers a holder that did not hear");
        assertTrue(WhoAsks.askedAtGrant(q, q.get(0), 1, LockDriver.EXCLUSIVE), "a waiter behind: its create is the ask");
        assertTrue(q.get(0).hearsCreations() && q.get(0).taggedBy("0badcafe") && !q.get(0).taggedBy("12345678"));
        for (int i = 0; i < 2000; i++) {
            assertFalse(LockNode.parse(LockNode.protectedName(LockNode.newProtectedId(true), "lock-") + "0000000001").orElseThrow()
                    .hearsCreations(), "an unmarked cached node never claims it by chance");
        }
    }

    private static LockNode tagged(String kind, String tag) {
        return LockNode.parse(LockNode.protectedName(LockNode.newProtectedId(true, tag), LockNode.namePrefix(kind))
                + String.format("%010d", sequence++)).orElseThrow();
    }

    /** Every holder the holder's side says is asked is named by some waiter behind it, and the other way round. */
    @Test
    void bothSidesAgreeOnEveryQueueOfSixNodes() {
        String[] kinds = {"csem", "psem"};
        for (int maxLeases = 1; maxLeases <= 3; maxLeases++) {
            for (int mask = 0; mask < 64; mask++) {
                String[] specs = new String[6];
                for (int i = 0; i < 6; i++) {
                    specs[i] = kinds[(mask >> i) & 1];
                }
                List<LockNode> q = queue(specs);
                for (int h = 0; h < maxLeases; h++) {
                    boolean named = false;
                    for (int w = maxLeases; w < q.size(); w++) {
                        named |= WhoAsks.askedBy(q, q.get(w), maxLeases, LockDriver.EXCLUSIVE, false).contains(q.get(h));
                    }
                    assertEquals(named, WhoAsks.askedAtGrant(q, q.get(h), maxLeases, LockDriver.EXCLUSIVE), "queue " + q + ", holder " + h);
                }
            }
        }
    }
}
