package io.zklock.readwrite;

import java.util.ArrayList;
import java.util.List;

import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;

/*
 * Overview.
 *
 * Read and write nodes share one directory and one queue, ordered by LockNode.QUEUE_ORDER:
 * by queue position (a node's own sequence number, or for an anchored read node the sequence
 * number of the write node it was created under), then by sequence number. Kinds are told
 * apart by LockNode.kind(), never by searching names.
 *
 *   writer  granted at the head of the whole queue; otherwise watch the immediate
 *           predecessor, whatever its kind. A release wakes at most one writer.
 *   reader  granted when no write node precedes it, its anchor excepted; otherwise watch the
 *           LAST write node that precedes it. Readers queued behind the second writer watch
 *           the second writer, so the first writer's release wakes only the readers between
 *           the two writers, which are exactly the clients that can now proceed. (Watching the
 *           first write node, as Curator does, also wakes every reader behind the second
 *           writer, only for each to list the directory and watch again: a herd.)
 *
 * An anchored read node is the read lock's downgrade (see ZkReadWriteLock): it sorts right
 * after its anchor write node and before everything queued after that node, so a writer that
 * queued behind the write lock waits for the read lease too. Its anchor is the one write node
 * ahead of it that does not block it.
 *
 * Curator's layout. Curator's InterProcessReadWriteLock names its nodes __READ__<seq> and
 * __WRIT__<seq>; LockNode parses them to the kinds read and write, so one queue holds both
 * layouts, ordered by sequence number as Curator orders its own. Curator's rules are these
 * rules (a writer at the head, a reader with no writer ahead; it watches the first writer
 * ahead where we watch the last, which only changes who wakes), so a client of either library
 * that follows them grants what the other grants. Curator's clients sort zklock's own layout
 * (read, write) after all of theirs, however old: beside a Curator client only nodes of
 * Curator's layout are safe. Hence two deciders:
 *   CURATOR  (LockCompatibility.CURATOR) honours every node of either layout;
 *   DEFAULT  honours every node of either layout but refuses while one of Curator's own nodes
 *            (Curator's layout with a uuid zklock did not pick) is in the listing: Curator's
 *            clients would be granted beside ours, and refusing is the only way this client
 *            can say so.
 * Curator's downgrade names its read node after its write node's number (a plain ephemeral
 * node): a read node that ties a write node's sequence number is anchored at it, as if it
 * carried the anchor in its name.
 *
 * Both rules are monotone: removing nodes ahead of ours never adds a write node ahead of ours
 * and never moves ours off the head, so a grant stays a grant.
 *
 * A waiter whose process died (its session alive, its node in place) strands nothing a live
 * waiter could have: every node a waiter watches must go before that waiter can be granted (a
 * writer needs every node ahead gone; a reader needs every blocking write node ahead gone, and
 * it watches the last of them), and grants are only ever told by deletions. So a dead node holds
 * exactly what queue order gives it (the write lock, or a read lease that keeps writers out),
 * until its session ends, as a dead holder would; whoever waits for it would wait for it alive
 * too. Contrast the semaphore, whose waiters move up on the release of any holder, so a waiter
 * watching a dead node could sleep through a free permit (see SemaphoreDriver).
 */
/** The decision of the read-write lock: exclusive for write nodes, shared among read nodes. */
final class ReadWriteDriver implements LockDriver {
    /** The kind of read nodes. */
    static final String READ = "read";
    /** The kind of write nodes. */
    static final String WRITE = "write";

    /** The decider of the default mode: both halves of every such lock decide with it. */
    static final ReadWriteDriver INSTANCE = new ReadWriteDriver(true);
    /** The decider of {@code LockCompatibility.CURATOR}: honours Curator's clients' nodes. */
    static final ReadWriteDriver CURATOR = new ReadWriteDriver(false);

    /** The read half's facts, stated once: read nodes, this driver, one writer at most. */
    static final RecipeDescriptor READ_RECIPE = new RecipeDescriptor(READ, INSTANCE, 1);
    /** The write half's facts, stated once: write nodes, this driver, one holder. */
    static final RecipeDescriptor WRITE_RECIPE = new RecipeDescriptor(WRITE, INSTANCE, 1);
    /** The read half's facts in {@code LockCompatibility.CURATOR}: read nodes, the honouring driver. */
    static final RecipeDescriptor CURATOR_READ_RECIPE = new RecipeDescriptor(READ, CURATOR, 1);
    /** The write half's facts in {@code LockCompatibility.CURATOR}: write nodes, the honouring driver. */
    static final RecipeDescriptor CURATOR_WRITE_RECIPE = new RecipeDescriptor(WRITE, CURATOR, 1);

    /** {@return the read half's facts in the given compatibility} */
    static RecipeDescriptor readRecipe(io.zklock.core.LockCompatibility compatibility) {
        return compatibility == io.zklock.core.LockCompatibility.CURATOR ? CURATOR_READ_RECIPE : READ_RECIPE;
    }

    /** {@return the write half's facts in the given compatibility} */
    static RecipeDescriptor writeRecipe(io.zklock.core.LockCompatibility compatibility) {
        return compatibility == io.zklock.core.LockCompatibility.CURATOR ? CURATOR_WRITE_RECIPE : WRITE_RECIPE;
    }

    private final boolean refusesCurators;

    private ReadWriteDriver(boolean refusesCurators) {
        this.refusesCurators = refusesCurators;
    }

    /** The decider of a lock of the given compatibility: {@link #CURATOR} or {@link #INSTANCE}. */
    static ReadWriteDriver of(io.zklock.core.LockCompatibility compatibility) {
        return compatibility == io.zklock.core.LockCompatibility.CURATOR ? CURATOR : INSTANCE;
    }

    /** Readers hold together: only a writer conflicts with a reader, and everything with a writer. */
    @Override
    public boolean conflicts(LockNode ahead, LockNode ours) {
        return !(ahead.is(READ) && ours.is(READ));
    }

    @Override
    public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
        if (refusesCurators) {
            List<String> curators = curatorsNodes(sorted);
            if (!curators.isEmpty()) {
                return Decision.foreign("Curator's InterProcessReadWriteLock queues on this path (" + String.join(", ", curators)
                        + ") and its clients do not see this client's nodes, so the default mode cannot be safe here;"
                        + " finish the migration first (no Curator client left: zklock status shows whose nodes are"
                        + " whose), or use LockCompatibility.CURATOR while any Curator client uses the path");
            }
        }
        return ours.is(READ) ? decideRead(sorted, ours) : LockDriver.EXCLUSIVE.decide(sorted, ours, maxLeases);
    }

    /** {@return the names of Curator's own read-write nodes in {@code sorted}: a loop, as this runs on every listing} */
    private static List<String> curatorsNodes(List<LockNode> sorted) {
        List<String> names = List.of();
        for (LockNode node : sorted) {
            if (node.curatorsReadWriteNode()) {
                names = names.isEmpty() ? new ArrayList<>() : names;
                names.add(node.name());
            }
        }
        return names;
    }

    /** A reader: granted unless a write node other than its anchor precedes it; else watch the last such. */
    static Decision decideRead(List<LockNode> sorted, LockNode ours) {
        int index = LockDriver.indexOf(sorted, ours);
        for (int i = index - 1; i >= 0; i--) {
            LockNode node = sorted.get(i);
            if (node.is(WRITE) && !isAnchorOf(node, ours)) {
                return Decision.watch(node);
            }
        }
        return Decision.granted();
    }

    /** Whether {@code write} is the write node {@code read} was created under. */
    static boolean isAnchorOf(LockNode write, LockNode read) {
        return read.anchor().isPresent() ? read.anchor().getAsLong() == write.sequence() : read.ties(write);
    }
}
