package io.zklock.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;

import io.zklock.core.OwnerInfo;
import io.zklock.core.RevocationRequest;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.zookeeper.data.Stat;

/**
 * Node data written by other clients is untrusted: the codec reads any bytes without throwing,
 * finds a revocation request only in both well-formed lines, and keeps what it writes under
 * ZooKeeper's packet limit whatever it was given.
 */
class NodeDataHostileBytesTest {

    /** Arbitrary bytes: random, invalid UTF-8, and lines that almost look like the codec's. */
    @Provide
    Arbitrary<byte[]> hostile() {
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(2048);
        Arbitrary<byte[]> lines = Arbitraries.of("host=", "pid=x", "pid=12", "thread=t", "requested=1970", "requested=2024-01-01T00:00:00Z",
                        "granted=yes", "granted=no", "multi=", "multi=9999999999", "revoke-requested=1970-01-01",
                        "revoke-requested=0", "revoke-by=", "=", "\r", "\u0000", "\uFFFF", "revoke-requested=", "revoke-by=x")
                .list().ofMaxSize(12).map(l -> String.join("\n", l).getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> invalidUtf8 = Arbitraries.of(new byte[] {(byte) 0xC3}, new byte[] {(byte) 0xFF, (byte) 0xFE},
                new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, new byte[] {'a', 'b', 'c'});
        return Arbitraries.oneOf(random, lines, invalidUtf8);
    }

    /** Every reader takes any bytes without throwing, and a request is found only with a well-formed instant and both lines. */
    @Property(tries = 500)
    void everyReaderTakesAnyBytesAndARequestNeedsBothWellFormedLines(@ForAll("hostile") byte[] data) {
        OwnerInfo owner = NodeData.owner(data);
        assertTrue(owner.host().length() <= NodeData.MAX_VALUE && owner.thread().length() <= NodeData.MAX_VALUE);
        NodeData.isMulti(data);
        NodeData.isOwnerData(data);
        Stat stat = new Stat();
        stat.setVersion(1);
        assertEquals(NodeData.hasGrantLine(data), NodeData.announcedGrant(stat, data));
        Optional<RevocationRequest> request = NodeData.revocationRequest(data);
        String text = new String(data, StandardCharsets.UTF_8);
        request.ifPresent(r -> {
            assertTrue(text.contains("revoke-requested=" + r.requestedAt()) || text.contains("revoke-requested="), text);
            assertTrue(text.contains("revoke-by="), text);
        });
        byte[] asked = NodeData.withRevocationRequest(data, new RevocationRequest("op", Instant.parse("2030-01-01T00:00:00Z")));
        assertEquals(Optional.of(new RevocationRequest("op", Instant.parse("2030-01-01T00:00:00Z"))), NodeData.revocationRequest(asked));
        assertTrue(NodeData.hasGrantLine(NodeData.withGrant(data)));
    }

    /** Data grown to ZooKeeper's 1 MB by another client: what the codec writes stays under its limit and keeps the codec's own lines. */
    @Property(tries = 5)
    void whatTheCodecWritesIntoHugeDataStaysUnderTheLimit(@ForAll("hostile") byte[] tail) {
        byte[] owner = NodeData.of(new OwnerInfo("h", 7, "t", Instant.parse("2030-01-01T00:00:00Z")));
        byte[] huge = Arrays.copyOf(owner, 1_000_000);
        Arrays.fill(huge, owner.length, huge.length, (byte) 'x');
        System.arraycopy(tail, 0, huge, huge.length - tail.length, tail.length);
        byte[] granted = NodeData.withGrant(huge);
        assertTrue(granted.length <= NodeData.MAX_WRITTEN, granted.length + " bytes");
        assertTrue(NodeData.hasGrantLine(granted));
        assertEquals(NodeData.owner(huge), NodeData.owner(granted), "the owner reads the same after the compaction");
        byte[] asked = NodeData.withRevocationRequest(huge, new RevocationRequest("op", Instant.EPOCH));
        assertTrue(asked.length <= NodeData.MAX_WRITTEN);
        assertTrue(NodeData.revocationRequest(asked).isPresent());
        assertFalse(NodeData.isOwnerData("host=h\npid=x\nthread=t\nrequested=2030-01-01T00:00:00Z\n".getBytes(StandardCharsets.UTF_8)));
        assertTrue(NodeData.isOwnerData(owner));
    }

    /** A lock-delay line survives the compaction of grown data: status still shows the node as waiting out its delay. */
    @Property(tries = 3)
    void aLockDelayLineSurvivesTheCompactionOfHugeData(@ForAll("hostile") byte[] tail) {
        Instant until = Instant.parse("2030-01-01T00:00:05Z");
        byte[] delayed = NodeData.withLockDelay(NodeData.of(new OwnerInfo("h", 7, "t", Instant.parse("2030-01-01T00:00:00Z"))), until);
        byte[] huge = Arrays.copyOf(delayed, 1_000_000);
        Arrays.fill(huge, delayed.length, huge.length, (byte) 'x');
        System.arraycopy(tail, 0, huge, huge.length - tail.length, tail.length);
        byte[] asked = NodeData.withRevocationRequest(huge, new RevocationRequest("op", Instant.EPOCH));
        assertTrue(asked.length <= NodeData.MAX_WRITTEN);
        assertEquals(Optional.of(until), NodeData.lockDelayUntil(asked));
    }
}
