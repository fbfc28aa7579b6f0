package io.zklock.shedlock;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * Maps a ShedLock job name to one ZooKeeper node name: ASCII letters, digits, {@code _} and
 * {@code -} stand for themselves; every other UTF-8 byte, {@code %} and {@code .} included,
 * becomes {@code %XX} (upper-case hex). The map is injective (UTF-8 is, and {@code %} never
 * stands for itself), its output never contains {@code /}, is never {@code .} or {@code ..}, and
 * uses no character ZooKeeper forbids: so two names never share a lock and no name leaves the
 * root.
 */
final class JobNames {
    /** The longest node name a job maps to; a longer one is refused. */
    static final int MAX_NODE_NAME = 255;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private JobNames() {
    }

    /**
     * @param name a job name
     * @return its node name
     * @throws IllegalArgumentException naming the bad value: null, empty, not well-formed
     *         UTF-16 (an unpaired surrogate), or mapping to more than {@link #MAX_NODE_NAME}
     *         characters
     */
    static String nodeName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("job name is null");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("job name is empty");
        }
        if (name.length() > MAX_NODE_NAME) {
            throw new IllegalArgumentException("job name '" + shown(name) + "' is too long: " + name.length()
                    + " characters, at most " + MAX_NODE_NAME + " fit in a node name");
        }
        ByteBuffer bytes;
        try {
            bytes = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(name));
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("job name '" + shown(name) + "' is not well-formed text (an unpaired surrogate)", e);
        }
        StringBuilder out = new StringBuilder(bytes.remaining());
        while (bytes.hasRemaining()) {
            int b = bytes.get() & 0xFF;
            if (b < 0x80 && (Character.isLetterOrDigit(b) || b == '_' || b == '-')) {
                out.append((char) b);
            } else {
                out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xF]);
            }
        }
        if (out.length() > MAX_NODE_NAME) {
            throw new IllegalArgumentException("job name '" + shown(name) + "' is too long: it maps to a node name of "
                    + out.length() + " characters, at most " + MAX_NODE_NAME);
        }
        return out.toString();
    }

    /** A name fit for a message: its first 60 characters, escaped where not printable. */
    private static String shown(String name) {
        StringBuilder out = new StringBuilder();
        name.codePoints().limit(60).forEach(c -> {
            if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) || (c >= 0xD800 && c <= 0xDFFF)) {
                out.append(String.format("\\u%04X", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return name.codePointCount(0, name.length()) > 60 ? out + "..." : out.toString();
    }
}
