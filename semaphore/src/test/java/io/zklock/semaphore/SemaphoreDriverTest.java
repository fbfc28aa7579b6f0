package io.zklock.semaphore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;

import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockNode;
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

    /**
     * For every queue of up to 8 nodes and every maxLeases up to 4: granted below maxLeases, the
     * head and the second waiter watch the directory, the rest the two nodes right ahead.
     */
    @Test
    void grantsTheFirstMaxLeasesHeadAndSecondWatchDirectoryOthersTheTwoAhead() {
        int checked = 0;
        for (int max = 1; max <= 4; max++) {
            for (int size = 1; size <= 8; size++) {
                List<LockNode> sorted = queue(size, max);
                for (int i = 0; i < size; i++) {
                    Decision d = driver.decide(sorted, sorted.get(i), max);
                    if (i < max) {
                        assertEquals(Decision.granted(), d, "index " + i + " of " + size + ", max " + max);
                    } else if (i <= max + 1) {
                        assertEquals(Decision.watchDirectory(), d, (i == max ? "head" : "second") + " at " + i);
                    } else {
                        assertEquals(Decision.watch(sorted.get(i - 1), sorted.get(i - 2)), d, "waiter at " + i);
                        assertEquals(List.of(sorted.get(i - 1), sorted.get(i - 2)), d.nodesToWatch());
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

    // ---- a model of the queue: no stranded permit with a dead waiter, and the herd -------------

    /**
     * The engine's wait as the driver drives it, without a server: each live waiter re-decides
     * when a watched event happens (a child change for a directory watch; the deletion or grant
     * announcement of a watched node), a grant announces itself when a node follows, and a
     * watch set on a node that has already announced looks again at once. A dead node keeps
     * its place and never decides, announces or leaves again.
     */
    private final class Model {
        final int max;
        final List<LockNode> dir = new ArrayList<>();
        final java.util.Set<LockNode> granted = new java.util.HashSet<>();
        final java.util.Set<LockNode> announced = new java.util.HashSet<>();
        /** A live waiter's watch: null for the directory, else the nodes whose data it watches. */
        final java.util.Map<LockNode, List<LockNode>> watching = new java.util.HashMap<>();
        LockNode dead;
        int nextSequence = 10;
        int wakeUps;

        Model(int max) {
            this.max = max;
        }

        LockNode arrive() {
            LockNode node = LockNode.parse("_c_" + UUID.randomUUID() + "-" + SemaphoreDriver.kind(max) + "-"
                    + String.format("%010d", nextSequence++)).orElseThrow();
            dir.add(node);
            List<LockNode> woken = directoryWatchers();
            decide(node);
            settle(woken);
            return node;
        }

        void delete(LockNode node) {
            dir.remove(node);
            granted.remove(node);
            watching.remove(node);
            List<LockNode> woken = directoryWatchers();
            woken.addAll(dataWatchersOf(node));
            settle(woken);
        }

        void kill(LockNode node) {
            dead = node;
            watching.remove(node);             // its watch may fire: nobody acts on it
        }

        private List<LockNode> directoryWatchers() {
            List<LockNode> out = new ArrayList<>();
            watching.forEach((n, w) -> {
                if (w == null) {
                    out.add(n);
                }
            });
            return out;
        }

        private List<LockNode> dataWatchersOf(LockNode node) {
            List<LockNode> out = new ArrayList<>();
            watching.forEach((n, w) -> {
                if (w != null && w.contains(node)) {
                    out.add(n);
                }
            });
            return out;
        }

        /** Wakes {@code woken} (each watch fires once) and everything that follows from them. */
        private void settle(List<LockNode> woken) {
            java.util.ArrayDeque<LockNode> pending = new java.util.ArrayDeque<>();
            for (LockNode n : woken) {
                watching.remove(n);
                pending.add(n);
            }
            int steps = 0;
            while (!pending.isEmpty()) {
                if (++steps > 1000) {
                    throw new AssertionError("wake-ups never settle: " + dir);
                }
                wakeUps++;
                for (LockNode n : decide(pending.poll())) {
                    watching.remove(n);
                    pending.add(n);
                }
            }
        }

        /** One decision of a live node; returns whom it wakes (or itself, to look again at once). */
        private List<LockNode> decide(LockNode node) {
            Decision d = driver.decide(dir, node, max);
            switch (d.verdict()) {
                case GRANTED -> {
                    granted.add(node);
                    if (!dir.get(dir.size() - 1).equals(node)) {
                        announced.add(node);
                        return dataWatchersOf(node);
                    }
                    return List.of();
                }
                case WATCH_DIRECTORY -> {
                    watching.put(node, null);
                    return List.of();
                }
                case WATCH_NODE -> {
                    watching.put(node, d.nodesToWatch());
                    return d.nodesToWatch().stream().anyMatch(announced::contains) ? List.of(node) : List.of();
                }
                default -> throw new AssertionError(d);
            }
        }

        /** Every node among the first maxLeases is granted or dead, and every grant is among them. */
        void assertNoStrandedPermit(String after) {
            for (int i = 0; i < Math.min(max, dir.size()); i++) {
                LockNode n = dir.get(i);
                assertTrue(n.equals(dead) || granted.contains(n), "live node at " + i + " not granted after " + after
                        + "; max " + max + ", dead at " + dir.indexOf(dead) + " of " + dir.size());
            }
            for (LockNode n : granted) {
                assertTrue(dir.indexOf(n) < max, "granted at " + dir.indexOf(n) + " of max " + max);
            }
        }
    }

    /**
     * No stranded permit with one dead waiter: whatever waiter dies (head, second, third or
     * later), and whatever live clients then do (holders releasing in any order, waiters
     * abandoning, new arrivals), after each event's wake-ups every node among the first
     * maxLeases is granted or is the dead one; and no event wakes more than four waiters
     * (a release: the head and the second, then the granted node's two data watchers at most;
     * an arrival: the head and the second).
     */
    @Property(tries = 400)
    void withOneDeadWaiterNoPermitIsStrandedAndAnEventWakesAtMostFour(
            @ForAll @IntRange(min = 1, max = 4) int max,
            @ForAll @IntRange(min = 0, max = 8) int waiting,
            @ForAll @IntRange(min = 0, max = 8) int deadAt,
            @ForAll @net.jqwik.api.constraints.Size(max = 30) List<@IntRange(min = 0, max = 99) Integer> events) {
        Model model = new Model(max);
        for (int i = 0; i < max + waiting; i++) {
            model.arrive();
        }
        model.assertNoStrandedPermit("the queue formed");
        if (waiting > 0) {
            model.kill(model.dir.get(max + deadAt % waiting));
        }
        for (int e : events) {
            List<LockNode> live = new ArrayList<>(model.dir);
            live.remove(model.dead);
            int before = model.wakeUps;
            String what;
            if (e % 4 == 3 || live.isEmpty()) {
                model.arrive();
                what = "an arrival";
            } else {
                LockNode leaving = live.get((e / 4) % live.size());
                what = (model.granted.contains(leaving) ? "a release at " : "an abandon at ") + model.dir.indexOf(leaving);
                model.delete(leaving);
            }
            model.assertNoStrandedPermit(what);
            assertTrue(model.wakeUps - before <= 4, (model.wakeUps - before) + " wake-ups after " + what);
        }
    }
}
