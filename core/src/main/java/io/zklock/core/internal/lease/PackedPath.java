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
    /** What a protected name holds before its uuid ({@link LockNode#protectedName} ends with the dash after the uuid). */
    private static final String PROTECTED = LockNode.protectedName("", "").substring(0, LockNode.protectedName("", "").length() - 1);
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
     * It reads back the same exactly when it is the directory, a separator, the protected
     * prefix, a uuid as {@code UUID.toString} writes it (lower-case, 8-4-4-4-12), a dash, the
     * name prefix and ten digits of a number that fits an int: checked in place, with no copy
     * of the path (this runs on every grant, on the event thread).
     *
     * @param path a node's path
     * @param directory the lock directory of the lease's context
     * @param namePrefix the name prefix of the lease's context
     */
    static PackedPath pack(String path, String directory, String namePrefix) {
        int nameAt = directory.length() + SEPARATOR.length();
        int uuidAt = nameAt + PROTECTED.length();
        int prefixAt = uuidAt + UUID_LENGTH + 1;
        int sequenceAt = prefixAt + namePrefix.length();
        if (path.length() != sequenceAt + SEQUENCE_DIGITS || !path.startsWith(directory) || !path.startsWith(SEPARATOR, directory.length())
                || !path.startsWith(PROTECTED, nameAt) || path.charAt(prefixAt - 1) != '-' || !path.startsWith(namePrefix, prefixAt)) {
            return null;
        }
        long sequence = 0;
        for (int i = sequenceAt; i < path.length(); i++) {
            int digit = path.charAt(i) - '0';
            if (digit < 0 || digit > 9) {
                return null;
            }
            sequence = sequence * 10 + digit;
        }
        if (sequence > Integer.MAX_VALUE) {
            return null;
        }
        if (!isWrittenUuid(path, uuidAt)) {
            return null;
        }
        return new PackedPath(hex(path, uuidAt, 0, 18), hex(path, uuidAt, 19, UUID_LENGTH), (int) sequence);
    }

    /** Whether {@code s} holds at {@code at} a uuid as {@code UUID.toString} writes it: lower-case hex, 8-4-4-4-12. */
    private static boolean isWrittenUuid(String s, int at) {
        for (int k = 0; k < UUID_LENGTH; k++) {
            char c = s.charAt(at + k);
            boolean ok = k == 8 || k == 13 || k == 18 || k == 23 ? c == '-' : c >= '0' && c <= '9' || c >= 'a' && c <= 'f';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** The hex digits of a written uuid in {@code s} at {@code at}, from {@code from} to {@code to}, dashes skipped. */
    private static long hex(String s, int at, int from, int to) {
        long value = 0;
        for (int k = from; k < to; k++) {
            char c = s.charAt(at + k);
            if (c != '-') {
                value = value << 4 | (c <= '9' ? c - '0' : c - 'a' + 10);
            }
        }
        return value;
    }

    /** {@return the path this packs, in {@code directory} with {@code namePrefix}} */
    String unpack(String directory, String namePrefix) {
        return unpack(directory, namePrefix, high, low, sequence);
    }

    /** {@return the path packed as {@code high}, {@code low} and {@code sequence}, in {@code directory} with {@code namePrefix}} */
    static String unpack(String directory, String namePrefix, long high, long low, int sequence) {
        return write(new StringBuilder(directory.length() + 64 + namePrefix.length()).append(directory).append(SEPARATOR),
                namePrefix, high, low, sequence);
    }

    /** {@return the node's name (the path's last segment) packed as {@code high}, {@code low} and {@code sequence}, with {@code namePrefix}} */
    static String name(String namePrefix, long high, long low, int sequence) {
        return write(new StringBuilder(64 + namePrefix.length()), namePrefix, high, low, sequence);
    }

    private static String write(StringBuilder path, String namePrefix, long high, long low, int sequence) {
        String digits = Integer.toString(sequence);
        path.append(LockNode.protectedName(new UUID(high, low).toString(), namePrefix));
        for (int i = digits.length(); i < SEQUENCE_DIGITS; i++) {
            path.append('0');
        }
        return path.append(digits).toString();
    }
}
