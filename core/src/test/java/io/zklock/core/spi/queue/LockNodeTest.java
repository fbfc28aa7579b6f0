package io.zklock.core.spi.queue;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.curator.framework.imps.ProtectedUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

public class LockNodeTest {

    private static final String UUID_TEXT = "0f8fad5b-d9cb-469f-a165-70867728950e";

    /** The name Curator's protected ephemeral-sequential create gives: "_c_" + uuid + "-" + kind + "-" + ZooKeeper's "%010d". */
    public static String curatorName(String protectedId, String kind, long sequence) {
        return ProtectedUtils.toProtectedZNode(kind + "-", protectedId)
                + String.format(Locale.ENGLISH, "%010d", sequence);
    }

    /** A name built the way Curator and ZooKeeper build it parses into its protected id, kind and sequence. */
    @Test
    void parsesCuratorProtectedName() {
        String name = "_c_" + UUID_TEXT + "-lock-0000000007";
        assertEquals(name, curatorName(UUID_TEXT, "lock", 7), "test fixture disagrees with Curator's naming");

        LockNode node = LockNode.parse(name).orElseThrow();

        assertAll(
                () -> assertEquals(name, node.name()),
                () -> assertEquals(UUID_TEXT, node.protectedId()),
                () -> assertEquals("lock", node.kind()),
                () -> assertEquals(7L, node.sequence()),
                () -> assertEquals(ProtectedUtils.extractProtectedId(name), Optional.of(node.protectedId())));
    }

    /** Every lower-case kind a recipe may use parses, and is() tells kinds apart. */
    @ParameterizedTest
    @ValueSource(strings = {"lock", "read", "write", "permit", "m2"})
    void parsesEachKind(String kind) {
        LockNode node = LockNode.parse(curatorName(UUID_TEXT, kind, 42)).orElseThrow();

        assertEquals(kind, node.kind());
        assertTrue(node.is(kind));
        assertTrue(!node.is(kind + "x"), "is() must compare the whole kind");
    }

    /** Boundary sequences parse: 0, the largest ten digits, Integer.MAX_VALUE and the 11-character "-2147483648" ZooKeeper writes on overflow. */
    @ParameterizedTest
    @ValueSource(longs = {0L, 1L, 9_999_999_999L, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void parsesBoundarySequences(long sequence) {
        LockNode node = LockNode.parse(curatorName(UUID_TEXT, "lock", sequence)).orElseThrow();

        assertEquals(sequence, node.sequence());
    }

    /**
     * ZooKeeper names sequential nodes with "%010d" of an int counter, so after the counter wraps
     * it writes "-000000005" (sign plus nine digits); such our own nodes must still parse.
     */
    @ParameterizedTest
    @ValueSource(longs = {-1L, -5L, -999_999_999L})
    void parsesShortNegativeSequencesAfterCounterWrap(long sequence) {
        String name = curatorName(UUID_TEXT, "lock", sequence);

        assertEquals(Optional.of(sequence), LockNode.parse(name).map(LockNode::sequence), name);
    }

    /** Foreign and malformed names give an empty optional and never throw. */
    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {
            // no protected prefix
            "lock-0000000007",
            "0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000007",
            "c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000007",
            " _c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000007",
            "zk-keeper",
            // bad uuid
            "_c_-lock-0000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950-lock-0000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e0-lock-0000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950g-lock-0000000007",
            "_c_0f8fad5bd9cb469fa16570867728950e-lock-0000000007",
            "_c_not-a-uuid-lock-0000000007",
            // missing or short sequence
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-7",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-000000000x",
            // bad kind
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-LOCK-0000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-Lock-0000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e--0000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-0lock-0000000007",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-read-write-0000000007",
            // extra suffix
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000007x",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-00000000070",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000007 ",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000007\n",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000007/child",
            "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000007-0000000008",
    })
    void rejectsForeignAndMalformedNames(String name) {
        assertEquals(Optional.empty(), LockNode.parse(name));
    }

    /** A protected id must be a uuid (8-4-4-4-12), not any 36 hex digits and dashes. */
    @ParameterizedTest
    @ValueSource(strings = {
            "_c_0f8fad5bd-9cb-469f-a165-70867728950e-lock-0000000007",
            "_c_-------------------------------------lock-0000000007",
    })
    void rejectsMisshapenUuids(String name) {
        assertEquals(Optional.empty(), LockNode.parse(name));
    }

    /** parse never throws and, when it succeeds, gives back exactly the name it was given, whatever the input. */
    @Property(tries = 2000)
    void parseNeverThrowsOnAnyName(@ForAll("nearlyNames") String name) {
        LockNode.parse(name).ifPresent(node -> assertEquals(name, node.name()));
    }

    /** The node-name grammar as a regular expression: the oracle the hand-written parser must agree with. */
    private static final java.util.regex.Pattern GRAMMAR = java.util.regex.Pattern.compile(
            "_c_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
                    + "-([a-z][a-z0-9]*)(?:\\.(-[0-9]{9,10}|[0-9]{10}))?-(-[0-9]{9,10}|[0-9]{10})");

    /** parse accepts exactly the names the grammar matches, and reads the same fields out of them. */
    @Property(tries = 3000)
    void parseAgreesWithTheGrammar(@ForAll("grammarEdges") String name) {
        java.util.regex.Matcher m = GRAMMAR.matcher(name);
        Optional<LockNode> expected = !m.matches() ? Optional.empty()
                : Optional.of(new LockNode(name, m.group(1), m.group(2), Long.parseLong(m.group(4)),
                        m.group(3) == null ? java.util.OptionalLong.empty()
                                : java.util.OptionalLong.of(Long.parseLong(m.group(3)))));

        assertEquals(expected, LockNode.parse(name));
    }

    /** Names assembled from valid and invalid kinds, anchors and numbers, then mutated a little. */
    @Provide
    Arbitrary<String> grammarEdges() {
        Arbitrary<String> kind = Arbitraries.of("lock", "read", "a", "r2d2", "Lock", "", "lo-ck", "9x", "x.y");
        Arbitrary<String> number = Arbitraries.of("0000000001", "-123456789", "-1234567890", "123456789",
                "00000000001", "-12345678", "2147483647", "-2147483648", "", "-", "000000000a", "--123456789");
        Arbitrary<String> anchor = Arbitraries.oneOf(Arbitraries.just(""), number.map(n -> "." + n));
        Arbitrary<String> built = net.jqwik.api.Combinators.combine(kind, anchor, number)
                .as((k, a, n) -> "_c_" + UUID_TEXT + "-" + k + a + "-" + n);
        return built.flatMap(b -> Arbitraries.integers().between(-1, b.length() - 1).flatMap(at ->
                Arbitraries.of('0', '9', 'a', 'f', 'g', 'A', '-', '.', '_').map(c -> {
                    if (at < 0) {
                        return b;
                    }
                    StringBuilder sb = new StringBuilder(b);
                    sb.setCharAt(at, c);
                    return sb.toString();
                })));
    }

    /** Every name made from a random uuid, a valid kind and a non-negative int sequence parses back into those parts. */
    @Property(tries = 500)
    void parseInvertsCuratorNaming(@ForAll("kinds") String kind,
                                   @ForAll @net.jqwik.api.constraints.IntRange(min = 0) int sequence) {
        String id = UUID.randomUUID().toString();

        LockNode node = LockNode.parse(curatorName(id, kind, sequence)).orElseThrow();

        assertEquals(new LockNode(curatorName(id, kind, sequence), id, kind, sequence), node);
    }

    @Provide
    Arbitrary<String> kinds() {
        return Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(1)
                .flatMap(first -> Arbitraries.strings().withCharRange('a', 'z').withCharRange('0', '9')
                        .ofMaxLength(8).map(rest -> first + rest));
    }

    /** Arbitrary strings, and valid names with one character mutated, to stress the parser near the grammar. */
    @Provide
    Arbitrary<String> nearlyNames() {
        Arbitrary<String> mutated = Arbitraries.integers().between(0, 54).flatMap(at ->
                Arbitraries.chars().map(c -> {
                    StringBuilder sb = new StringBuilder("_c_" + UUID_TEXT + "-lock-0000000007");
                    sb.setCharAt(at, c);
                    return sb.toString();
                }));
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(80), mutated);
    }

    /** QUEUE_ORDER sorts by sequence, whatever the uuids, kinds and the input order. */
    @Test
    void queueOrderSortsBySequence() {
        LockNode third = node("ffffffff-ffff-ffff-ffff-ffffffffffff", "read", 30);
        LockNode first = node("aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa", "write", 2);
        LockNode second = node("00000000-0000-0000-0000-000000000000", "lock", 10);
        LockNode fourth = node("11111111-1111-1111-1111-111111111111", "lock", 1_000_000_000);
        List<LockNode> nodes = new ArrayList<>(List.of(fourth, third, first, second));

        nodes.sort(LockNode.QUEUE_ORDER);

        assertEquals(List.of(first, second, third, fourth), nodes);
    }

    /** Two nodes with the same sequence are ordered by name, and compareTo agrees with QUEUE_ORDER. */
    @Test
    void queueOrderBreaksSequenceTiesByName() {
        LockNode a = node("00000000-0000-0000-0000-000000000001", "lock", 5);
        LockNode b = node("00000000-0000-0000-0000-000000000002", "lock", 5);

        assertTrue(LockNode.QUEUE_ORDER.compare(a, b) < 0);
        assertTrue(LockNode.QUEUE_ORDER.compare(b, a) > 0);
        assertTrue(a.compareTo(b) < 0);
        assertEquals(0, a.compareTo(node("00000000-0000-0000-0000-000000000001", "lock", 5)));
    }

    /** checkKind returns a valid kind as given. */
    @ParameterizedTest
    @ValueSource(strings = {"lock", "read", "write", "a", "sem2"})
    void checkKindAcceptsLowerCaseWords(String kind) {
        assertSame(kind, LockNode.checkKind(kind));
    }

    /** checkKind rejects anything but a lower-case word with an IllegalArgumentException naming the value. */
    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"Lock", "LOCK", "read-write", "read_lock", "1lock", "lo ck", "lock\n", "_c_"})
    void checkKindRejectsBadKinds(String kind) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockNode.checkKind(kind));

        assertTrue(e.getMessage().contains("'" + kind + "'"), e.getMessage());
    }

    static LockNode node(String protectedId, String kind, long sequence) {
        return LockNode.parse(curatorName(protectedId, kind, sequence)).orElseThrow();
    }

    /** After ZooKeeper's counter wraps past 2^31 - 1, a new node still sorts after the old ones. */
    @Test
    void queueOrderSurvivesTheCounterWrap() {
        LockNode beforeWrap = LockNode.parse("_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-2147483647").orElseThrow();
        LockNode afterWrap = LockNode.parse("_c_1f8fad5b-d9cb-469f-a165-70867728950e-lock--2147483648").orElseThrow();
        LockNode later = LockNode.parse("_c_2f8fad5b-d9cb-469f-a165-70867728950e-lock--2147483647").orElseThrow();
        java.util.List<LockNode> sorted = new java.util.ArrayList<>(java.util.List.of(later, afterWrap, beforeWrap));
        sorted.sort(LockNode.QUEUE_ORDER);
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(beforeWrap, afterWrap, later), sorted);
    }
}
