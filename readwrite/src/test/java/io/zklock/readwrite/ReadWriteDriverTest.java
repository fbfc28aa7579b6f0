package io.zklock.readwrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;
import org.junit.jupiter.api.Test;

/**
 * The read-write driver without a server: exhaustively over small queues (with anchored read
 * nodes), and as a model of the whole protocol, where grants must never conflict and never be
 * taken back, and a writer's release must wake only clients that can proceed.
 */
class ReadWriteDriverTest {
    private static final LockDriver DRIVER = ReadWriteDriver.INSTANCE;
    private static final String R = ReadWriteDriver.READ;
    private static final String W = ReadWriteDriver.WRITE;

    /** Curator's read rule, for the controls: a reader behind a writer watches the FIRST write node. */
    static final LockDriver FIRST_WRITE = (sorted, ours, maxLeases) -> {
        if (!ours.is(R)) {
            return LockDriver.EXCLUSIVE.decide(sorted, ours, maxLeases);
        }
        int index = LockDriver.indexOf(sorted, ours);
        for (int i = 0; i < index; i++) {
            if (sorted.get(i).is(W)) {
                return Decision.watch(sorted.get(i));
            }
        }
        return Decision.granted();
    };

    /** A node as Curator and ZooKeeper name it; {@code anchor} < 0 means none. */
    static LockNode node(long sequence, String kind, long anchor) {
        String prefix = anchor < 0 ? kind : LockNode.anchoredPrefix(kind, anchor);
        String name = "_c_" + new UUID(0x5eed, sequence) + "-" + prefix + "-"
                + String.format(Locale.ENGLISH, "%010d", sequence);
        LockNode node = LockNode.parse(name).orElseThrow(() -> new AssertionError("unparsable " + name));
        assertEquals(anchor < 0 ? -1 : anchor, node.anchor().orElse(-1), name);
        return node;
    }

    static List<LockNode> sorted(List<LockNode> nodes) {
        List<LockNode> out = new ArrayList<>(nodes);
        out.sort(LockNode.QUEUE_ORDER);
        return out;
    }

    // ---- exhaustive ----------------------------------------------------------------------------

    /**
     * Every history of 1..8 creations, each a reader, a writer, or a reader anchored at any
     * earlier writer: QUEUE_ORDER places each anchored reader right after its anchor (and after
     * earlier readers of the same anchor); a writer is granted exactly at the head, else watches
     * its immediate predecessor; a reader is granted exactly when no write node but its anchor
     * precedes it, else watches the last such write node.
     */
    @Test
    void decisionsFollowTheRulesForEveryHistoryExhaustively() {
        long[] decisions = {0};
        int[] histories = {0};
        enumerate(new ArrayList<>(), 8, history -> {
            histories[0]++;
            List<LockNode> queue = referenceQueue(history);
            List<LockNode> shuffled = new ArrayList<>(history);
            Collections.shuffle(shuffled, new Random(histories[0]));
            List<LockNode> sorted = sorted(shuffled);
            assertEquals(queue, sorted, "queue order of " + history);
            for (int i = 0; i < sorted.size(); i++) {
                LockNode ours = sorted.get(i);
                Decision d = DRIVER.decide(sorted, ours, 1);
                if (ours.is(W)) {
                    if (i == 0) {
                        assertTrue(d.getsTheLock(), () -> "head writer waits in " + sorted);
                    } else {
                        assertSame(sorted.get(i - 1), d.nodeToWatch(), () -> ours + " in " + sorted);
                    }
                } else {
                    LockNode lastBlockingWrite = null;
                    for (LockNode before : sorted.subList(0, i)) {
                        boolean anchor = ours.anchor().isPresent() && ours.anchor().getAsLong() == before.sequence();
                        if (before.is(W) && !anchor) {
                            lastBlockingWrite = before;
                        }
                    }
                    if (lastBlockingWrite == null) {
                        assertTrue(d.getsTheLock(), () -> ours + " waits in " + sorted);
                    } else {
                        assertSame(lastBlockingWrite, d.nodeToWatch(), () -> ours + " in " + sorted);
                    }
                }
                decisions[0]++;
            }
        });
        assertEquals(countHistories(8, 0), histories[0], "the enumeration skipped histories");
        assertTrue(decisions[0] > 6 * histories[0], "decisions checked: " + decisions[0]);
    }

    interface HistoryCheck {
        void check(List<LockNode> history);
    }

    /** How many histories of 1..{@code left} more creations extend one with {@code writers} write nodes. */
    static long countHistories(int left, int writers) {
        if (left == 0) {
            return 0;
        }
        // a reader or an anchored reader (1 + writers ways) keeps the writers; a writer adds one
        return (1 + writers) * (1 + countHistories(left - 1, writers)) + 1 + countHistories(left - 1, writers + 1);
    }

    /** Calls {@code check} on every history of 1..max creations extending {@code prefix}. */
    static void enumerate(List<LockNode> prefix, int max, HistoryCheck check) {
        if (!prefix.isEmpty()) {
            check.check(List.copyOf(prefix));
        }
        if (prefix.size() == max) {
            return;
        }
        long seq = 3L * prefix.size() + 2;   // gaps, as after deletions
        List<LockNode> next = new ArrayList<>(List.of(node(seq, R, -1), node(seq, W, -1)));
        for (LockNode earlier : prefix) {
            if (earlier.is(W)) {
                next.add(node(seq, R, earlier.sequence()));
            }
        }
        for (LockNode n : next) {
            prefix.add(n);
            enumerate(prefix, max, check);
            prefix.remove(prefix.size() - 1);
        }
    }

    /**
     * The queue built by insertion, independently of QUEUE_ORDER: nodes in creation order, each
     * appended, except an anchored reader, inserted right after its anchor and the readers
     * already anchored there.
     */
    static List<LockNode> referenceQueue(List<LockNode> history) {
        List<LockNode> queue = new ArrayList<>();
        for (LockNode n : history) {
            if (n.anchor().isEmpty()) {
                queue.add(n);
                continue;
            }
            long anchor = n.anchor().getAsLong();
            int at = 0;
            while (queue.get(at).sequence() != anchor) {
                at++;
            }
            at++;
            while (at < queue.size() && queue.get(at).anchor().isPresent() && queue.get(at).anchor().getAsLong() == anchor) {
                at++;
            }
            queue.add(at, n);
        }
        return queue;
    }

    /** Removing any subset of the nodes ahead of ours never turns a grant into a wait (every history of up to 6). */
    @Test
    void driverIsMonotoneExhaustively() {
        int[] grantsKept = {0};
        enumerate(new ArrayList<>(), 6, history -> {
            List<LockNode> sorted = sorted(history);
            for (int i = 0; i < sorted.size(); i++) {
                LockNode ours = sorted.get(i);
                if (!DRIVER.decide(sorted, ours, 1).getsTheLock()) {
                    continue;
                }
                for (int mask = 0; mask < (1 << i); mask++) {
                    List<LockNode> fewer = new ArrayList<>();
                    for (int j = 0; j < sorted.size(); j++) {
                        if (j >= i || (mask & (1 << j)) == 0) {
                            fewer.add(sorted.get(j));
                        }
                    }
                    assertTrue(DRIVER.decide(fewer, ours, 1).getsTheLock(), () -> ours + ": " + sorted + " -> " + fewer);
                    grantsKept[0]++;
                }
            }
        });
        assertTrue(grantsKept[0] > 5_000, "checks: " + grantsKept[0]);
    }

    // ---- single cases ----------------------------------------------------------------------------

    /** The scenario: readers behind the second writer watch the second writer, not the first. */
    @Test
    void readerBehindSecondWriterWatchesTheSecondWriter() {
        LockNode w1 = node(1, W, -1);
        LockNode a = node(2, R, -1);
        LockNode w2 = node(3, W, -1);
        LockNode b = node(4, R, -1);
        List<LockNode> sorted = List.of(w1, a, w2, b);

        assertSame(w1, DRIVER.decide(sorted, a, 1).nodeToWatch());
        assertSame(a, DRIVER.decide(sorted, w2, 1).nodeToWatch());
        assertSame(w2, DRIVER.decide(sorted, b, 1).nodeToWatch());
        assertSame(w1, FIRST_WRITE.decide(sorted, b, 1).nodeToWatch(), "the control watches the first writer");
    }

    /** Readers with no writer ahead are all granted, whatever readers are ahead of them. */
    @Test
    void readersWithNoWriterAheadShare() {
        List<LockNode> sorted = List.of(node(1, R, -1), node(2, R, -1), node(3, R, -1), node(4, W, -1), node(5, R, -1));

        for (int i = 0; i < 3; i++) {
            assertTrue(DRIVER.decide(sorted, sorted.get(i), 1).getsTheLock(), "reader " + i);
        }
        assertSame(sorted.get(2), DRIVER.decide(sorted, sorted.get(3), 1).nodeToWatch(), "writer waits for the last reader");
        assertSame(sorted.get(3), DRIVER.decide(sorted, sorted.get(4), 1).nodeToWatch(), "later reader waits for the writer");
    }

    /**
     * Downgrade: a read node anchored at the held write node W sorts before the writer X queued
     * after W, is granted beside W, and once W is gone X waits for it; an unanchored read node
     * (the naive downgrade) sorts after X and so lets X in beside it.
     */
    @Test
    void anchoredReadKeepsTheWriteNodesPlaceAndTheNaiveOneDoesNot() {
        LockNode w = node(10, W, -1);
        LockNode x = node(11, W, -1);
        LockNode r = node(12, R, 10);
        List<LockNode> all = sorted(List.of(x, r, w));
        assertEquals(List.of(w, r, x), all);
        assertEquals(10, r.position());
        assertTrue(DRIVER.decide(all, r, 1).getsTheLock(), "anchored read beside its own write node");
        assertSame(r, DRIVER.decide(all, x, 1).nodeToWatch());

        List<LockNode> afterWriteClosed = sorted(List.of(x, r));
        assertTrue(DRIVER.decide(afterWriteClosed, r, 1).getsTheLock());
        assertSame(r, DRIVER.decide(afterWriteClosed, x, 1).nodeToWatch(), "the queued writer waits for the read lease");

        LockNode naive = node(12, R, -1);
        List<LockNode> naiveAfterWriteClosed = sorted(List.of(x, naive));
        assertTrue(DRIVER.decide(naiveAfterWriteClosed, x, 1).getsTheLock(), "naive: writer granted beside the reader");
    }

    /** An anchor excuses only its own write node: a reader anchored at W still waits for a writer ahead of W. */
    @Test
    void anchorExcusesOnlyItsOwnWriteNode() {
        LockNode v = node(5, W, -1);
        LockNode w = node(10, W, -1);
        LockNode r = node(12, R, 10);
        List<LockNode> all = sorted(List.of(v, w, r));

        assertSame(v, DRIVER.decide(all, r, 1).nodeToWatch());
    }

    /** Nodes of a foreign kind do not block readers and are decided as exclusive nodes. */
    @Test
    void foreignKindsAreExclusiveAndDoNotBlockReaders() {
        LockNode lock = node(1, "lock", -1);
        LockNode r = node(2, R, -1);
        LockNode w = node(3, W, -1);
        List<LockNode> all = List.of(lock, r, w);

        assertTrue(DRIVER.decide(all, lock, 1).getsTheLock());
        assertTrue(DRIVER.decide(all, r, 1).getsTheLock());
        assertSame(r, DRIVER.decide(all, w, 1).nodeToWatch());
    }

    /** A node missing from the children gives an IllegalArgumentException naming it, for either kind. */
    @Test
    void rejectsNodeNotAmongChildren() {
        List<LockNode> all = List.of(node(1, W, -1), node(2, R, -1));
        for (LockNode stranger : List.of(node(7, R, -1), node(7, W, -1), node(7, R, 1))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DRIVER.decide(all, stranger, 1));
            assertTrue(e.getMessage().contains(stranger.name()), e.getMessage());
        }
    }

    // ---- the protocol as a model ---------------------------------------------------------------

    /**
     * The model: a directory evolves by creations of readers and writers, downgrades (a reader
     * anchored at a write node that is granted now), and deletions of any node (releases,
     * timeouts). At every state the granted set never holds a writer beside anyone but the
     * downgrade's read nodes anchored at it (the same thread holds both), a node
     * granted stays granted until it is deleted (so real holders, granted at some listing, are
     * always among the granted), every waiter watches a node ahead of it, deleting a granted
     * write node wakes only waiters that are then granted and deleting a granted read node wakes
     * at most one (no herd).
     */
    @Property(tries = 400)
    @StatisticsReport(onFailureOnly = true)
    void protocolNeverConflictsNeverRevokesAndWakesOnlyWhoCanProceed(
            @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 0, max = 399) Integer> ops) {
        Model model = new Model(DRIVER);
        for (int op : ops) {
            model.step(op);
        }
        Statistics.label("downgrades").collect(model.downgrades > 0)
                .coverage(c -> c.check(true).percentage(p -> p >= 20));
        Statistics.label("granted writer deleted with waiters").collect(model.writerReleasesWithWaiters > 0)
                .coverage(c -> c.check(true).percentage(p -> p >= 5));
    }

    /** The model check can fail: with Curator's first-write rule, releasing the first writer wakes readers that must keep waiting. */
    @Test
    void modelCatchesTheFirstWriteHerd() {
        Model model = new Model(FIRST_WRITE);
        model.create(W, -1);                   // W1, granted
        model.create(R, -1);                   // A
        model.create(W, -1);                   // W2
        model.create(R, -1);                   // B: watches W1 under the first-write rule
        AssertionError e = assertThrows(AssertionError.class, () -> model.delete(model.present.get(0)));
        assertTrue(e.getMessage().contains("woke"), e.getMessage());
    }

    /**
     * The model check can fail: a read node anchored at a write node that is already gone (the
     * downgrade of a writer whose session expired) takes a granted writer's place, revoking its
     * grant. This is why the downgrade keeps its anchored node only if the granting listing still
     * showed the write node.
     */
    @Test
    void modelCatchesAnOrphanAnchoredRead() {
        Model model = new Model(DRIVER);
        LockNode w = model.create(W, -1);
        model.create(W, -1);                   // X, queued behind W
        model.delete(w);                       // W's session expires: X is granted
        AssertionError e = assertThrows(AssertionError.class, () -> model.create(R, w.sequence()));
        assertTrue(e.getMessage().contains("revoked"), e.getMessage());
    }

    /** The directory of the model, checked after every step. */
    static final class Model {
        final LockDriver driver;
        final List<LockNode> present = new ArrayList<>();
        Set<LockNode> granted = new HashSet<>();
        long nextSequence;
        int downgrades;
        int writerReleasesWithWaiters;

        Model(LockDriver driver) {
            this.driver = driver;
        }

        void step(int op) {
            int arg = op / 4;
            switch (op % 4) {
                case 0 -> create(R, -1);
                case 1 -> create(W, -1);
                case 2 -> {
                    List<LockNode> grantedWriters = present.stream().filter(n -> n.is(W) && granted.contains(n)).toList();
                    if (!grantedWriters.isEmpty()) {
                        downgrades++;
                        create(R, grantedWriters.get(arg % grantedWriters.size()).sequence());
                    }
                }
                default -> {
                    if (!present.isEmpty()) {
                        delete(present.get(arg % present.size()));
                    }
                }
            }
        }

        LockNode create(String kind, long anchor) {
            LockNode n = node(nextSequence++, kind, anchor);
            present.add(n);
            present.sort(LockNode.QUEUE_ORDER);
            check();
            return n;
        }

        void delete(LockNode n) {
            List<LockNode> watchers = present.stream()
                    .filter(o -> o != n && !granted.contains(o) && n.equals(driver.decide(present, o, 1).nodeToWatch()))
                    .toList();
            boolean grantedWriter = n.is(W) && granted.contains(n);
            if (n.is(R) && granted.contains(n)) {
                assertTrue(watchers.size() <= 1, () -> "releasing reader " + n + " woke " + watchers);
            }
            present.remove(n);
            check();
            if (grantedWriter) {
                if (!watchers.isEmpty()) {
                    writerReleasesWithWaiters++;
                }
                for (LockNode woken : watchers) {
                    if (!granted.contains(woken)) {
                        throw new AssertionError("releasing " + n + " woke " + woken + ", which must keep waiting in " + present);
                    }
                }
            }
        }

        private void check() {
            Set<LockNode> now = new HashSet<>();
            for (LockNode n : present) {
                Decision d = driver.decide(present, n, 1);
                if (d.getsTheLock()) {
                    now.add(n);
                } else {
                    int watched = present.indexOf(d.nodeToWatch());
                    assertTrue(watched >= 0 && watched < present.indexOf(n), () -> n + " watches a node not ahead of it");
                }
            }
            for (LockNode held : granted) {
                if (present.contains(held) && !now.contains(held)) {
                    throw new AssertionError("grant of " + held + " revoked in " + present);
                }
            }
            for (LockNode writer : now) {
                if (writer.is(W)) {
                    // beside a granted writer only the downgrade's own read nodes, anchored at it
                    assertTrue(now.stream().allMatch(n -> n == writer || ReadWriteDriver.isAnchorOf(writer, n)),
                            () -> "writer granted beside others: " + now);
                }
            }
            assertFalse(!present.isEmpty() && now.isEmpty(), () -> "nobody granted in " + present);
            granted = now;
        }
    }

    /** granted() has nothing to watch; the decision for a waiter names its watched node's path. */
    @Test
    void decisionsNameTheirPath() {
        LockNode w = node(1, W, -1);
        LockNode r = node(2, R, -1);
        Decision d = DRIVER.decide(List.of(w, r), r, 1);
        assertFalse(d.getsTheLock());
        assertEquals("/locks/rw/" + w.name(), d.pathToWatch("/locks/rw"));
        assertNull(DRIVER.decide(List.of(w, r), w, 1).pathToWatch("/locks/rw"));
    }

    // ---- Curator's layout ----------------------------------------------------------------------

    private static LockNode curators(String mark, long sequence) {
        return LockNode.parse("_c_" + UUID.randomUUID() + "-" + mark + String.format(Locale.ENGLISH, "%010d", sequence))
                .orElseThrow();
    }

    private static LockNode zklocksCuratorLayout(String mark, long sequence) {
        return LockNode.parse(LockNode.protectedName(LockNode.newProtectedId(false), mark)
                + String.format(Locale.ENGLISH, "%010d", sequence)).orElseThrow();
    }

    /**
     * The default mode refuses while one of Curator's own nodes is listed, ahead of ours or behind
     * it: FOREIGN (a condition of the path, told as a LockException), naming the node and both ways out.
     */
    @Test
    void defaultModeRefusesBesideCuratorsNodes() {
        LockNode ours = LockNode.parse("_c_" + LockNode.newProtectedId(false) + "-read-0000000003").orElseThrow();
        for (LockNode theirs : List.of(curators("__WRIT__", 1), curators("__READ__", 5))) {
            List<LockNode> sorted = LockNode.sorted(List.of(ours.name(), theirs.name()));
            Decision decision = ReadWriteDriver.INSTANCE.decide(sorted, ours, 1);
            assertEquals(Decision.Verdict.FOREIGN, decision.verdict());
            assertTrue(decision.refusal().contains(theirs.name()) && decision.refusal().contains("finish the migration")
                    && decision.refusal().contains("LockCompatibility.CURATOR"), decision.refusal());
        }
    }

    /** Nodes of Curator's layout written by zklock (compatibility mode) are honoured by the default mode. */
    @Test
    void defaultModeHonoursCompatibilityModeNodes() {
        LockNode write = zklocksCuratorLayout("__WRIT__", 1);
        LockNode ours = LockNode.parse("_c_" + LockNode.newProtectedId(false) + "-read-0000000003").orElseThrow();
        List<LockNode> sorted = LockNode.sorted(List.of(ours.name(), write.name()));
        assertEquals(Decision.watch(write), ReadWriteDriver.INSTANCE.decide(sorted, ours, 1));
    }

    /** The compatibility decider honours Curator's nodes by Curator's rules. */
    @Test
    void compatibilityModeHonoursCuratorsNodes() {
        LockNode curatorWrite = curators("__WRIT__", 1);
        LockNode curatorRead = curators("__READ__", 2);
        LockNode ourRead = zklocksCuratorLayout("__READ__", 3);
        LockNode ourWrite = zklocksCuratorLayout("__WRIT__", 4);
        List<LockNode> sorted = LockNode.sorted(List.of(ourWrite.name(), ourRead.name(), curatorRead.name(), curatorWrite.name()));
        assertEquals(Decision.watch(curatorWrite), ReadWriteDriver.CURATOR.decide(sorted, ourRead, 1));
        assertEquals(Decision.watch(ourRead), ReadWriteDriver.CURATOR.decide(sorted, ourWrite, 1));
        List<LockNode> later = LockNode.sorted(List.of(ourWrite.name(), ourRead.name(), curatorRead.name()));
        assertTrue(ReadWriteDriver.CURATOR.decide(later, ourRead, 1).getsTheLock());
    }

    /** Curator's downgrade names its read node after its write node: that read node is granted beside it, and a writer behind waits for both. */
    @Test
    void curatorsDowngradeTiesItsWriteNode() {
        LockNode write = curators("__WRIT__", 6);
        LockNode downgraded = curators("__READ__", 6);
        LockNode writer = zklocksCuratorLayout("__WRIT__", 7);
        LockNode reader = zklocksCuratorLayout("__READ__", 8);
        List<LockNode> sorted = LockNode.sorted(List.of(reader.name(), writer.name(), downgraded.name(), write.name()));
        assertTrue(ReadWriteDriver.CURATOR.decide(sorted, downgraded, 1).getsTheLock());
        assertFalse(ReadWriteDriver.CURATOR.decide(sorted, writer, 1).getsTheLock());
        assertEquals(Decision.watch(writer), ReadWriteDriver.CURATOR.decide(sorted, reader, 1));
        List<LockNode> afterWrite = LockNode.sorted(List.of(reader.name(), writer.name(), downgraded.name()));
        assertEquals(Decision.watch(downgraded), ReadWriteDriver.CURATOR.decide(afterWrite, writer, 1));
    }
}
