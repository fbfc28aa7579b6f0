package io.zklock.core.spi.queue;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Anchored node names ({@code _c_<uuid>-<kind>.<anchor>-<sequence>}): naming, parsing and queue order. */
class LockNodeAnchorTest {

    private static final String UUID_TEXT = "0f8fad5b-d9cb-469f-a165-70867728950e";

    static LockNode anchored(String protectedId, String kind, long anchor, long sequence) {
        return LockNode.parse(LockNodeTest.curatorName(protectedId, LockNode.anchoredPrefix(kind, anchor), sequence))
                .orElseThrow();
    }

    /** The prefix writes the anchor as ZooKeeper writes sequence numbers, after a dot. */
    @Test
    void anchoredPrefixWritesTheAnchorLikeASequenceNumber() {
        assertEquals("read.0000000042", LockNode.anchoredPrefix("read", 42));
        assertEquals("read.0000000000", LockNode.anchoredPrefix("read", 0));
        assertEquals("read.2147483647", LockNode.anchoredPrefix("read", Integer.MAX_VALUE));
        assertEquals("read.-000000005", LockNode.anchoredPrefix("read", -5));
    }

    /** anchoredPrefix rejects a bad kind with an IllegalArgumentException naming it. */
    @ParameterizedTest
    @ValueSource(strings = {"Read", "read.1", "", "read-x"})
    void anchoredPrefixRejectsBadKinds(String kind) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockNode.anchoredPrefix(kind, 1));

        assertTrue(e.getMessage().contains("'" + kind + "'"), e.getMessage());
    }

    /** A name made by a protected create of an anchored prefix parses into its kind, anchor, sequence and position. */
    @Test
    void parsesAnchoredName() {
        String name = "_c_" + UUID_TEXT + "-read.0000000007-0000000012";
        assertEquals(name, LockNodeTest.curatorName(UUID_TEXT, LockNode.anchoredPrefix("read", 7), 12));

        LockNode node = LockNode.parse(name).orElseThrow();

        assertAll(
                () -> assertEquals(name, node.name()),
                () -> assertEquals(UUID_TEXT, node.protectedId()),
                () -> assertEquals("read", node.kind()),
                () -> assertTrue(node.is("read")),
                () -> assertEquals(12L, node.sequence()),
                () -> assertEquals(OptionalLong.of(7), node.anchor()),
                () -> assertEquals(7L, node.position()));
    }

    /** A node without an anchor has no anchor, its position is its sequence, and the four-part constructor makes it. */
    @Test
    void unanchoredNodeIsPositionedBySequence() {
        LockNode node = LockNodeTest.node(UUID_TEXT, "write", 9);

        assertEquals(OptionalLong.empty(), node.anchor());
        assertEquals(9L, node.position());
        assertEquals(new LockNode(node.name(), UUID_TEXT, "write", 9), node);
    }

    /** A null anchor is refused: absence is OptionalLong.empty(). */
    @Test
    void nullAnchorIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LockNode("n", UUID_TEXT, "read", 1, null));
    }

    /** Malformed anchors make the whole name foreign: ignored, never thrown on. */
    @ParameterizedTest
    @ValueSource(strings = {
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.0000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.7-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.00000000007-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read..0000000007-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.0000000007.0000000008-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.000000000x-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.-00000007-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-.0000000007-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-READ.0000000007-0000000012",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.0000000007-0000000012.0000000001",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read.0000000007",
    })
    void rejectsMalformedAnchors(String name) {
        assertEquals(Optional.empty(), LockNode.parse(name));
    }

    /** A wrapped (negative) anchor parses, as ZooKeeper's own wrapped sequence numbers do. */
    @Test
    void parsesNegativeAnchor() {
        LockNode node = anchored(UUID_TEXT, "read", -5, 3);

        assertEquals(OptionalLong.of(-5), node.anchor());
    }

    /**
     * QUEUE_ORDER puts an anchored node right after the node it is anchored at, after earlier
     * nodes anchored there, and before every node created after its anchor; unanchored nodes
     * keep sequence order.
     */
    @Test
    void queueOrderPlacesAnchoredNodesAtTheirAnchor() {
        LockNode w = LockNodeTest.node(new UUID(1, 1).toString(), "write", 10);
        LockNode x = LockNodeTest.node(new UUID(1, 2).toString(), "write", 11);
        LockNode y = LockNodeTest.node(new UUID(1, 3).toString(), "read", 13);
        LockNode r1 = anchored(new UUID(1, 4).toString(), "read", 10, 12);
        LockNode r2 = anchored(new UUID(1, 5).toString(), "read", 10, 14);
        LockNode v = LockNodeTest.node(new UUID(1, 6).toString(), "write", 9);
        List<LockNode> nodes = new ArrayList<>(List.of(r2, y, x, r1, w, v));

        nodes.sort(LockNode.QUEUE_ORDER);

        assertEquals(List.of(v, w, r1, r2, x, y), nodes);
        assertTrue(r1.compareTo(x) < 0 && x.compareTo(r1) > 0);
    }

    /** Every anchored name made from a random uuid, kind, anchor and sequence parses back into those parts. */
    @Property(tries = 300)
    void parseInvertsAnchoredNaming(@ForAll("kinds") String kind,
                                    @ForAll @IntRange(min = 0) int anchor,
                                    @ForAll @IntRange(min = 0) int sequence) {
        String id = UUID.randomUUID().toString();
        String name = LockNodeTest.curatorName(id, LockNode.anchoredPrefix(kind, anchor), sequence);

        assertEquals(new LockNode(name, id, kind, sequence, OptionalLong.of(anchor)), LockNode.parse(name).orElseThrow());
    }

    /** parse never throws on anchored names with one character mutated, and gives back the name it parsed. */
    @Property(tries = 1000)
    void parseNeverThrowsNearAnchoredNames(@ForAll("nearlyAnchored") String name) {
        LockNode.parse(name).ifPresent(node -> assertEquals(name, node.name()));
    }

    @Provide
    Arbitrary<String> kinds() {
        return Arbitraries.of("read", "write", "lock", "permit", "m2");
    }

    @Provide
    Arbitrary<String> nearlyAnchored() {
        String valid = "_c_" + UUID_TEXT + "-read.0000000007-0000000012";
        return Arbitraries.integers().between(0, valid.length() - 1).flatMap(at ->
                Arbitraries.chars().map(c -> {
                    StringBuilder sb = new StringBuilder(valid);
                    sb.setCharAt(at, c);
                    return sb.toString();
                }));
    }
}
