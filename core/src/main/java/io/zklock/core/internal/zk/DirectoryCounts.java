package io.zklock.core.internal.zk;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import io.zklock.core.spi.queue.LockNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *   4. HEAR    a waiter of this client waits for nodes of a counted directory to go (GrantWait,
 *              HeardWait): told once, after the count's update, when one of them is deleted or
 *              the count turns unknown (3: at the change itself, the connection news, a removal
 *              of the root's watch). A directory waited on is not forgotten.
 * The nodes are kept, not only counted: they are what a holder of cached permits judges a
 * creation by (whether the new waiter's ask will name its node), and what a waiter decides on
 * when it heard a node ahead go: a queue as exact as a listing answered at the last event, if the
 * directory holds nothing but lock nodes (a stray child, which a listing's driver may judge as
 * another library's layout, leaves the count a hint only). Guarded by this object.
 */
/** Lock-node counts of lock directories under a client's tree watch; see the comment above. */
final class DirectoryCounts {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryCounts.class);
    /** Directories counted at once, at most. */
    static final int MAX = 256;

    /** One directory's lock nodes (null: unknown), and the root generation and connection epoch they hold for. */
    private static final class Count {
        Set<LockNode> nodes;
        boolean strays;                        // a child that is no lock node was listed or created since the BASE
        long generation;
        long epoch;
        final List<Await> awaits = new ArrayList<>(0);
    }

    /** HEAR: a waiter told once by {@code then} when a node of {@code names} goes or the count turns unknown. */
    private record Await(Set<String> names, Runnable then) { }

    private final Map<String, Count> counts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Count> eldest) {
            if (size() <= MAX || eldest.getValue().awaits.isEmpty()) {
                return size() > MAX;
            }
            Iterator<Count> oldest = values().iterator();   // a directory waited on stays: the oldest one nobody waits on goes
            while (size() > MAX && oldest.hasNext()) {
                if (oldest.next().awaits.isEmpty()) {
                    oldest.remove();
                }
            }
            return false;
        }
    };
    private long epoch;                        // connection news seen so far

    /**
     * BASE: a listing of {@code dir} answered with {@code children}, under the root's watch of
     * {@code generation} (< 0: none); {@return the waiters to tell now (HEAR): all, if it is no BASE}
     */
    synchronized List<Runnable> listed(String dir, List<String> children, long generation) {
        Count c = counts.get(dir);
        if (c == null) {
            return List.of();
        }
        List<LockNode> nodes = LockNode.sorted(children);
        c.nodes = generation < 0 ? null : new HashSet<>(nodes);
        c.strays = nodes.size() != children.size();
        c.generation = generation;
        c.epoch = epoch;
        return tell(c, a -> c.nodes == null || !names(c).containsAll(a.names()));
    }

    /**
     * EVENTS / UNKNOWN: the node at {@code path} was created ({@code delta} 1) or deleted (-1);
     * {@return the waiters to tell now (HEAR)}
     */
    synchronized List<Runnable> changed(String path, int delta) {
        List<Runnable> told = new ArrayList<>(0);
        Count self = counts.get(path);
        if (self != null) {
            self.nodes = null;                 // the directory itself came or went
            told.addAll(tell(self, a -> true));
        }
        int slash = path.lastIndexOf('/');
        Count c = slash > 0 ? counts.get(path.substring(0, slash)) : null;
        if (c == null || c.nodes == null) {
            return told;
        }
        LockNode node = LockNode.parse(path.substring(slash + 1)).orElse(null);
        if (node == null) {
            c.strays |= delta > 0;
        } else if (!(delta > 0 ? c.nodes.add(node) : c.nodes.remove(node))) {
            c.nodes = null;                    // a creation seen twice, or a deletion of what it did not know: lost track
            told.addAll(tell(c, a -> true));
        } else if (delta < 0) {
            told.addAll(tell(c, a -> a.names().contains(node.name())));
        }
        return told;
    }

    /** UNKNOWN: connection news, or a removal of a root's watch; {@return every waiter, to tell now (HEAR)} */
    synchronized List<Runnable> cutOff() {
        epoch++;
        List<Runnable> told = new ArrayList<>(0);
        counts.values().forEach(c -> told.addAll(tell(c, a -> true)));
        return told;
    }

    /**
     * HEAR: tells {@code then} once when a node of {@code dir} named in {@code names} goes or the
     * count turns unknown; {@return how to call it off, or null if the count under the root's
     * watch of {@code generation} is unknown, has strays, or lacks one of the names already}
     */
    synchronized Runnable await(String dir, long generation, Set<String> names, Runnable then) {
        Count c = counts.get(dir);
        if (c == null || !known(c, generation) || c.strays
                || !names(c).containsAll(names)) {
            return null;
        }
        Await await = new Await(Set.copyOf(names), then);
        c.awaits.add(await);
        return () -> {
            synchronized (this) {
                c.awaits.remove(await);
            }
        };
    }

    /** HEAR: tells each of {@code told}, whatever an earlier one threw (each was taken off already). */
    static void tell(List<Runnable> told) {
        for (Runnable then : told) {
            try {
                then.run();
            } catch (RuntimeException e) {
                LOG.error("a waiter told of a change in a lock directory failed", e);
            }
        }
    }

    /** {@return the waiters of {@code c} that {@code due} picks, taken off to be told} */
    private static List<Runnable> tell(Count c, Predicate<Await> due) {
        if (c.awaits.isEmpty()) {
            return List.of();
        }
        List<Runnable> told = new ArrayList<>(0);
        c.awaits.removeIf(a -> due.test(a) && told.add(a.then()));
        return told;
    }

    private static Set<String> names(Count c) {
        return c.nodes.stream().map(LockNode::name).collect(Collectors.toSet());
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

    /** {@return the lock nodes of {@code dir} in queue order, as exact as a listing, if known and without strays, else null} */
    synchronized List<LockNode> exact(String dir, long generation) {
        Count c = counts.get(dir);
        return c == null || c.strays ? null : sorted(dir, generation);
    }

    /** Counts {@code dir} from now on (its next listing under a covered root is its BASE). */
    synchronized void counted(String dir) {
        counts.computeIfAbsent(dir, d -> new Count());
    }

    private boolean known(Count c, long generation) {
        return c.nodes != null && c.generation == generation && c.epoch == epoch && generation >= 0;
    }
}
