package io.zklock.core.internal.zk;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.zklock.core.spi.queue.LockNode;

/*
 * Overview.
 *
 * What a client's tree watch tells of the number of lock nodes in a lock directory, so that a
 * cached semaphore's miss need not list the directory only to learn that a permit is free (see
 * io.zklock.core.internal.cache, WAIT). Counted for the directories a caller asks about, at most
 * MAX of them (the least recently asked forgotten first: it is listed again).
 *   1. BASE    a listing of the directory by this session, answered while the directory's root
 *              is COVERED by a watch added on this session (TreeWatch): the add was sent before
 *              the listing (one session's replies come in the order of its requests), so every
 *              change the listing missed comes as an event after its reply, and every event
 *              before the reply is of a change the listing shows. It holds the listing's
 *              lock nodes, tied to that watch (its root's generation) and to the connection.
 *   2. EVENTS  a lock node created in the directory or deleted from it: added / removed, on the
 *              event thread, in order with the replies.
 *   3. UNKNOWN any connection news (a persistent watch does not replay what it missed while cut
 *              off), the root's watch removed or added again (another generation), the
 *              directory itself created or deleted, a creation of a node it has or a deletion
 *              of one it has not: unknown until the next BASE.
 * The nodes are kept, not only counted: they are what a holder of cached permits judges a
 * creation by (whether the new waiter's ask will name its node). Either use is a hint, never a
 * grant: it skips a listing whose answer could only send the caller to ZooKeeper, where a node
 * is queued as without a cache, or lets a cached node go early. Guarded by this object.
 */
/** Lock-node counts of lock directories under a client's tree watch; see the comment above. */
final class DirectoryCounts {
    /** Directories counted at once, at most. */
    static final int MAX = 256;

    /** One directory's lock nodes (null: unknown), and the root generation and connection epoch they hold for. */
    private static final class Count {
        Set<LockNode> nodes;
        long generation;
        long epoch;
    }

    private final Map<String, Count> counts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Count> eldest) {
            return size() > MAX;
        }
    };
    private long epoch;                        // connection news seen so far

    /** BASE: a listing of {@code dir} answered with {@code children}, under the root's watch of {@code generation} (< 0: none). */
    synchronized void listed(String dir, List<String> children, long generation) {
        Count c = counts.get(dir);
        if (c != null) {
            c.nodes = generation < 0 ? null : new HashSet<>(LockNode.sorted(children));
            c.generation = generation;
            c.epoch = epoch;
        }
    }

    /** EVENTS / UNKNOWN: the node at {@code path} was created ({@code delta} 1) or deleted (-1). */
    synchronized void changed(String path, int delta) {
        Count self = counts.get(path);
        if (self != null) {
            self.nodes = null;                 // the directory itself came or went
        }
        int slash = path.lastIndexOf('/');
        Count c = slash > 0 ? counts.get(path.substring(0, slash)) : null;
        LockNode node = c == null || c.nodes == null ? null : LockNode.parse(path.substring(slash + 1)).orElse(null);
        if (node != null && !(delta > 0 ? c.nodes.add(node) : c.nodes.remove(node))) {
            c.nodes = null;                    // a creation seen twice, or a deletion of what it did not know: lost track
        }
    }

    /** UNKNOWN: connection news. */
    synchronized void cutOff() {
        epoch++;
    }

    /** {@return how many lock nodes {@code dir} has if known under the root's watch of {@code generation}, else -1}; counts it from now on */
    synchronized int nodes(String dir, long generation) {
        Count c = counts.computeIfAbsent(dir, d -> new Count());
        return known(c, generation) ? c.nodes.size() : -1;
    }

    /** {@return the lock nodes of {@code dir} in queue order if known under the root's watch of {@code generation}, else null} */
    synchronized List<LockNode> sorted(String dir, long generation) {
        Count c = counts.get(dir);
        if (c == null || !known(c, generation)) {
            return null;
        }
        List<LockNode> sorted = new ArrayList<>(c.nodes);
        sorted.sort(LockNode.QUEUE_ORDER);
        return sorted;
    }

    private boolean known(Count c, long generation) {
        return c.nodes != null && c.generation == generation && c.epoch == epoch && generation >= 0;
    }
}
