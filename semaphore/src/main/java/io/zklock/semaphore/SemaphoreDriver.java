package io.zklock.semaphore;

import java.util.List;
import java.util.OptionalInt;

import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.ForeignLayout;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;

/*
 * Overview.
 *
 * Nodes are permits in queue order: the first maxLeases nodes hold them, the node at index
 * maxLeases is the head waiter, the next one the second waiter, and every node behind those
 * waits for the two nodes right ahead of it.
 *
 *   index <  maxLeases       granted.
 *   index == maxLeases,      the head and the second: watch the directory's children (or, in a
 *   index == maxLeases + 1   client whose tree watch counts the directory, hear its deletions:
 *                            see directoryDecisionsChangeOnlyOnDeletions). Whichever
 *                            holder releases, in whatever order, its deletion is a child change,
 *                            so the head wakes on the first free permit (the textbook "watch
 *                            children[i - maxLeases]" wakes the wrong waiter when holders release
 *                            out of order, and a permit sits idle while a client waits), and the
 *                            second wakes as it moves to the head.
 *   index >= maxLeases + 2   watch the data of BOTH nodes right ahead (index - 1 and index - 2).
 *                            Either changes when it is deleted (abandoned, released) or granted:
 *                            this driver announces grants, so a node granted with a node behind
 *                            it touches its own data once. The first of the two events wakes it.
 *
 * A waiter's process may die (killed, frozen) while the server keeps its session: its node then
 * moves up in queue order, takes a permit, and keeps it until the session expires (inherent:
 * nobody can tell a dead client from a slow one), and it never announces that grant. Watching
 * only the predecessor, as this driver once did, let such a node strand a SECOND permit: the live
 * waiter right behind it watched only the dead node, so when another holder released it slept on,
 * inside the permit window, for the rest of the dead session. Two nodes watched, and the head and
 * the second on the directory, close that hole without any write from a dead process.
 *
 * Why its five properties hold (safety, no stranded permit, no herd, FIFO, cost):
 * (1) safety: a node is granted only from a listing with fewer than maxLeases nodes ahead; nodes
 *     created later sort behind it, so from then on it stays among the first maxLeases, and at
 *     most maxLeases live nodes are ever granted.
 * (2) no stranded permit: a live waiter L among the first maxLeases nodes is granted at once,
 *     whether or not another waiter's process died; by induction on the queue, front to back.
 *     Take L's last listing, at index j >= maxLeases (indexes only fall: new nodes sort behind).
 *     - j == maxLeases or maxLeases + 1: L watches the children, set by that very listing; L's
 *       index fell since, which only a deletion ahead does, and that fired the watch: L lists
 *       again and is granted.
 *     - j >= maxLeases + 2: L watches A and B, the nodes then at j - 2 and j - 1. If either is
 *       gone, L woke (its deletion, or NoNode when the watch was set). Otherwise both are still
 *       right ahead of L, so both are among the first maxLeases now. At least one of them, X,
 *       is live (with one dead waiter in the queue they cannot both be dead), so by induction
 *       X is granted (or, giving up, deleted: L woke); its granting listing came after L's (X
 *       was at >= maxLeases in L's) and so shows L behind it: X touches its data, and the
 *       touch fires L's watch (a waiter that set its watch after the touch sees a data
 *       version above 0 and looks again at once).
 *     The cases, one dead waiter each: a dead head takes the next free permit, and the second,
 *     on the directory, moves up behind it and takes the one after; a dead second leaves the
 *     third watching the head, whose grant wakes it (it then watches the directory as the
 *     second); a dead third or later leaves the waiter behind it the live node two ahead; a
 *     dead waiter that moves into the window holds one permit and the waiters behind it, on
 *     the directory by then, get the others; out-of-order releases are directory events; an
 *     abandoned waiter's deletion wakes both nodes watching it. The limit: two dead waiters side by side in front of a live
 *     waiter L, both inside the window while a permit is free for L, can hold L until one of
 *     their sessions ends (a permit is only lost this way with maxLeases >= 3); watching k
 *     nodes would tolerate k - 1 neighbours dead, at k wake-ups per grant.
 * (3) no herd: a release wakes the head and the second (directory; a holder has no data
 *     watcher left, its grant announcement fired them), and the grant it leads to wakes the at
 *     most two waiters that watch the granted node's data: in a settled queue the third only,
 *     as the node right behind the head watches the directory. Three wake-ups per
 *     release (four at most), whatever the queue. New arrivals wake the head and the second,
 *     two per arrival.
 *     No node has more than two data watchers: a waiter watching X listed X at most two ahead
 *     of it, and any node between them then is between them still, so only the two nodes right
 *     behind X can.
 * (4) FIFO: the head is the earliest waiter, and only the head can move into a permit.
 * (5) cost: uncontended, index < maxLeases at once: create + list. Release: delete. A contended
 *     grant adds one small write (the data touch), only when someone queues behind. A waiter
 *     behind the second sets two data watches per listing instead of one.
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
     * Curator's InterProcessSemaphoreV2 on the same path: its guard mutex in {@code locks}, its
     * leases in {@code leases} (CuratorLayoutPermits). Its clients do not count the permits in
     * the lock directory, so the default mode refuses while one of their nodes is there.
     */
    static final ForeignLayout CURATOR_SEMAPHORE = new ForeignLayout("Curator's InterProcessSemaphoreV2",
            List.of(CuratorLayoutPermits.LEASES_DIRECTORY, CuratorLayoutPermits.GUARD_DIRECTORY));

    private final ForeignLayout foreignLayout;

    /** The driver that looks for no foreign layout (inspection's, and compatibility mode's permits). */
    public SemaphoreDriver() {
        this(ForeignLayout.NONE);
    }

    private SemaphoreDriver(ForeignLayout foreignLayout) {
        this.foreignLayout = foreignLayout;
    }

    /**
     * The facts of a default-mode semaphore of {@code maxLeases} permits, stated once: nodes of
     * kind {@code sem<maxLeases>} ({@link #kind(int)}), decided by this driver, {@code maxLeases}
     * holders, refused beside Curator's semaphore clients ({@link #CURATOR_SEMAPHORE}).
     *
     * @param maxLeases the semaphore's number of permits, at least 1
     * @return the semaphore's recipe
     */
    static RecipeDescriptor recipe(int maxLeases) {
        return new RecipeDescriptor(kind(maxLeases), new SemaphoreDriver(CURATOR_SEMAPHORE), maxLeases);
    }

    /**
     * The permits of a semaphore in {@code LockCompatibility.CURATOR} (CuratorLayoutPermits' step
     * 1): as {@link #recipe(int)}, but beside Curator's clients, whose leases it also takes.
     *
     * @param maxLeases the semaphore's number of permits, at least 1
     * @return the recipe of its permits
     */
    static RecipeDescriptor compatibilityRecipe(int maxLeases) {
        return new RecipeDescriptor(kind(maxLeases), new SemaphoreDriver(), maxLeases);
    }

    /** {@return Curator's semaphore layout for the default mode; nothing for compatibility mode's permits} */
    @Override
    public ForeignLayout foreignLayout() {
        return foreignLayout;
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
        if (index <= maxLeases + 1) {
            return Decision.watchDirectory();             // the head and the second waiter
        }
        return Decision.watch(sorted.get(index - 1), sorted.get(index - 2));
    }

    private static Decision refusal(int inUse, int asked) {
        return Decision.refuse("the semaphore is in use with maxLeases " + inUse
                + " by other clients; this client asked for maxLeases " + asked);
    }

    @Override
    public boolean announcesGrants() {
        return true;
    }

    /** A head or second waiter's decision changes only when a node ahead of it goes: nodes created later sort behind it. */
    @Override
    public boolean directoryDecisionsChangeOnlyOnDeletions() {
        return true;
    }
}
