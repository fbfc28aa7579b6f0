package io.zklock.core.spi.queue;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link LockDriver} decides for one node.
 *
 * @param verdict granted, wait for one or two nodes, wait for any change of the directory, or refused
 * @param nodeToWatch the node whose deletion (or grant notice) may change the answer; set
 *        exactly when the verdict is {@link Verdict#WATCH_NODE}
 * @param refusal why the request is refused; set exactly when the verdict is {@link Verdict#REFUSED}
 *        or {@link Verdict#FOREIGN}
 * @param secondToWatch a second node whose deletion (or grant notice) may change the answer as
 *        well, or null; set only with {@link Verdict#WATCH_NODE}, and never {@code nodeToWatch}
 */
public record Decision(Verdict verdict, LockNode nodeToWatch, String refusal, LockNode secondToWatch) {

    /** The five things a driver can decide. */
    public enum Verdict {
        /** The node holds the lock. */
        GRANTED,
        /** Wait until {@code nodeToWatch} (or {@code secondToWatch}, if set) is deleted or changes. */
        WATCH_NODE,
        /**
         * Wait until any child of the directory is created or deleted (only deleted, for a driver
         * whose {@link LockDriver#directoryDecisionsChangeOnlyOnDeletions()} says so).
         */
        WATCH_DIRECTORY,
        /**
         * The request can never be granted (a misuse the driver can see, such as a maxLeases that
         * disagrees with the other clients'); give up with the reason: an IllegalStateException.
         */
        REFUSED,
        /**
         * The path holds another library's participants (Curator's) that this request cannot be
         * safe beside; give up with the reason, which names the path's foreign nodes: a
         * LockException, since it is a condition of the path, not a misuse by the caller.
         */
        FOREIGN;

        /** Whether the request ends here without a grant: {@link #REFUSED} or {@link #FOREIGN}. */
        public boolean refuses() {
            return this == REFUSED || this == FOREIGN;
        }
    }

    private static final Decision GRANTED = new Decision(Verdict.GRANTED, null, null);
    private static final Decision WATCH_DIRECTORY = new Decision(Verdict.WATCH_DIRECTORY, null, null);

    /**
     * Checks that each field goes with its verdict.
     *
     * @param verdict granted, wait for one or two nodes, wait for any change of the directory, or refused
     * @param nodeToWatch the node to watch, exactly with {@link Verdict#WATCH_NODE}
     * @param refusal the reason, exactly with {@link Verdict#REFUSED} or {@link Verdict#FOREIGN}
     * @param secondToWatch a second node to watch, only with {@link Verdict#WATCH_NODE}, or null
     * @throws IllegalArgumentException if a field does not go with the verdict, or both nodes are one
     */
    public Decision {
        Objects.requireNonNull(verdict, "verdict");
        if ((verdict == Verdict.WATCH_NODE) != (nodeToWatch != null)) {
            throw new IllegalArgumentException("a node to watch goes with WATCH_NODE and only with it");
        }
        if (secondToWatch != null && nodeToWatch == null) {
            throw new IllegalArgumentException("a second node to watch goes with a first one");
        }
        if (secondToWatch != null && secondToWatch.equals(nodeToWatch)) {
            throw new IllegalArgumentException("node " + secondToWatch.name() + " named twice as a node to watch");
        }
        if (verdict.refuses() != (refusal != null)) {
            throw new IllegalArgumentException("a refusal reason goes with REFUSED or FOREIGN and only with them");
        }
    }

    /**
     * A decision that watches at most one node.
     *
     * @param verdict granted, wait for one node, wait for any change of the directory, or refused
     * @param nodeToWatch the node to watch, exactly with {@link Verdict#WATCH_NODE}
     * @param refusal the reason, exactly with {@link Verdict#REFUSED} or {@link Verdict#FOREIGN}
     */
    public Decision(Verdict verdict, LockNode nodeToWatch, String refusal) {
        this(verdict, nodeToWatch, refusal, null);
    }

    /** The node is granted. */
    public static Decision granted() {
        return GRANTED;
    }

    /** The node waits for {@code node} to go (or to announce its own grant). */
    public static Decision watch(LockNode node) {
        return new Decision(Verdict.WATCH_NODE, Objects.requireNonNull(node, "node"), null);
    }

    /**
     * The node waits for either of two nodes to go or to announce its own grant, whichever
     * comes first; one that can never do so (its process died) does not hold it back while the
     * other can.
     *
     * @param first the node to watch first ({@code nodeToWatch})
     * @param second the other node to watch ({@code secondToWatch})
     * @return the decision
     * @throws IllegalArgumentException if both are the same node
     */
    public static Decision watch(LockNode first, LockNode second) {
        return new Decision(Verdict.WATCH_NODE, Objects.requireNonNull(first, "first"), null,
                Objects.requireNonNull(second, "second"));
    }

    /** The node waits for any change among the directory's children (see {@link Verdict#WATCH_DIRECTORY}). */
    public static Decision watchDirectory() {
        return WATCH_DIRECTORY;
    }

    /** The request is refused, with a reason naming what is wrong. */
    public static Decision refuse(String why) {
        return new Decision(Verdict.REFUSED, null, Objects.requireNonNull(why, "why"));
    }

    /**
     * The request is refused because the path holds another library's participants that it
     * cannot be safe beside; {@code why} names the foreign nodes and what to do.
     */
    public static Decision foreign(String why) {
        return new Decision(Verdict.FOREIGN, null, Objects.requireNonNull(why, "why"));
    }

    /** Whether the node holds the lock. */
    public boolean getsTheLock() {
        return verdict == Verdict.GRANTED;
    }

    /** The path of the node to watch under {@code directory}, or null unless the verdict is WATCH_NODE. */
    public String pathToWatch(String directory) {
        return nodeToWatch == null ? null : directory + "/" + nodeToWatch.name();
    }

    /** Every node to watch, first {@code nodeToWatch}; empty unless the verdict is WATCH_NODE. */
    public List<LockNode> nodesToWatch() {
        if (nodeToWatch == null) {
            return List.of();
        }
        return secondToWatch == null ? List.of(nodeToWatch) : List.of(nodeToWatch, secondToWatch);
    }

    /** The paths under {@code directory} of {@link #nodesToWatch()}, in that order. */
    public List<String> pathsToWatch(String directory) {
        return nodesToWatch().stream().map(node -> directory + "/" + node.name()).toList();
    }
}
