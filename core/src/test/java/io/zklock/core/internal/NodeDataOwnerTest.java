package io.zklock.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.zklock.core.OwnerInfo;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NodeDataOwnerTest {

    private static final Instant AT = Instant.parse("2024-05-06T07:08:09.123456789Z");
    private static final OwnerInfo DEFAULTS = new OwnerInfo("?", -1, "?", Instant.EPOCH);

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** parse(toBytes()) gives back every field, including nanoseconds of the request time. */
    @Test
    void roundTrips() {
        OwnerInfo info = new OwnerInfo("host-1.example.org", 4242, "pool-1-thread-3", AT);

        assertEquals(info, NodeData.owner(NodeData.of(info)));
    }

    /**
     * A trace id rides on its own line: read back by traceId, invisible to the owner's parse and
     * to the owner check as older readers make them, kept when a node's data is cut back to this
     * codec's lines; a value that is no trace id is neither written nor read.
     */
    @Test
    void traceIdLineRoundTripsWithoutChangingTheOwner() {
        OwnerInfo info = new OwnerInfo("host-1.example.org", 4242, "pool-1-thread-3", AT);
        byte[] traced = NodeData.of(info, "4bf92f3577b34da6a3ce929d0e0e4736");

        assertEquals(info, NodeData.owner(traced));
        assertEquals(java.util.Optional.of("4bf92f3577b34da6a3ce929d0e0e4736"), NodeData.traceId(traced));
        assertEquals(true, NodeData.isOwnerData(traced));
        assertEquals(java.util.Optional.empty(), NodeData.traceId(NodeData.of(info)));
        assertEquals(new String(NodeData.of(info), StandardCharsets.UTF_8), new String(NodeData.of(info, null), StandardCharsets.UTF_8));
        assertEquals(java.util.Optional.empty(), NodeData.traceId(NodeData.of(info, "not a trace\nhost=evil")));
        assertEquals(info, NodeData.owner(NodeData.of(info, "not a trace\nhost=evil")));
        assertEquals(java.util.Optional.empty(), NodeData.traceId(utf8("trace=" + "a".repeat(65) + "\n")));
        byte[] huge = new byte[NodeData.MAX_WRITTEN];
        java.util.Arrays.fill(huge, (byte) 'x');
        byte[] grown = NodeData.withGrant(concat(traced, huge));
        assertEquals(java.util.Optional.of("4bf92f3577b34da6a3ce929d0e0e4736"), NodeData.traceId(grown));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    /** The current process and thread round-trip too. */
    @Test
    void currentRoundTrips() {
        OwnerInfo info = OwnerInfo.current();

        assertEquals(ProcessHandle.current().pid(), info.pid());
        assertEquals(info, NodeData.owner(NodeData.of(info)));
    }

    /** Values containing '=', non-ASCII characters and empty values survive the round trip. */
    @Test
    void roundTripsAwkwardValues() {
        OwnerInfo info = new OwnerInfo("", 0, "worker=7 ü 線程 🔒", Instant.EPOCH.minusSeconds(1));

        assertEquals(info, NodeData.owner(NodeData.of(info)));
    }

    /** Null and empty data give the defaults without throwing. */
    @Test
    void parsesNullAndEmptyToDefaults() {
        assertEquals(DEFAULTS, NodeData.owner(null));
        assertEquals(DEFAULTS, NodeData.owner(new byte[0]));
    }

    /** Garbage data (binary, invalid UTF-8, lines without a key) gives the defaults without throwing. */
    @ParameterizedTest
    @ValueSource(strings = {"garbage", "=x\n=\n", "\n\n\n", "pidhost thread", "HOST=h\nPID=1"})
    void parsesGarbageToDefaults(String text) {
        assertEquals(DEFAULTS, NodeData.owner(utf8(text)));
    }

    /** Binary data that is not UTF-8 gives the defaults without throwing. */
    @Test
    void parsesBinaryToDefaults() {
        byte[] binary = {0, (byte) 0xff, (byte) 0xfe, (byte) 0xc3, 0x28, (byte) 0x80, 7, '\n', (byte) 0xf0};

        assertEquals(DEFAULTS, NodeData.owner(binary));
    }

    /** Missing fields default one by one while present ones are kept. */
    @Test
    void parsesPartialDataKeepingWhatIsThere() {
        assertEquals(new OwnerInfo("h", -1, "t", Instant.EPOCH), NodeData.owner(utf8("host=h\nthread=t\n")));
        assertEquals(new OwnerInfo("?", 12, "?", AT), NodeData.owner(utf8("pid=12\nrequested=" + AT)));
        assertEquals(new OwnerInfo("h", -1, "?", Instant.EPOCH), NodeData.owner(utf8("host=h\npid=")));
    }

    /** Unreadable pid and time become -1 and EPOCH; the readable fields around them are kept. */
    @Test
    void parsesUnreadableNumbersToDefaults() {
        OwnerInfo parsed = NodeData.owner(utf8("host=h\npid=12x\nthread=t\nrequested=yesterday\n"));

        assertEquals(new OwnerInfo("h", -1, "t", Instant.EPOCH), parsed);
    }

    /** A thread name with newlines is written on one line, so it cannot inject or spoof other fields. */
    @Test
    void keepsThreadNameWithNewlinesOnOneLine() {
        OwnerInfo info = new OwnerInfo("h", 1, "evil\nhost=spoofed\r\npid=9", AT);

        String text = new String(NodeData.of(info), StandardCharsets.UTF_8);
        OwnerInfo parsed = NodeData.owner(NodeData.of(info));

        assertEquals(4, text.split("\n").length, text);
        assertEquals(new OwnerInfo("h", 1, "evil host=spoofed  pid=9", AT), parsed);
    }

    /** Any thread and host name round-trips with each line break turned into a space, other fields untouched. */
    @Property(tries = 500)
    void roundTripsAnyNamesOnOneLine(@ForAll("names") String host, @ForAll("names") String thread,
                                     @ForAll long pid) {
        OwnerInfo parsed = NodeData.owner(NodeData.of(new OwnerInfo(host, pid, thread, AT)));

        assertEquals(new OwnerInfo(host.replaceAll("[\r\n]", " "), pid, thread.replaceAll("[\r\n]", " "), AT), parsed);
        assertFalse(parsed.thread().contains("\n"));
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withCharRange('\u0000', '\ud7ff').withChars('\n', '\r', '=')
                .ofMaxLength(40);
    }
}
