package io.zklock.core.spi.queue;

import java.util.List;

/**
 * The pure decision a recipe adds to the engine: given the lock directory's children in queue
 * order, one of them ours, does our node hold the lock, and if not, which node's deletion must
 * we wait for. A driver takes no client and does no I/O.
 *
 * <p>The engine asks about the children of one moment: a listing's, or those sequence-gap
 * inference proved unchanged since a listing (see {@code DirectoryView}, whose count of
 * children makes the set exact, not a superset), less only this session's own nodes whose
 * delete is pending while the connection is down (released: nobody holds them, and other
 * clients still wait for them, so leaving them out can only grant what their deletion will
 * grant). A driver need not be monotone (the semaphore's maxLeases check is not), and no part
 * of the engine relies on it unless the driver says so: a driver that declares
 * {@link #grantsStandAsNodesGoAndQueueBehind} is also asked about a listing less a node whose
 * deletion its waiter was told since (never with a {@link #foreignLayout} to look for).
 */
@FunctionalInterface
public interface LockDriver {

    /**
     * @param sorted the parsed children, sorted by {@link LockNode#QUEUE_ORDER}; contains {@code ours}
     * @param ours the node being decided
     * @param maxLeases how many holders the recipe admits at once (1 for exclusive locks)
     * @return the decision for {@code ours}
     */
    Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases);

    /**
     * Whether a newly granted node must tell the nodes queued behind it, because they may be
     * waiting on it with {@link Decision#watch} although the grant did not delete it (a
     * semaphore's waiters do; a mutex's never need to). When true, the engine touches the
     * granted node's data once, and only if a node follows it in the listing that granted it.
     */
    default boolean announcesGrants() {
        return false;
    }

    /**
     * Whether a {@link Decision#watchDirectory() directory decision} of this driver can change
     * only when a node of the directory is deleted, never when one is created (a semaphore's:
     * nodes created later sort behind the waiter). When true, a waiter whose client's tree watch
     * counts the directory may wait on the deletions it hears instead of a children watch, and
     * decide on the queue that watch tells with no listing; when false (the default), a
     * directory decision always waits on a children watch.
     */
    default boolean directoryDecisionsChangeOnlyOnDeletions() {
        return false;
    }

    /**
     * Whether a grant this driver makes on a queue still holds for the queue as it is later, when
     * some nodes of it have gone and others have been created since: true only when a grant
     * depends on the nodes queued ahead of ours alone, removing nodes ahead never takes a grant
     * away, and no node created later can queue ahead of ours in a way that would (a mutex's:
     * every later node sorts behind; not a write lock's, behind which a downgrade's read node may
     * come ahead). When true, a waiter that watched one node ahead and
     * hears it deleted decides on its last queue less that node, and a grant there needs no
     * listing (ZooKeeper tells the deletion only while the waiter's session, and so its node,
     * lives); when false (the default), or when that queue does not grant, the waiter lists.
     */
    default boolean grantsStandAsNodesGoAndQueueBehind() {
        return false;
    }

    /**
     * Whether {@code ahead}, a node queued before {@code ours}, keeps {@code ours} from its
     * grant while it holds: a waiter asks the cached nodes ahead that conflict with it to come
     * back (see {@link LockNode#caches()}). True unless the two can hold together; a read lock's
     * readers do not conflict with each other.
     *
     * @param ahead a node before ours in queue order
     * @param ours the waiting node
     * @return whether {@code ahead} holding keeps {@code ours} waiting
     */
    default boolean conflicts(LockNode ahead, LockNode ours) {
        return true;
    }

    /**
     * Where another library's clients of this lock keep nodes this driver does not see in the
     * queue, and cannot be safe beside (see {@link ForeignLayout}); {@link ForeignLayout#NONE}
     * unless a recipe says otherwise. Costs nothing while the listing shows none of its directories.
     *
     * @return the layout to look for
     */
    default ForeignLayout foreignLayout() {
        return ForeignLayout.NONE;
    }

    /**
     * The exclusive driver of mutexes and elections (the read-write driver applies the same rule
     * to write nodes, without declaring its grants stand): granted at the head of the queue,
     * otherwise watch the immediate predecessor, so each release wakes exactly one waiter.
     */
    LockDriver EXCLUSIVE = new LockDriver() {
        @Override
        public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
            int index = indexOf(sorted, ours);
            return index == 0 ? Decision.granted() : Decision.watch(sorted.get(index - 1));
        }

        @Override
        public boolean grantsStandAsNodesGoAndQueueBehind() {
            return true;                       // the head stays the head: nodes go from ahead, and come behind
        }
    };

    /**
     * Position of {@code ours} in {@code sorted}.
     *
     * @throws IllegalArgumentException if it is not there
     */
    static int indexOf(List<LockNode> sorted, LockNode ours) {
        int index = sorted.indexOf(ours);
        if (index < 0) {
            throw new IllegalArgumentException("node " + ours.name() + " is not among the children");
        }
        return index;
    }
}
