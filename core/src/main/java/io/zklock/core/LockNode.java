package io.zklock.core;

import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One child of a lock directory, parsed once from its name
 * {@code _c_<uuid>-<kind>-<sequence>}: the protected prefix written by a protected create, the
 * recipe's kind ({@code lock}, {@code read}, {@code write}, ...) and the ten-digit sequence
 * number ZooKeeper appended.
 *
 * @param name the child's name, relative to the lock directory
 * @param protectedId the uuid of the protected create that made it
 * @param kind what the node asks for; drivers tell kinds apart by this field
 * @param sequence the sequence number; the queue order
 */
public record LockNode(String name, String protectedId, String kind, long sequence)
        implements Comparable<LockNode> {

    private static final Pattern NAME =
            Pattern.compile("_c_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
                    + "-([a-z][a-z0-9]*)-(-[0-9]{9,10}|[0-9]{10})");

    /** Queue order: by sequence number, then by name for a total order. */
    public static final Comparator<LockNode> QUEUE_ORDER =
            Comparator.comparingLong(LockNode::sequence).thenComparing(LockNode::name);

    /** A node kind must be a lower-case word, as it is part of every node name. */
    public static String checkKind(String kind) {
        if (kind == null || !kind.matches("[a-z][a-z0-9]*")) {
            throw new IllegalArgumentException("invalid node kind '" + kind + "': expected a lower-case word");
        }
        return kind;
    }

    /**
     * Parses a child name; foreign or malformed names give an empty optional and are never
     * thrown on, so a stray child in a lock directory is ignored.
     */
    public static Optional<LockNode> parse(String name) {
        if (name == null) {
            return Optional.empty();
        }
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new LockNode(name, m.group(1), m.group(2), Long.parseLong(m.group(3))));
    }

    /** Whether this node is of the given kind. */
    public boolean is(String otherKind) {
        return kind.equals(otherKind);
    }

    @Override
    public int compareTo(LockNode other) {
        return QUEUE_ORDER.compare(this, other);
    }
}
