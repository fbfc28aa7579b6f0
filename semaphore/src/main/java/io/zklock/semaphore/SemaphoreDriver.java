package io.zklock.semaphore;

import java.util.List;
import java.util.OptionalInt;

import io.zklock.core.spi.Decision;
import io.zklock.core.spi.LockDriver;
import io.zklock.core.spi.LockNode;

/*
 * Overview.
 *
 * Nodes are permits in queue order: the first maxLeases nodes hold them, the node at index
 * maxLeases is the head waiter, and every node behind it waits for its predecessor.
 *
 *   index <  maxLeases   granted.
 *   index == maxLeases   the head: watch the directory's children. Whichever holder releases,
 *                        in whatever order, its deletion is a child change, so the head wakes
 *                        on the first free permit (the textbook "watch children[i - maxLeases]"
 *                        wakes the wrong waiter when holders release out of order, and a
 *                        permit sits idle while a client waits).
 *   index >  maxLeases   watch the immediate predecessor. It changes when it is deleted
 *                        (abandoned) or when it is granted: this driver announces grants, so a
 *                        node granted with a node behind it touches its own data once.
 *
 * Why its five properties hold (safety, no stranded permit, no herd, FIFO, cost):
 * (1) safety: a node is granted only from a listing with fewer than maxLeases nodes ahead; nodes
 *     created later sort behind it, so from then on it stays among the first maxLeases, and at
 *     most maxLeases live nodes are ever granted.
 * (2) no stranded permit: a free permit means fewer than maxLeases nodes ahead of the head; the
 *     deletion that freed it fired the head's children watch (or happened before its watched
 *     listing, which then sees it), so the head is granted at once; a grant of the head moves
 *     the next waiter up by touching the head's data (a waiter that set its watch after the
 *     touch sees a data version above 0 and looks again at once).
 * (3) no herd: a release wakes the head only; the head's grant wakes its one follower. New
 *     arrivals also wake the head, once each. Two wake-ups per release, whatever the queue.
 * (4) FIFO: the head is the earliest waiter, and only the head can move into a permit.
 * (5) cost: uncontended, index < maxLeases at once: create + list. Release: delete. A contended
 *     grant adds one small write (the data touch), only when someone queues behind.
 *
 * maxLeases agreement: the kind of every node carries its client's maxLeases ("sem3"), so a
 * listing shows what the others use for free. The earliest node's value is the semaphore's;
 * a node that disagrees with it is refused before it is granted, with both values named. So
 * is a node that sees any node of another value u at an index below u: that node holds, or
 * may hold, by its own count (it was listed before the earliest one left, and indexes only
 * fall), so of two disagreeing nodes the later grant always sees the earlier and refuses.
 */
/**
 * The semaphore's {@link LockDriver}; see {@link ZkSemaphore}. Pure: no client, no I/O.
 */
public final class SemaphoreDriver implements LockDriver {
    /** Prefix of the node kind; the client's maxLeases follows it. */
    public static final String KIND_PREFIX = "sem";

    /**
     * The node kind for a semaphore of {@code maxLeases} permits.
     *
     * @param maxLeases the semaphore's number of permits
     * @return the kind its nodes carry
     */
    public static String kind(int maxLeases) {
        return KIND_PREFIX + maxLeases;
    }

    /**
     * The maxLeases a semaphore node declares.
     *
     * @param node a node of the lock directory
     * @return its maxLeases, or empty for a node of another recipe
     */
    public static OptionalInt declaredMaxLeases(LockNode node) {
        return declaredMaxLeases(node.kind());
    }

    /**
     * The maxLeases a node kind declares.
     *
     * @param kind the kind written in a node's name
     * @return its maxLeases, or empty for a kind of another recipe
     */
    static OptionalInt declaredMaxLeases(String kind) {
        if (!kind.startsWith(KIND_PREFIX) || kind.length() == KIND_PREFIX.length() || kind.length() > KIND_PREFIX.length() + 9) {
            return OptionalInt.empty();
        }
        String digits = kind.substring(KIND_PREFIX.length());
        if (digits.charAt(0) == '0') {
            return OptionalInt.empty();        // "sem0", "sem03": not what kind() writes
        }
        for (int i = 0; i < digits.length(); i++) {
            if (!Character.isDigit(digits.charAt(i))) {
                return OptionalInt.empty();
            }
        }
        return OptionalInt.of(Integer.parseInt(digits));
    }

    @Override
    public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
        int index = LockDriver.indexOf(sorted, ours);
        OptionalInt established = declaredMaxLeases(sorted.get(0));
        if (established.isPresent() && established.getAsInt() != maxLeases) {
            return refusal(established.getAsInt(), maxLeases);
        }
        for (int i = 0; i < sorted.size(); i++) {
            OptionalInt other = declaredMaxLeases(sorted.get(i));
            if (other.isPresent() && other.getAsInt() != maxLeases && i < other.getAsInt()) {
                return refusal(other.getAsInt(), maxLeases);     // it holds, or may, by its own count
            }
        }
        if (index < maxLeases) {
            return Decision.granted();
        }
        if (index == maxLeases) {
            return Decision.watchDirectory();
        }
        return Decision.watch(sorted.get(index - 1));
    }

    private static Decision refusal(int inUse, int asked) {
        return Decision.refuse("the semaphore is in use with maxLeases " + inUse
                + " by other clients; this client asked for maxLeases " + asked);
    }

    @Override
    public boolean announcesGrants() {
        return true;
    }
}
