package io.zklock.core.spi.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;
import org.junit.jupiter.api.Test;

class ExclusiveDriverTest {

    private static final List<String> KINDS = List.of("lock", "read", "write");
    private static final String DIR = "/locks/a";

    /** A queue in order: node i has kind kinds[i] and sequence 3i+1 (with gaps, as after deletions). */
    static List<LockNode> queue(List<String> kinds) {
        List<LockNode> nodes = new ArrayList<>(kinds.size());
        for (int i = 0; i < kinds.size(); i++) {
            nodes.add(LockNodeTest.node(new UUID(0x5eed, i).toString(), kinds.get(i), 3L * i + 1));
        }
        return nodes;
    }

    /** Every kind assignment of every queue of 1..8 nodes: granted exactly at index 0, otherwise the immediate predecessor is watched. */
    @Test
    void grantsHeadAndWatchesImmediatePredecessorExhaustively() {
        long decisions = 0;
        for (int n = 1; n <= 8; n++) {
            int assignments = (int) Math.pow(KINDS.size(), n);
            for (int code = 0; code < assignments; code++) {
                List<String> kinds = new ArrayList<>(n);
                for (int i = 0, c = code; i < n; i++, c /= KINDS.size()) {
                    kinds.add(KINDS.get(c % KINDS.size()));
                }
                List<LockNode> sorted = queue(kinds);
                for (int i = 0; i < n; i++) {
                    Decision d = LockDriver.EXCLUSIVE.decide(sorted, sorted.get(i), 1);
                    if (i == 0) {
                        assertTrue(d.getsTheLock(), () -> "head not granted in " + kinds);
                        assertNull(d.nodeToWatch());
                    } else {
                        int index = i;
                        assertFalse(d.getsTheLock(), () -> "index " + index + " granted in " + kinds);
                        assertSame(sorted.get(i - 1), d.nodeToWatch(), () -> "index " + index + " in " + kinds);
                    }
                    decisions++;
                }
            }
        }
        long expected = 0;
        for (int n = 1; n <= 8; n++) {
            expected += n * (long) Math.pow(KINDS.size(), n);
        }
        assertEquals(expected, decisions, "the enumeration skipped cases");
    }

    /** A node that is not among the children gives an IllegalArgumentException naming it. */
    @Test
    void rejectsNodeNotAmongChildren() {
        List<LockNode> sorted = queue(List.of("lock", "lock", "lock"));
        LockNode stranger = LockNodeTest.node(new UUID(0xbad, 0).toString(), "lock", 2);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LockDriver.EXCLUSIVE.decide(sorted, stranger, 1));

        assertTrue(e.getMessage().contains(stranger.name()), e.getMessage());
    }

    /** An empty list of children gives an IllegalArgumentException, not an index error. */
    @Test
    void rejectsEmptyChildren() {
        LockNode ours = queue(List.of("lock")).get(0);

        assertThrows(IllegalArgumentException.class, () -> LockDriver.EXCLUSIVE.decide(List.of(), ours, 1));
    }

    /** Removing any subset of the nodes that precede ours never turns a grant into a wait. */
    @Property(tries = 1000)
    @StatisticsReport(onFailureOnly = true)
    void exclusiveDriverIsMonotone(@ForAll("removals") Removal removal) {
        boolean grantedBefore = assertMonotone(LockDriver.EXCLUSIVE, removal);

        Statistics.label("granted before removal").collect(grantedBefore)
                .coverage(c -> c.check(true).percentage(p -> p >= 5));
    }

    /** The monotonicity check itself catches a driver that grants only the second node in line. */
    @Test
    void monotonicityCheckCatchesNonMonotoneDriver() {
        LockDriver secondInLine = (sorted, ours, maxLeases) -> LockDriver.indexOf(sorted, ours) == 1
                ? Decision.granted() : Decision.watch(sorted.get(0));
        Removal removeHead = new Removal(queue(List.of("lock", "lock")), 1, List.of(true));

        assertThrows(AssertionError.class, () -> assertMonotone(secondInLine, removeHead));
    }

    /** Our queue, our index in it, and for each predecessor whether it is removed. */
    record Removal(List<LockNode> sorted, int ours, List<Boolean> removePredecessor) {
    }

    /** Asserts that the removal keeps a grant a grant; returns whether ours was granted before it. */
    static boolean assertMonotone(LockDriver driver, Removal removal) {
        LockNode ours = removal.sorted().get(removal.ours());
        List<LockNode> fewer = new ArrayList<>(removal.sorted());
        for (int i = removal.ours() - 1; i >= 0; i--) {
            if (removal.removePredecessor().get(i)) {
                fewer.remove(i);
            }
        }
        boolean before = driver.decide(removal.sorted(), ours, 1).getsTheLock();
        boolean after = driver.decide(fewer, ours, 1).getsTheLock();
        if (before && !after) {
            throw new AssertionError("grant turned into a wait: " + removal + " reduced to " + fewer);
        }
        return before;
    }

    @Provide
    Arbitrary<Removal> removals() {
        return Arbitraries.of(KINDS).list().ofMinSize(1).ofMaxSize(12).flatMap(kinds ->
                Arbitraries.integers().between(0, kinds.size() - 1).flatMap(ours ->
                        Arbitraries.of(true, false).list().ofSize(ours).map(remove ->
                                new Removal(queue(kinds), ours, remove))));
    }

    /** granted() grants, names no node to watch and has no path to watch. */
    @Test
    void grantedDecisionHasNothingToWatch() {
        Decision d = Decision.granted();

        assertTrue(d.getsTheLock());
        assertNull(d.nodeToWatch());
        assertNull(d.pathToWatch(DIR));
    }

    /** watch(node) waits on that node, and its path to watch is the node's name under the directory. */
    @Test
    void watchDecisionNamesThePathToWatch() {
        LockNode node = queue(List.of("write")).get(0);

        Decision d = Decision.watch(node);

        assertFalse(d.getsTheLock());
        assertSame(node, d.nodeToWatch());
        assertEquals(DIR + "/" + node.name(), d.pathToWatch(DIR));
    }

    /** A decision to watch two nodes names both, first first, with their paths; one node watched names only it. */
    @Test
    void twoNodeWatchNamesBothNodesAndPaths() {
        List<LockNode> nodes = queue(List.of("sem2", "sem2"));
        Decision d = Decision.watch(nodes.get(1), nodes.get(0));

        assertEquals(Decision.Verdict.WATCH_NODE, d.verdict());
        assertSame(nodes.get(1), d.nodeToWatch());
        assertSame(nodes.get(0), d.secondToWatch());
        assertEquals(List.of(nodes.get(1), nodes.get(0)), d.nodesToWatch());
        assertEquals(List.of(DIR + "/" + nodes.get(1).name(), DIR + "/" + nodes.get(0).name()), d.pathsToWatch(DIR));
        assertEquals(DIR + "/" + nodes.get(1).name(), d.pathToWatch(DIR));
        assertEquals(List.of(nodes.get(0)), Decision.watch(nodes.get(0)).nodesToWatch());
        assertEquals(List.of(), Decision.watchDirectory().nodesToWatch());
        assertEquals(List.of(), Decision.granted().pathsToWatch(DIR));
    }

    /** A two-node watch needs two nodes, and two different ones; a second node goes only with a first. */
    @Test
    void twoNodeWatchRejectsNullAndTheSameNodeTwice() {
        List<LockNode> nodes = queue(List.of("sem2", "sem2"));
        assertThrows(NullPointerException.class, () -> Decision.watch(nodes.get(0), null));
        assertThrows(NullPointerException.class, () -> Decision.watch(null, nodes.get(0)));
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> Decision.watch(nodes.get(0), nodes.get(0)));
        assertTrue(twice.getMessage().contains(nodes.get(0).name()), twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Decision(Decision.Verdict.WATCH_DIRECTORY, null, null, nodes.get(0)));
        assertThrows(IllegalArgumentException.class, () -> new Decision(Decision.Verdict.GRANTED, null, null, nodes.get(0)));
    }

    /** watch(null) is rejected. */
    @Test
    void watchRejectsNull() {
        assertThrows(NullPointerException.class, () -> Decision.watch(null));
    }

    /** A decision whose parts disagree with its outcome cannot be built. */
    @Test
    void decisionRejectsInconsistentComponents() {
        LockNode node = queue(List.of("lock")).get(0);

        assertThrows(IllegalArgumentException.class, () -> new Decision(Decision.Verdict.GRANTED, node, null));
        assertThrows(IllegalArgumentException.class, () -> new Decision(Decision.Verdict.WATCH_NODE, null, null));
        assertThrows(IllegalArgumentException.class, () -> new Decision(Decision.Verdict.WATCH_DIRECTORY, node, null));
        assertThrows(IllegalArgumentException.class, () -> new Decision(Decision.Verdict.REFUSED, null, null));
        assertThrows(IllegalArgumentException.class, () -> new Decision(Decision.Verdict.GRANTED, null, "why"));
    }

    /** watchDirectory and refuse carry no node to watch; refuse keeps its reason. */
    @Test
    void directoryAndRefusalDecisions() {
        assertEquals(Decision.Verdict.WATCH_DIRECTORY, Decision.watchDirectory().verdict());
        assertFalse(Decision.watchDirectory().getsTheLock());
        assertEquals(null, Decision.watchDirectory().pathToWatch(DIR));
        Decision refused = Decision.refuse("maxLeases 3 here, 5 asked");
        assertFalse(refused.getsTheLock());
        assertEquals("maxLeases 3 here, 5 asked", refused.refusal());
        assertThrows(NullPointerException.class, () -> Decision.refuse(null));
    }
}
