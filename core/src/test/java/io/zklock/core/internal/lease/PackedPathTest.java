package io.zklock.core.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.spi.queue.LockNode;
import org.junit.jupiter.api.Test;

/**
 * A lease's packed path reads back exactly: {@link PackedPath#pack} packs a path if and only if
 * some uuid and int sequence number write it again character for character, and then
 * {@link PackedPath#unpack} gives the path and {@link PackedPath#name} its last segment. The
 * reference for "writes it again" is the plain way: parse the uuid and the number with the
 * JDK, write the path from them, compare. Paths near the format (another case, a sign, a
 * number past an int, groups of other lengths, another directory or prefix) must not pack.
 */
class PackedPathTest {
    private static final String DIR = "/locks/orders";
    private static final String PREFIX = "lock-";

    @Test
    void packsExactlyThePathsThatReadBackTheSame() {
        List<String> paths = new ArrayList<>();
        var random = new Random(7);
        for (int i = 0; i < 200; i++) {
            UUID uuid = new UUID(random.nextLong(), random.nextLong());
            int sequence = i % 3 == 0 ? random.nextInt(Integer.MAX_VALUE) : i % 3 == 1 ? i : Integer.MAX_VALUE - i;
            paths.add(PackedPath.unpack(DIR, PREFIX, uuid.getMostSignificantBits(), uuid.getLeastSignificantBits(), sequence));
        }
        String good = PackedPath.unpack(DIR, PREFIX, 0x0123456789abcdefL, 0xfedcba9876543210L, 42);
        paths.add(good);
        paths.add(good.toUpperCase(java.util.Locale.ROOT).replace("/LOCKS/ORDERS/_C_", "/locks/orders/_c_").replace("LOCK-", "lock-"));
        paths.add(good.replace("0000000042", "+000000042"));
        paths.add(good.replace("0000000042", "-000000042"));
        paths.add(good.replace("0000000042", "2147483648"));
        paths.add(good.replace("0000000042", "9999999999"));
        paths.add(good.replace("89ab-cdef", "89ab-cdeg"));
        paths.add(good.replace("01234567-89ab", "0123456-789ab"));       // same length, groups moved
        paths.add(good.replace("-lock-", "-read-"));
        paths.add(good.replace("/locks/orders/", "/locks/others/"));
        paths.add(good.replace("/locks/orders/", "/locks/orders-"));
        paths.add(good.replace("_c_", "_d_"));
        paths.add(good.replace("3210-lock-", "3210_lock-"));              // no dash after the uuid
        paths.add(good.replace("01234567-89ab", "01234567x89ab"));       // no dash inside it
        paths.add(good + "0");
        paths.add(good.substring(0, good.length() - 1));
        paths.add(DIR + "/" + LockNode.protectedName(UUID.randomUUID().toString(), PREFIX) + "00000000a1");
        assertEquals(paths.size(), paths.stream().distinct().count(), "every near path differs from the written ones");
        int packed = 0;
        for (String path : paths) {
            PackedPath pack = PackedPath.pack(path, DIR, PREFIX);
            if (readsBack(path)) {
                assertNotNull(pack, path);
                assertEquals(path, pack.unpack(DIR, PREFIX), path);
                assertEquals(NodePaths.name(path), PackedPath.name(PREFIX, pack.high, pack.low, pack.sequence), path);
                packed++;
            } else {
                assertNull(pack, path);
            }
        }
        assertEquals(201, packed, "the written paths pack, the 16 near ones do not");
    }

    /** The plain reference: some uuid and int sequence number write {@code path} again. */
    private static boolean readsBack(String path) {
        String start = DIR + "/" + LockNode.protectedName("", "");
        int uuidAt = start.length() - 1;
        int sequenceAt = uuidAt + 37 + PREFIX.length();
        if (path.length() != sequenceAt + 10 || !path.startsWith(DIR + "/")) {
            return false;
        }
        try {
            UUID uuid = UUID.fromString(path.substring(uuidAt, uuidAt + 36));
            long sequence = Long.parseLong(path.substring(sequenceAt));
            return sequence >= 0 && sequence <= Integer.MAX_VALUE && path.equals(PackedPath.unpack(DIR, PREFIX,
                    uuid.getMostSignificantBits(), uuid.getLeastSignificantBits(), (int) sequence));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
