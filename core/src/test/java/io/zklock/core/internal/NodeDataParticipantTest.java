package io.zklock.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

import io.zklock.core.OwnerInfo;
import io.zklock.core.RevocationRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NodeDataParticipantTest {

    private static final OwnerInfo OWNER = new OwnerInfo("host-1", 42, "main", Instant.parse("2024-05-06T07:08:09Z"));

    /** A participant's line follows the owner's: both read back, and the data is still owner data. */
    @Test
    void participantRoundTripsBesideTheOwner() {
        byte[] data = NodeData.ofParticipant(OWNER, null, "node-a (zone eu-1) ü");

        assertEquals(Optional.of("node-a (zone eu-1) ü"), NodeData.participantId(data));
        assertEquals(OWNER, NodeData.owner(data));
        assertTrue(NodeData.isOwnerData(data));
    }

    /** No participant: the data is exactly the owner's, and reads no participant. */
    @Test
    void noParticipantIsTheOwnersDataAlone() {
        assertEquals(new String(NodeData.of(OWNER), StandardCharsets.UTF_8),
                new String(NodeData.ofParticipant(OWNER, null, null), StandardCharsets.UTF_8));
        assertEquals(Optional.empty(), NodeData.participantId(NodeData.of(OWNER)));
        assertEquals(Optional.empty(), NodeData.participantId(null));
    }

    /** Lines written later (a revocation request, a grant) keep the participant. */
    @Test
    void laterLinesKeepTheParticipant() {
        byte[] data = NodeData.withGrant(NodeData.withRevocationRequest(NodeData.ofParticipant(OWNER, null, "p1"),
                new RevocationRequest("ops", Instant.EPOCH)));

        assertEquals(Optional.of("p1"), NodeData.participantId(data));
    }

    /** Blank, multi-line and over-long ids are refused, naming the value. */
    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "a\nb", "a\rb"})
    void badIdsAreRefused(String id) {
        assertThrows(IllegalArgumentException.class, () -> NodeData.checkParticipantId(id));
        assertThrows(IllegalArgumentException.class, () -> NodeData.checkParticipantId(null));
        assertThrows(IllegalArgumentException.class, () -> NodeData.checkParticipantId("x".repeat(NodeData.MAX_VALUE + 1)));
        assertEquals("x".repeat(NodeData.MAX_VALUE), NodeData.checkParticipantId("x".repeat(NodeData.MAX_VALUE)));
    }
}
