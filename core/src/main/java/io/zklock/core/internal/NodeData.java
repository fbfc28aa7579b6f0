package io.zklock.core.internal;

import java.nio.charset.StandardCharsets;

import io.zklock.core.RevocationRequest;
import org.apache.zookeeper.data.Stat;

/**
 * The lines a lock node's data carries besides its owner's ({@link io.zklock.core.OwnerInfo}):
 * {@code multi=<n>} on the nodes of a multi-lock's transaction, {@code granted=yes} once a
 * semaphore node announced its grant, and a {@link RevocationRequest}'s two lines. Every writer
 * keeps the lines it found: a node's data only grows.
 */
public final class NodeData {
    private static final String GRANTED = "granted=yes";
    private static final String MULTI = "multi=";

    private NodeData() {
    }

    /** {@code data} with the grant announcement appended. */
    public static byte[] withGrant(byte[] data) {
        return withLine(data, GRANTED);
    }

    /** The data of a node made by a multi-lock over {@code locks} locks. */
    public static byte[] ofMulti(byte[] ownerData, int locks) {
        return withLine(ownerData, MULTI + locks);
    }

    /** Whether the node was made by a multi-lock's transaction. */
    public static boolean isMulti(byte[] data) {
        return hasLine(data, MULTI);
    }

    /**
     * Whether a node's data says it announced its grant. The data version says that something
     * was written; only a revocation request alone is not an announcement (nodes of an older
     * release announced with a bare rewrite, so a written node without a request counts).
     */
    public static boolean announcedGrant(Stat stat, byte[] data) {
        return stat != null && stat.getVersion() > 0
                && (hasLine(data, GRANTED) || RevocationRequest.parse(data).isEmpty());
    }

    public static boolean hasGrantLine(byte[] data) {
        return hasLine(data, GRANTED);
    }

    private static byte[] withLine(byte[] data, String line) {
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        if (!text.isEmpty() && !text.endsWith("\n")) {
            text += "\n";
        }
        return (text + line + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static boolean hasLine(byte[] data, String prefix) {
        if (data == null) {
            return false;
        }
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
