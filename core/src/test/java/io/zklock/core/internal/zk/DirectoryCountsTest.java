package io.zklock.core.internal.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The lock-node count a tree watch keeps of a directory: known from a covered listing on, lost on any doubt. */
class DirectoryCountsTest {
    private static final String DIR = "/locks/sem";
    private static final String A = "_c_4b1e0f4c-6a4e-8c3d-9f1e-0a1b2c3d4e5f-sem3-0000000001";
    private static final String B = "_c_4b1e0f4c-6a4e-8c3d-9f1e-0a1b2c3d4e5f-sem3-0000000002";

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
}
