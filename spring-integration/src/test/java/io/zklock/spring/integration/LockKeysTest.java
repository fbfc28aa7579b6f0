package io.zklock.spring.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

/** The mapping of keys to node names, without a server. */
class LockKeysTest {

    /**
     * Property: for 20,000 random keys (ASCII, control characters, dots, slashes, percent signs,
     * non-Latin and supplementary characters), the node name decodes back to the key (so no two
     * keys share one), is a valid single path segment under a root, and is at most 9 times as
     * long as the key.
     */
    @Test
    void everyKeyMapsToOneValidNodeNameThatDecodesBackToIt() {
        Random random = new Random(22);
        String alphabet = "aZ09-_.%/\\ \u0000\n\u007f\u00e9\u65e5\ud83d\ude00:*?";
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            StringBuilder key = new StringBuilder();
            int length = 1 + random.nextInt(12);
            while (key.length() < length) {
                int at = random.nextInt(alphabet.length());
                char c = alphabet.charAt(at);
                if (Character.isHighSurrogate(c)) {
                    key.append(c).append(alphabet.charAt(at + 1));
                } else if (!Character.isLowSurrogate(c)) {
                    key.append(c);
                }
            }
            String name = LockKeys.nodeName(key.toString());
            assertEquals(key.toString(), decode(name), name);
            assertFalse(name.contains("/"), name);
            assertTrue(name.length() <= 9 * key.length(), name);
            PathUtils.validatePath("/root/" + name);
            String before = seen.put(name, key.toString());
            assertTrue(before == null || before.equals(key.toString()), before + " and " + key + " share " + name);
        }
    }

    /** Names made only of dots, which ZooKeeper refuses, are encoded whole; dots elsewhere stay. */
    @Test
    void dotNamesAreEncodedWhole() {
        assertEquals("%2E", LockKeys.nodeName("."));
        assertEquals("%2E%2E", LockKeys.nodeName(".."));
        assertEquals("a.b", LockKeys.nodeName("a.b"));
        assertEquals("..%2Fx", LockKeys.nodeName("../x"));
        assertEquals("%25", LockKeys.nodeName("%"));
        assertEquals("order-42_A", LockKeys.nodeName("order-42_A"));
    }

    private static String decode(String name) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '%') {
                bytes.write(Integer.parseInt(name.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
