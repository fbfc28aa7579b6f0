package io.zklock.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

import io.zklock.core.OwnerInfo;
import io.zklock.core.RevocationRequest;
import org.junit.jupiter.api.Test;

/** How a revocation request is written into, and read from, a lock node's data. */
class NodeDataRevocationTest {
    private static final RevocationRequest REQUEST = new RevocationRequest("ops@console[pid 7]", Instant.parse("2026-11-25T10:00:00.123Z"));

    /** A request appended to a node's data reads back as itself, and the owner lines read back unchanged. */
    @Test
    void appendedRequestReadsBackAndKeepsTheOwner() {
        OwnerInfo owner = new OwnerInfo("host-a", 12, "worker-1", Instant.parse("2026-11-25T09:00:00Z"));
        byte[] data = NodeData.withRevocationRequest(NodeData.of(owner), REQUEST);
        assertEquals(Optional.of(REQUEST), NodeData.revocationRequest(data));
        assertEquals(owner, NodeData.owner(data));
    }

    /** Data without a request, null data and foreign bytes carry no request. */
    @Test
    void dataWithoutARequestCarriesNone() {
        assertEquals(Optional.empty(), NodeData.revocationRequest(null));
        assertEquals(Optional.empty(), NodeData.revocationRequest(new byte[0]));
        assertEquals(Optional.empty(), NodeData.revocationRequest(NodeData.of(new OwnerInfo("h", 1, "t", Instant.EPOCH))));
        assertEquals(Optional.empty(), NodeData.revocationRequest(new byte[] {(byte) 0xff, 0, 10, 1}));
    }

    /** Data that does not end with a newline still gets the request on lines of its own. */
    @Test
    void dataWithoutAFinalNewlineGetsTheRequestOnItsOwnLines() {
        byte[] data = NodeData.withRevocationRequest("host=h".getBytes(StandardCharsets.UTF_8), REQUEST);
        assertEquals(Optional.of(REQUEST), NodeData.revocationRequest(data));
        assertEquals("h", NodeData.owner(data).host());
    }

    /**
     * The request format is strict: a time that is not an instant, or a line missing, is no
     * request (garbage must not call a holder's handler as a request dated 1970); who asked
     * cannot break the line format.
     */
    @Test
    void anUnreadableTimeOrAMissingLineIsNoRequestAndNamesStayOnOneLine() {
        byte[] data = "revoke-requested=yesterday\nrevoke-by=me\n".getBytes(StandardCharsets.UTF_8);
        assertEquals(Optional.empty(), NodeData.revocationRequest(data));
        assertEquals(Optional.empty(), NodeData.revocationRequest("revoke-requested=1970-01-01T00:00:00Z\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.empty(), NodeData.revocationRequest("revoke-by=me\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.of(new RevocationRequest("me", Instant.EPOCH)),
                NodeData.revocationRequest("revoke-requested=1970-01-01T00:00:00Z\nrevoke-by=me\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("a b", new RevocationRequest("a\nb", Instant.EPOCH).requestedBy());
        assertThrows(IllegalArgumentException.class, () -> new RevocationRequest(null, Instant.EPOCH));
    }
}
