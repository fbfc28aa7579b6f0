package io.zklock.semaphore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;

import io.zklock.core.spi.Decision;
import io.zklock.core.spi.LockNode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The semaphore driver, checked exhaustively and as a property, without a server. */
class SemaphoreDriverTest {
    private final SemaphoreDriver driver = new SemaphoreDriver();

    private static List<LockNode> queue(int size, int maxLeases) {
        List<LockNode> nodes = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String name = "_c_" + UUID.randomUUID() + "-" + SemaphoreDriver.kind(maxLeases) + "-" + String.format("%010d", 10 + i * 3);
            nodes.add(LockNode.parse(name).orElseThrow());
        }
        return nodes;
    }

    /** For every queue of up to 8 nodes and every maxLeases up to 4: granted below maxLeases, the head watches the directory, the rest their predecessor. */
    @Test
    void grantsTheFirstMaxLeasesHeadWatchesDirectoryOthersTheirPredecessor() {
        int checked = 0;
        for (int max = 1; max <= 4; max++) {
            for (int size = 1; size <= 8; size++) {
                List<LockNode> sorted = queue(size, max);
                for (int i = 0; i < size; i++) {
                    Decision d = driver.decide(sorted, sorted.get(i), max);
                    if (i < max) {
                        assertEquals(Decision.granted(), d, "index " + i + " of " + size + ", max " + max);
                    } else if (i == max) {
                        assertEquals(Decision.watchDirectory(), d, "head at " + i);
                    } else {
                        assertEquals(Decision.watch(sorted.get(i - 1)), d, "waiter at " + i);
                    }
                    checked++;
                }
            }
        }
        assertEquals(4 * 36, checked);
    }

    /** A node whose maxLeases differs from the earliest node's is refused, with both values named, wherever it stands. */
    @Test
    void disagreementWithTheEarliestNodeIsRefusedNamingBothValues() {
        List<LockNode> established = queue(2, 3);
        LockNode rogue = queue(1, 5).get(0);
        List<LockNode> sorted = new ArrayList<>(established);
        sorted.add(1, new LockNode(rogue.name(), rogue.protectedId(), rogue.kind(), established.get(0).sequence() + 1));
        Decision d = driver.decide(sorted, sorted.get(1), 5);
        assertEquals(Decision.Verdict.REFUSED, d.verdict());
        assertTrue(d.refusal().contains("maxLeases 3") && d.refusal().contains("maxLeases 5"), d.refusal());
        assertEquals(Decision.Verdict.REFUSED, driver.decide(sorted, sorted.get(0), 3).verdict(),
                "a rogue within its own count (index 1 < 5) could be granted once the first node leaves: "
                + "a client that lists while it is there is refused too");
        LockNode small = queue(1, 1).get(0);
        List<LockNode> withSmall = new ArrayList<>(established);
        withSmall.add(1, new LockNode(small.name(), small.protectedId(), small.kind(), established.get(0).sequence() + 1));
        assertEquals(Decision.Verdict.REFUSED, driver.decide(withSmall, withSmall.get(1), 1).verdict());
        assertEquals(Decision.granted(), driver.decide(withSmall, withSmall.get(0), 3),
                "a rogue beyond its own count (index 1, maxLeases 1) leaves the established holder alone");
    }

    /**
     * A client that finds itself first but sees a node of another value at an index below that
     * value (a holder by its own count, granted while an earlier node was still there) is
     * refused: two values can never both be granted.
     */
    @Test
    void aNodeHoldingByItsOwnCountRefusesADisagreeingNodeAheadOfIt() {
        LockNode rogue = queue(1, 1).get(0);
        LockNode holder = queue(1, 3).get(0);
        List<LockNode> sorted = List.of(
                new LockNode(rogue.name(), rogue.protectedId(), rogue.kind(), 5),
                new LockNode(holder.name(), holder.protectedId(), holder.kind(), 7));
        Decision d = driver.decide(sorted, sorted.get(0), 1);
        assertEquals(Decision.Verdict.REFUSED, d.verdict());
        assertTrue(d.refusal().contains("maxLeases 3") && d.refusal().contains("maxLeases 1"), d.refusal());
        List<LockNode> queuedBehind = List.of(
                new LockNode(holder.name(), holder.protectedId(), holder.kind(), 5),
                new LockNode(rogue.name(), rogue.protectedId(), rogue.kind(), 9));
        assertEquals(Decision.granted(), driver.decide(queuedBehind, queuedBehind.get(0), 3),
                "a rogue merely queued behind does not refuse the holder");
    }

    /** Kinds that kind() never writes ("sem0", leading zeros) declare nothing. */
    @Test
    void malformedCountsDeclareNothing() {
        for (String kind : List.of("sem0", "sem03", "sem1234567890")) {
            LockNode node = LockNode.parse("_c_" + UUID.randomUUID() + "-" + kind + "-0000000001").orElseThrow();
            assertEquals(OptionalInt.empty(), SemaphoreDriver.declaredMaxLeases(node), kind);
        }
    }

    /** Nodes of other recipes are counted as queued ahead but set no maxLeases. */
    @Test
    void foreignKindsCountButDoNotDeclare() {
        LockNode mutexNode = LockNode.parse("_c_" + UUID.randomUUID() + "-lock-0000000001").orElseThrow();
        assertEquals(OptionalInt.empty(), SemaphoreDriver.declaredMaxLeases(mutexNode));
        assertEquals(OptionalInt.of(12), SemaphoreDriver.declaredMaxLeases(queue(1, 12).get(0)));
        List<LockNode> sorted = new ArrayList<>();
        sorted.add(mutexNode);
        sorted.addAll(queue(2, 1));
        assertEquals(Decision.watchDirectory(), driver.decide(sorted, sorted.get(1), 1));
        assertEquals(OptionalInt.empty(), SemaphoreDriver.declaredMaxLeases(
                LockNode.parse("_c_" + UUID.randomUUID() + "-semx-0000000001").orElseThrow()));
        assertEquals(OptionalInt.empty(), SemaphoreDriver.declaredMaxLeases(
                LockNode.parse("_c_" + UUID.randomUUID() + "-sem-0000000001").orElseThrow()));
    }

    /** The semaphore asks the engine to announce grants. */
    @Test
    void announcesGrants() {
        assertTrue(driver.announcesGrants());
    }

    /** Monotone: removing any nodes ahead of ours never turns a grant into anything else. */
    @Property(tries = 300)
    void removingNodesAheadNeverTurnsAGrantIntoAWait(
            @ForAll @IntRange(min = 1, max = 10) int size,
            @ForAll @IntRange(min = 1, max = 5) int max,
            @ForAll @IntRange(min = 0, max = 9) int ourIndex,
            @ForAll long removalMask) {
        List<LockNode> sorted = queue(size, max);
        LockNode ours = sorted.get(ourIndex % size);
        boolean grantedBefore = driver.decide(sorted, ours, max).getsTheLock();
        List<LockNode> fewer = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            LockNode node = sorted.get(i);
            boolean ahead = node.compareTo(ours) < 0;
            if (!ahead || ((removalMask >>> i) & 1) == 0) {
                fewer.add(node);
            }
        }
        if (grantedBefore) {
            assertTrue(driver.decide(fewer, ours, max).getsTheLock());
        }
    }
}
