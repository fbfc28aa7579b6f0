package io.zklock.core.internal.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.spi.queue.LockNode;

import org.junit.jupiter.api.Test;

/** The lock-node count a tree watch keeps of a directory: known from a covered listing on, lost on any doubt; the waiters it tells (HEAR). */
class DirectoryCountsTest {
    private static final String DIR = "/locks/sem";
    private static final String A = "_c_4b1e0f4c-6a4e-8c3d-9f1e-0a1b2c3d4e5f-sem3-0000000001";
    private static final String B = "_c_4b1e0f4c-6a4e-8c3d-9f1e-0a1b2c3d4e5f-sem3-0000000002";
    private static final String C = "_c_4b1e0f4c-6a4e-8c3d-9f1e-0a1b2c3d4e5f-sem3-0000000003";

    @Test
    void countsFromACoveredListingThenFollowsCreationsAndDeletions() {
        DirectoryCounts counts = new DirectoryCounts();
        assertEquals(-1, counts.nodes(DIR, 7), "nothing listed yet");
        counts.listed(DIR, List.of(A, "not-a-lock-node"), 7);
        assertEquals(1, counts.nodes(DIR, 7), "the listing's lock nodes");
        counts.changed(DIR + "/" + B, 1);
        counts.changed(DIR + "/other", 1);
        assertEquals(2, counts.nodes(DIR, 7));
        counts.changed(DIR + "/" + A, -1);
        assertEquals(1, counts.nodes(DIR, 7));
        assertEquals(-1, counts.nodes(DIR, 8), "another watch than the listing's");
    }

    @Test
    void anyDoubtMakesItUnknownUntilTheNextListing() {
        DirectoryCounts counts = new DirectoryCounts();
        counts.nodes(DIR, 1);
        counts.listed(DIR, List.of(A), -1);
        assertEquals(-1, counts.nodes(DIR, 1), "a listing under no covering watch");
        counts.listed(DIR, List.of(A), 1);
        counts.cutOff();
        assertEquals(-1, counts.nodes(DIR, 1), "connection news");
        counts.listed(DIR, List.of(A), 1);
        counts.changed(DIR, -1);
        assertEquals(-1, counts.nodes(DIR, 1), "the directory itself went");
        counts.listed(DIR, List.of(), 1);
        counts.changed(DIR + "/" + A, -1);
        assertEquals(-1, counts.nodes(DIR, 1), "below zero");
        counts.listed("/locks/unasked", List.of(A), 1);
        assertEquals(-1, counts.nodes("/locks/unasked", 1), "a directory is counted from its first question on");
    }

    /** HEAR: an await is told once, after the count's update, when a node it names goes; other changes do not tell it. */
    @Test
    void anAwaitIsToldOnceWhenANodeItNamesGoes() {
        DirectoryCounts counts = new DirectoryCounts();
        counts.counted(DIR);
        counts.listed(DIR, List.of(A, B), 3);
        List<List<LockNode>> told = new ArrayList<>();
        Runnable callOff = counts.await(DIR, 3, Set.of(A), () -> told.add(counts.exact(DIR, 3)));
        assertNotNull(callOff, "known, and the node is there");
        DirectoryCounts.tell(counts.changed(DIR + "/" + C, 1));
        DirectoryCounts.tell(counts.changed(DIR + "/" + B, -1));
        assertEquals(List.of(), told, "not for a creation or another node's deletion");
        DirectoryCounts.tell(counts.changed(DIR + "/" + A, -1));
        assertEquals(List.of(List.of(LockNode.parse(C).orElseThrow())), told, "told once, with the count after the deletion");
        DirectoryCounts.tell(counts.changed(DIR + "/" + C, -1));
        assertEquals(1, told.size(), "once");
        assertNull(counts.await(DIR, 3, Set.of(A), () -> { }), "a node already gone: nothing to wait for");
        assertNull(counts.await(DIR, 4, Set.of(), () -> { }), "another watch than the listing's");
    }

    /** HEAR: every way the count turns unknown tells the awaits, and a call-off leaves one untold. */
    @Test
    void losingTrackTellsEveryAwait() {
        DirectoryCounts counts = new DirectoryCounts();
        counts.counted(DIR);
        AtomicInteger told = new AtomicInteger();
        List<Runnable> ways = List.of(
                () -> DirectoryCounts.tell(counts.cutOff()),
                () -> DirectoryCounts.tell(counts.changed(DIR, -1)),
                () -> DirectoryCounts.tell(counts.changed(DIR + "/" + C, -1)),
                () -> DirectoryCounts.tell(counts.listed(DIR, List.of(A), -1)),
                () -> DirectoryCounts.tell(counts.listed(DIR, List.of(B), 1)));
        for (Runnable way : ways) {
            counts.listed(DIR, List.of(A), 1);
            int before = told.get();
            assertNotNull(counts.await(DIR, 1, Set.of(A), told::incrementAndGet));
            way.run();
            assertEquals(before + 1, told.get());
        }
        counts.listed(DIR, List.of(A), 1);
        counts.await(DIR, 1, Set.of(A), told::incrementAndGet).run();
        DirectoryCounts.tell(counts.changed(DIR + "/" + A, -1));
        assertEquals(ways.size(), told.get(), "called off: not told");
    }

    /** A child that is no lock node leaves the count a hint (for permits) but no queue to decide on, and no await. */
    @Test
    void aStrayChildLeavesTheCountAHintOnly() {
        DirectoryCounts counts = new DirectoryCounts();
        counts.counted(DIR);
        counts.listed(DIR, List.of(A, "leases"), 1);
        assertEquals(1, counts.nodes(DIR, 1));
        assertNull(counts.exact(DIR, 1));
        assertNull(counts.await(DIR, 1, Set.of(A), () -> { }));
        counts.listed(DIR, List.of(A), 1);
        assertNotNull(counts.exact(DIR, 1));
        DirectoryCounts.tell(counts.changed(DIR + "/locks", 1));
        assertNull(counts.exact(DIR, 1), "a stray created after the listing");
    }

    /** Past MAX directories the oldest ones nobody waits on are forgotten; one waited on is kept, and the count stays bounded. */
    @Test
    void aDirectoryWaitedOnIsKeptAndTheOthersStillGo() {
        DirectoryCounts counts = new DirectoryCounts();
        counts.counted(DIR);
        counts.listed(DIR, List.of(A), 1);
        assertNotNull(counts.await(DIR, 1, Set.of(A), () -> { }));
        counts.counted("/locks/second");
        counts.listed("/locks/second", List.of(A), 1);
        for (int i = 0; i < DirectoryCounts.MAX + 10; i++) {
            counts.counted("/locks/d" + i);
        }
        assertEquals(1, counts.nodes(DIR, 1), "waited on: kept");
        assertEquals(-1, counts.nodes("/locks/second", 1), "the next oldest: forgotten although the eldest stays");
        assertEquals(-1, counts.nodes("/locks/d0", 1), "and so on");
    }
}
