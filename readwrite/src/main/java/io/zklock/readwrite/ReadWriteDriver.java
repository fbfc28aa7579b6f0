package io.zklock.readwrite;

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

    /** The one instance: both halves of every lock decide with it. */
    static final ReadWriteDriver INSTANCE = new ReadWriteDriver();

    /** The read half's facts, stated once: read nodes, this driver, one writer at most. */
    static final RecipeDescriptor READ_RECIPE = new RecipeDescriptor(READ, INSTANCE, 1);
    /** The write half's facts, stated once: write nodes, this driver, one holder. */
    static final RecipeDescriptor WRITE_RECIPE = new RecipeDescriptor(WRITE, INSTANCE, 1);

    private ReadWriteDriver() {
    }

    /**
     * Decides {@code ours} by its kind: a read node by {@link #decideRead}, any other node
     * (write, or a foreign kind shown by {@code participants()}) as an exclusive one.
     */
    /** Readers hold together: only a writer conflicts with a reader, and everything with a writer. */
    @Override
    public boolean conflicts(LockNode ahead, LockNode ours) {
        return !(ahead.is(READ) && ours.is(READ));
    }

    @Override
    public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
        return ours.is(READ) ? decideRead(sorted, ours) : LockDriver.EXCLUSIVE.decide(sorted, ours, maxLeases);
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
        return read.anchor().isPresent() && read.anchor().getAsLong() == write.sequence();
    }
}
