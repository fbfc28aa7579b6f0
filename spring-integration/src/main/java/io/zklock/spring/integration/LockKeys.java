package io.zklock.spring.integration;

import io.zklock.core.LockPaths;

/**
 * Lock keys to ZooKeeper node names, and the root they live under.
 *
 * <p>A key becomes one node name by {@link LockPaths#nodeNameOf} (percent-encoding, injective,
 * never a {@code /}), so two keys never share a node and no key reaches outside the root.
 */
final class LockKeys {
    /** The longest key, in chars: its node name is at most 9 times as long (a 3-byte char becomes 9). */
    static final int MAX_KEY_LENGTH = 512;

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
        return LockPaths.nodeNameOf("lock key", text);
    }
}
