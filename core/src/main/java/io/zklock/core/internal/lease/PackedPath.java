package io.zklock.core.internal.lease;

import java.util.UUID;

import io.zklock.core.spi.queue.LockNode;

/**
 * A lease's node path packed into numbers: a held lease is kept as long as it is held, often by
 * the thousand, and its path as a {@code String} was the largest thing it kept (about 120
 * bytes). The path of a node its context's request created is the context's directory, the
 * protected name's uuid, the context's name prefix and a ten-digit sequence number
 * ({@link LockNode}): the lease keeps the uuid's two halves and the number (20 bytes) and
 * writes the path again when asked. A path that is not written so (another layout, a negative
 * sequence number, another directory's prefix) is kept as it is: {@link #pack} says which.
 */
final class PackedPath {
    private static final String SEPARATOR = "/";
    private static final int UUID_LENGTH = 36;
    private static final int SEQUENCE_DIGITS = 10;

    /** The uuid's halves and the sequence number of a packed path. */
    final long high;
    final long low;
    final int sequence;

    private PackedPath(long high, long low, int sequence) {
        this.high = high;
        this.low = low;
        this.sequence = sequence;
    }

    /**
     * {@return {@code path} packed, or null if it does not read back the same from its numbers}
     *
     * @param path a node's path
     * @param directory the lock directory of the lease's context
     * @param namePrefix the name prefix of the lease's context
     */
    static PackedPath pack(String path, String directory, String namePrefix) {
        String start = directory + SEPARATOR + LockNode.protectedName("", "");
        int uuidAt = start.length() - 1;       // protectedName ends with the dash after the uuid
        int sequenceAt = uuidAt + UUID_LENGTH + 1 + namePrefix.length();
        if (path.length() != sequenceAt + SEQUENCE_DIGITS || !path.startsWith(directory + SEPARATOR)) {
            return null;
        }
        try {
            UUID uuid = UUID.fromString(path.substring(uuidAt, uuidAt + UUID_LENGTH));
            long sequence = Long.parseLong(path, sequenceAt, path.length(), 10);
            if (sequence < 0 || sequence > Integer.MAX_VALUE) {
                return null;
            }
            var packed = new PackedPath(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits(), (int) sequence);
            return path.equals(packed.unpack(directory, namePrefix)) ? packed : null;
        } catch (IllegalArgumentException e) {
            return null;                       // not a uuid, or not a number: kept as it is
        }
    }

    /** {@return the path this packs, in {@code directory} with {@code namePrefix}} */
    String unpack(String directory, String namePrefix) {
        return unpack(directory, namePrefix, high, low, sequence);
    }

    /** {@return the path packed as {@code high}, {@code low} and {@code sequence}, in {@code directory} with {@code namePrefix}} */
    static String unpack(String directory, String namePrefix, long high, long low, int sequence) {
        String digits = Integer.toString(sequence);
        var path = new StringBuilder(directory.length() + 64 + namePrefix.length());
        path.append(directory).append(SEPARATOR).append(LockNode.protectedName(new UUID(high, low).toString(), namePrefix));
        for (int i = digits.length(); i < SEQUENCE_DIGITS; i++) {
            path.append('0');
        }
        return path.append(digits).toString();
    }
}
