package io.zklock.core.spi;

import java.util.Objects;

/**
 * What a {@link LockDriver} decides for one node.
 *
 * @param outcome granted, wait for one node, wait for any change of the directory, or refused
 * @param nodeToWatch the node whose deletion (or grant notice) may change the answer; set
 *        exactly when the outcome is {@link Outcome#WATCH_NODE}
 * @param refusal why the request is refused; set exactly when the outcome is {@link Outcome#REFUSED}
 */
public record Decision(Outcome outcome, LockNode nodeToWatch, String refusal) {

    /** The four things a driver can decide. */
    public enum Outcome {
        /** The node holds the lock. */
        GRANTED,
        /** Wait until {@code nodeToWatch} is deleted or changes. */
        WATCH_NODE,
        /** Wait until any child of the directory is created or deleted. */
        WATCH_DIRECTORY,
        /** The request can never be granted (a misuse the driver can see); give up with the reason. */
        REFUSED
    }

    private static final Decision GRANTED = new Decision(Outcome.GRANTED, null, null);
    private static final Decision WATCH_DIRECTORY = new Decision(Outcome.WATCH_DIRECTORY, null, null);

    public Decision {
        Objects.requireNonNull(outcome, "outcome");
        if ((outcome == Outcome.WATCH_NODE) != (nodeToWatch != null)) {
            throw new IllegalArgumentException("a node to watch goes with WATCH_NODE and only with it");
        }
        if ((outcome == Outcome.REFUSED) != (refusal != null)) {
            throw new IllegalArgumentException("a refusal reason goes with REFUSED and only with it");
        }
    }

    /** The node is granted. */
    public static Decision granted() {
        return GRANTED;
    }

    /** The node waits for {@code node} to go (or to announce its own grant). */
    public static Decision watch(LockNode node) {
        return new Decision(Outcome.WATCH_NODE, Objects.requireNonNull(node, "node"), null);
    }

    /** The node waits for any change among the directory's children. */
    public static Decision watchDirectory() {
        return WATCH_DIRECTORY;
    }

    /** The request is refused, with a reason naming what is wrong. */
    public static Decision refuse(String why) {
        return new Decision(Outcome.REFUSED, null, Objects.requireNonNull(why, "why"));
    }

    /** Whether the node holds the lock. */
    public boolean getsTheLock() {
        return outcome == Outcome.GRANTED;
    }

    /** The path of the node to watch under {@code directory}, or null unless the outcome is WATCH_NODE. */
    public String pathToWatch(String directory) {
        return nodeToWatch == null ? null : directory + "/" + nodeToWatch.name();
    }
}
