package io.zklock.shedlock;

import io.zklock.core.LockPaths;

/**
 * Maps a ShedLock job name to one ZooKeeper node name by {@link LockPaths#nodeNameOf} (the
 * registry's map too: percent-encoding, injective, never {@code /}, {@code .} or {@code ..}), so
 * two names never share a lock and no name leaves the root; a name is refused when its node name
 * would be longer than {@link #MAX_NODE_NAME}.
 */
final class JobNames {
    /** The longest node name a job maps to; a longer one is refused. */
    static final int MAX_NODE_NAME = 255;

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
        String out;
        try {
            out = LockPaths.nodeNameOf("it", name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("job name '" + shown(name) + "': " + e.getMessage(), e);
        }
        if (out.length() > MAX_NODE_NAME) {
            throw new IllegalArgumentException("job name '" + shown(name) + "' is too long: it maps to a node name of "
                    + out.length() + " characters, at most " + MAX_NODE_NAME);
        }
        return out;
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
