package io.zklock.spring.integration;

import java.nio.charset.StandardCharsets;

import io.zklock.core.spi.LockPaths;

/**
 * Lock keys to ZooKeeper node names, and the root they live under.
 *
 * <p>A key becomes one node name by percent-encoding: letters, digits, {@code -}, {@code _}
 * and {@code .} stay as they are; every other character, {@code %} included, becomes
 * {@code %XX} for each byte of its UTF-8 form; a name made only of dots ({@code .},
 * {@code ..}, which ZooKeeper refuses) has its dots encoded too. Decoding gives the key back,
 * so two keys never share a node, and a name never holds {@code /}, so no key reaches outside
 * the root.
 */
final class LockKeys {
    /** The longest key, in chars: its node name is at most 9 times as long (a 3-byte char becomes 9). */
    static final int MAX_KEY_LENGTH = 512;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockKeys() {
    }

    /**
     * Checks a registry root: an absolute ZooKeeper path, not the root itself, not under
     * {@code /zookeeper}.
     *
     * @return the root, unchanged
     * @throws IllegalArgumentException naming the root and what is wrong with it
     */
    static String root(String root) {
        if (root == null) {
            throw new IllegalArgumentException("lock registry root is null");
        }
        return LockPaths.validate(root);       // the lock directories' rule: a root is one's parent
    }

    /**
     * The node name of {@code key}.
     *
     * @throws IllegalArgumentException if the key is null, not a {@code String}, empty, longer
     *         than {@link #MAX_KEY_LENGTH} chars, or holds a lone surrogate (no UTF-8 form)
     */
    static String nodeName(Object key) {
        if (key == null) {
            throw new IllegalArgumentException("lock key is null");
        }
        if (!(key instanceof String text)) {
            throw new IllegalArgumentException("lock key must be a String, was a " + key.getClass().getName());
        }
        if (text.isEmpty()) {
            throw new IllegalArgumentException("lock key is empty");
        }
        if (text.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("lock key is " + text.length() + " chars long, more than "
                    + MAX_KEY_LENGTH + ": '" + text.substring(0, 40) + "...'");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(i + 1));
                if (!paired) {
                    throw new IllegalArgumentException("lock key has a lone surrogate \\u"
                            + Integer.toHexString(c) + " at index " + i + ": it has no UTF-8 form");
                }
                i++;
            }
        }
        boolean onlyDots = text.chars().allMatch(c -> c == '.');
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (isPlain(c) && !(onlyDots && c == '.')) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    private static boolean isPlain(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '_' || c == '.';
    }
}
