package io.zklock.core.spi;

import java.util.Objects;

/**
 * What a {@link LockDriver} decides for one node.
 *
 * @param verdict granted, wait for one node, wait for any change of the directory, or refused
 * @param nodeToWatch the node whose deletion (or grant notice) may change the answer; set
 *        exactly when the verdict is {@link Verdict#WATCH_NODE}
 * @param refusal why the request is refused; set exactly when the verdict is {@link Verdict#REFUSED}
 */
public record Decision(Verdict verdict, LockNode nodeToWatch, String refusal) {

    /** The four things a driver can decide. */
    public enum Verdict {
        /** The node holds the lock. */
        GRANTED,
        /** Wait until {@code nodeToWatch} is deleted or changes. */
        WATCH_NODE,
        /** Wait until any child of the directory is created or deleted. */
        WATCH_DIRECTORY,
        /** The request can never be granted (a misuse the driver can see); give up with the reason. */
        REFUSED
    }

    private static final Decision GRANTED = new Decision(Verdict.GRANTED, null, null);
    private static final Decision WATCH_DIRECTORY = new Decision(Verdict.WATCH_DIRECTORY, null, null);

    public Decision {
        Objects.requireNonNull(verdict, "verdict");
        if ((verdict == Verdict.WATCH_NODE) != (nodeToWatch != null)) {
            throw new IllegalArgumentException("a node to watch goes with WATCH_NODE and only with it");
        }
        if ((verdict == Verdict.REFUSED) != (refusal != null)) {
            throw new IllegalArgumentException("a refusal reason goes with REFUSED and only with it");
        }
    }

    /** The node is granted. */
    public static Decision granted() {
        return GRANTED;
    }

    /** The node waits for {@code node} to go (or to announce its own grant). */
    public static Decision watch(LockNode node) {
        return new Decision(Verdict.WATCH_NODE, Objects.requireNonNull(node, "node"), null);
    }

    /** The node waits for any change among the directory's children. */
    public static Decision watchDirectory() {
        return WATCH_DIRECTORY;
    }

    /** The request is refused, with a reason naming what is wrong. */
    public static Decision refuse(String why) {
        return new Decision(Verdict.REFUSED, null, Objects.requireNonNull(why, "why"));
    }

    /** Whether the node holds the lock. */
    public boolean getsTheLock() {
        return verdict == Verdict.GRANTED;
    }

    /** The path of the node to watch under {@code directory}, or null unless the verdict is WATCH_NODE. */
    public String pathToWatch(String directory) {
        return nodeToWatch == null ? null : directory + "/" + nodeToWatch.name();
    }
}
