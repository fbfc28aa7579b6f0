package io.zklock.core.spi.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Random;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Curator's node layouts: parsed, ordered as Curator orders them, and told apart from zklock's by the uuid. */
class LockNodeCuratorLayoutTest {
    /** A version-4 uuid, as Curator's protected create writes. */
    private static final String CURATORS = "0f8fad5b-d9cb-469f-a165-70867728950e";

    private static String seq(long n) {
        return String.format(Locale.ENGLISH, "%010d", n);
    }

    /** Curator's read and write names parse to the kinds read and write, with their numbers. */
    @Test
    void parsesCuratorsReadWriteNames() {
        LockNode read = LockNode.parse("_c_" + CURATORS + "-__READ__" + seq(5)).orElseThrow();
        LockNode write = LockNode.parse("_c_" + CURATORS + "-__WRIT__" + seq(7)).orElseThrow();
        assertEquals("read", read.kind());
        assertEquals(5, read.sequence());
        assertEquals(OptionalLong.empty(), read.anchor());
        assertEquals("write", write.kind());
        assertEquals(7, write.sequence());
        assertTrue(read.curatorNamed() && write.curatorNamed());
        assertTrue(read.curatorsReadWriteNode() && write.curatorsReadWriteNode());
    }

    /** A read node of Curator's layout may carry an anchor: ten characters, then its sequence number. */
    @Test
    void parsesAnAnchoredReadNodeOfCuratorsLayout() {
        String uuid = LockNode.newProtectedId(false);
        LockNode read = LockNode.parse(LockNode.protectedName(uuid, LockNode.curatorAnchoredPrefix("read", 5)) + seq(9))
                .orElseThrow();
        assertEquals(OptionalLong.of(5), read.anchor());
        assertEquals(9, read.sequence());
        assertTrue(read.zklockMarked());
        assertFalse(read.curatorsReadWriteNode());
    }

    /** What is not exactly Curator's layout is foreign. */
    @ParameterizedTest
    @ValueSource(strings = {"__WRIT__00000000050000000009", "__READ__000000005", "__READ__", "__READ__00000000x5",
            "__FOO___0000000001", "__READ__-0000000001", "__read__0000000001"})
    void rejectsNearMisses(String tail) {
        assertTrue(LockNode.parse("_c_" + CURATORS + "-" + tail).isEmpty(), tail);
    }

    /** Curator's mutex and semaphore lease names are kinds like ours. */
    @Test
    void parsesCuratorsMutexAndLeaseNames() {
        assertEquals("lock", LockNode.parse("_c_" + CURATORS + "-lock-" + seq(3)).orElseThrow().kind());
        assertEquals("lease", LockNode.parse("_c_" + CURATORS + "-lease-" + seq(3)).orElseThrow().kind());
    }

    /** zklock's own uuids are marked (version 7, or 8 when cached); Curator's version-4 ones are not. */
    @Test
    void zklocksUuidsAreMarked() {
        for (int i = 0; i < 100; i++) {
            assertTrue(LockNode.parse("_c_" + LockNode.newProtectedId(false) + "-lock-" + seq(i)).orElseThrow().zklockMarked());
            assertTrue(LockNode.parse("_c_" + LockNode.newProtectedId(true) + "-lock-" + seq(i)).orElseThrow().zklockMarked());
            assertFalse(LockNode.parse("_c_" + UUID.randomUUID() + "-lock-" + seq(i)).orElseThrow().zklockMarked());
        }
    }

    /** A read node named after a write node's number ties it; two numbered nodes never do. */
    @Test
    void tiesAreSameNumberDifferentNode() {
        LockNode write = LockNode.parse("_c_" + CURATORS + "-__WRIT__" + seq(4)).orElseThrow();
        LockNode read = LockNode.parse("_c_" + UUID.randomUUID() + "-__READ__" + seq(4)).orElseThrow();
        assertTrue(read.ties(write));
        assertFalse(write.ties(write));
    }

    /** Curator's sort key: the text after the last __READ__, then after the last __WRIT__. */
    private static String curatorsKey(String name) {
        for (String mark : List.of("__READ__", "__WRIT__")) {
            int at = name.lastIndexOf(mark);
            if (at >= 0) {
                name = name.substring(at + mark.length());
            }
        }
        return name;
    }

    /** On names of Curator's layout (anchored ones included), queue order is Curator's order. */
    @Test
    void queueOrderIsCuratorsOrder() {
        Random random = new Random(29);
        for (int round = 0; round < 200; round++) {
            List<String> names = new ArrayList<>();
            List<Long> writes = new ArrayList<>();
            for (int n = 0; n < 12; n++) {
                long number = round * 20L + n;
                int pick = random.nextInt(3);
                if (pick == 0) {
                    names.add("_c_" + UUID.randomUUID() + "-__WRIT__" + seq(number));
                    writes.add(number);
                } else if (pick == 1 || writes.isEmpty()) {
                    names.add("_c_" + UUID.randomUUID() + "-__READ__" + seq(number));
                } else {
                    long anchor = writes.get(random.nextInt(writes.size()));
                    names.add(LockNode.protectedName(LockNode.newProtectedId(false), LockNode.curatorAnchoredPrefix("read", anchor))
                            + seq(number));
                }
            }
            Collections.shuffle(names, random);
            List<String> curators = new ArrayList<>(names);
            curators.sort(Comparator.comparing(LockNodeCuratorLayoutTest::curatorsKey));
            List<String> ours = LockNode.sorted(names).stream().map(LockNode::name).toList();
            assertEquals(curators, ours);
        }
    }
}
