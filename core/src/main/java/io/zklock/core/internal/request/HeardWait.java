package io.zklock.core.internal.request;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.ClientTag;
import io.zklock.core.internal.zk.Hearing;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.TreeWatch;
import io.zklock.core.spi.queue.LockNode;

/*
 * Overview.
 *
 * HEAR: how a GrantWait waits (its step 3) on the nodes its driver names, in a client whose
 * tree watch was added once (it keeps cached nodes), or behind nodes whose holders hear
 * creations (LockNode#hearsCreations) in any client. The wait is for a deletion, which that tree
 * watch hears with no request of the wait's own: of cached nodes (LockNode#caches), whose
 * holders delete them when asked back or on hearing a conflicting node, and of other nodes where
 * the client's tree watch covers their root already (it keeps nodes under it: a cached reader
 * behind a writer saves the read of the writer's node and the listing on its deletion) and no
 * observer follows the request (observers hear whom it waits behind from the data that read
 * returns). (The data read that would set each node's watch is answered, on a standalone
 * server, only after the writes the server holds for its next log flush: those very deletions,
 * often.)
 *   1. PIN     the wait pins the root over its directory (TreeWatch.pin). If the client keeps no
 *              node under that root, the pin adds the root's watch (the client's watch was added
 *              elsewhere already: 3); the wait lists after the add's answer, and that listing is
 *              the directory's BASE (DirectoryCounts).
 *   2. AWAIT   told once, on the event thread, when a node waited on goes or the count can no
 *              longer tell (Hearing.await). The wait decides again, with no request, on the
 *              directory's lock nodes as the watch tells them: as exact as a listing answered
 *              at that event. It lists instead when the watch cannot tell them or does not show
 *              the wait's own node.
 *   3. OFF     for the rest of the wait, back to data watches: tree watches are off or the
 *              server refused the root's, or the count could not tell even right after a
 *              listing (a stray child in the directory). Never used on nodes of drivers that
 *              announce grants in a node's data (a wait on a node must hear that write), nor
 *              with a lock-delay (its deletions are counted from a listing's Stat). A client
 *              whose tree watch was never added (one that keeps no
 *              node) hears only behind nodes whose holders hear creations: their mark says a
 *              tree watch was added on the holder's client (ClientTag.hearing), so its first
 *              addWatch, which a 3.5 server answers by closing the connection, is no probe there
 *              (but during an upgrade from 3.5, behind holders on newer members: once per client,
 *              which then never adds one again). Behind any other node it could be, in the
 *              middle of the wait. Once an add of it was answered, the client hears
 *              as one whose tree watch was added (cached nodes; covered roots). The add and the
 *              listing after it come while the holders let go; the last deletion then grants
 *              with no round trip (c2p's writer: two).
 *   DIR        A directory decision (a semaphore's head and second waiter) of a driver whose
 *              directory decisions change only on deletions
 *              (LockDriver#directoryDecisionsChangeOnlyOnDeletions) hears the deletion of any
 *              other node of the directory the same way, in place of a children watch and the
 *              listing its event asks for, where every other node is a cached one: the last
 *              holder's deletion grants with no round trip. The queue it decides on is the BASE
 *              listing and every event after it, in order: a listing answered at that event
 *              would show the same. Otherwise (and with no pin kept) the children watch, as
 *              before; no announcement concerns such a wait.
 * A reconnection makes the wait list (GrantWait.kick): a persistent watch does not replay what it
 * missed. The pin ends with the wait; the root's watch lingers (TreeWatch, UNROUTE), so a client
 * that waits often keeps it. Guarded by the request's lock.
 */
/** A GrantWait's step 3 by hearing through the client's tree watch; see the comment above. */
final class HeardWait {
    private static final Runnable NONE = () -> { };

    private final LockContext context;
    private final QueuedNode node;
    private final RequestLock lock;
    private final ListedQueue queue;
    private final String dir;                  // the lock directory's server path
    private final boolean observed;            // observers follow the request

    private TreeWatch tree;                    // while a pin is kept
    private boolean off;
    private boolean listedForIt;               // the last call asked for a listing to count on
    private Runnable callOff = NONE;

    HeardWait(LockContext context, QueuedNode node, RequestLock lock, ListedQueue queue, boolean observed) {
        this.context = context;
        this.observed = observed;
        this.node = node;
        this.lock = lock;
        this.queue = queue;
        this.dir = context.port().serverPath(context.path());
    }

    /**
     * Waits on {@code paths} by hearing, if that applies: {@code then} is given once, in a step,
     * the queue to decide on, or null to list (it may be in this call); {@return false if the
     * wait must set data watches instead}
     */
    boolean hears(List<String> paths, Consumer<List<LockNode>> then) {
        return hears(paths, false, then);
    }

    /**
     * As {@link #hears(List, Consumer)} for a directory decision on {@code sorted} (DIR): waits
     * for the deletion of any other node of it.
     */
    boolean hearsDirectory(List<LockNode> sorted, Consumer<List<LockNode>> then) {
        return hears(others(sorted), true, then);
    }

    /** {@return whether a directory decision on {@code sorted} is waited on by hearing now (DIR); if not, no pin is kept} */
    boolean mayHearDirectory(List<LockNode> sorted) {
        List<String> others = others(sorted);
        boolean may = !off && !others.isEmpty() && context.driver().directoryDecisionsChangeOnlyOnDeletions()
                && applies(others, true);
        if (!may) {
            stop();
        }
        return may;
    }

    /** The paths of the nodes of {@code sorted} other than the wait's own. */
    private List<String> others(List<LockNode> sorted) {
        return sorted.stream().filter(n -> !n.equals(node.node())).map(n -> context.path() + "/" + n.name()).toList();
    }

    private boolean hears(List<String> paths, boolean directory, Consumer<List<LockNode>> then) {
        callOff.run();
        callOff = NONE;
        if (off || !applies(paths, directory)) {
            stop();                            // a pin of an earlier step ends: data watches from here
            return false;
        }
        TreeWatch watch = TreeWatch.of(context.monitor(), context.port());
        CompletableFuture<TreeWatch.Cover> cover = watch.pin(dir);
        if (tree != null) {
            tree.unpin(dir);                  // after the new pin: the root never lingers meanwhile
        }
        tree = cover == null ? null : watch;
        TreeWatch.Cover now = cover == null ? TreeWatch.Cover.UNSUPPORTED : cover.getNow(null);
        if (now == null) {
            cover.whenComplete((c, e) -> lock.run(() -> then.accept(null)));   // 1: list after the add's answer
            return true;
        } else if (now != TreeWatch.Cover.COVERED) {
            return turnOff();
        }
        Hearing hearing = watch.hearing();
        Runnable await = hearing.await(dir, names(paths), () -> lock.run(() -> then.accept(queue(hearing))));
        if (await != null) {
            callOff = await;
            listedForIt = false;
            return true;
        }
        List<LockNode> known = queue(hearing);
        if (known == null && listedForIt) {
            return turnOff();
        }
        listedForIt = known == null;
        then.accept(known);                    // gone already, or list
        return true;
    }

    /** {@return whether the wait listens now (a reconnection must make it list)} */
    boolean listening() {
        return callOff != NONE;
    }

    /** The wait ended, or moved on to data watches: nothing is awaited or pinned. */
    void stop() {
        callOff.run();
        callOff = NONE;
        if (tree != null) {
            tree.unpin(dir);
            tree = null;
        }
    }

    private boolean turnOff() {
        off = true;
        stop();
        return false;
    }

    private boolean applies(List<String> paths, boolean directory) {
        TreeWatch known = TreeWatch.existing(context.monitor());
        boolean proven = known != null && known.proven();
        return (directory || !context.driver().announcesGrants()) && !context.lockDelay().isOn()
                && paths.stream().allMatch(p -> NodePaths.parent(p).equals(context.path()))
                && (proven && (all(paths, LockNode::caches) || !directory && !observed && known.covers(dir))
                        || ClientTag.mayHear(context.monitor()) && all(paths, LockNode::hearsCreations));
    }

    private static boolean all(List<String> paths, Predicate<LockNode> test) {
        return paths.stream().allMatch(p -> LockNode.parse(NodePaths.name(p)).map(test::test).orElse(false));
    }

    /** {@return the queue the watch tells, if it can and it shows our node, else null} */
    private List<LockNode> queue(Hearing hearing) {
        List<LockNode> nodes = hearing.exactLockNodes(dir);
        return nodes == null || !nodes.contains(node.node()) ? null : queue.filtered(nodes);
    }

    private static Set<String> names(List<String> paths) {
        return paths.stream().map(NodePaths::name).collect(Collectors.toSet());
    }
}
