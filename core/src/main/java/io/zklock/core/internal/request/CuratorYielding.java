package io.zklock.core.internal.request;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.zklock.core.LockCompatibility;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.Watches;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.ForeignLayout;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.Watcher;

/*
 * Overview.
 *
 * How a multi-lock (MultiAcquisition) yields to nodes that may be Curator's. Curator's
 * InterProcessMultiLock takes its locks one by one in list order, holding the first while it
 * waits for the next: a transaction's nodes could then hold one of its locks while waiting
 * behind it on another, and the two would wait for each other. So a node of a component in
 * LockCompatibility.CURATOR (a path declared shared with Curator) that would wait behind a node
 * whose uuid zklock did not pick (Curator's, or a default-mode single lock's plain create, see
 * LockNode#zklockMarked) yields instead (YieldingDriver): the round ends as if refused, every
 * node of it is deleted, and the next round starts once that node is gone (waitFor), inside the
 * deadline. The request never holds a node while it waits for a node that may be Curator's, so a
 * Curator multi-lock blocked on one of our nodes always gets it; the cost is a new transaction
 * per such wait, and no place in those queues meanwhile: under a stream of Curator multi-locks
 * that keeps a path held the request may yield round after round until its deadline (no bound
 * but the deadline: a place kept in the queue is exactly what would deadlock). The wait for the
 * blocker leaves no watch behind (waitFor).
 */
/** The yielding of one multi-lock request to nodes that may be Curator's; its rounds are MultiAcquisition's. */
final class CuratorYielding {
    private final ZkPort port;
    private final Deadline deadline;
    private final AcquireTally tally;
    /** The session's watch book (of the request's first lock, as every lock's: one session). */
    private final LockContext first;
    /** The node of a round that one of its nodes yielded to (full path), or null. */
    private final AtomicReference<String> blocker = new AtomicReference<>();
    /** Completed to end a wait for the blocker early (withdrawal). */
    private volatile CompletableFuture<Void> yielding;

    CuratorYielding(List<LockContext> contexts, Deadline deadline, AcquireTally tally) {
        this.first = contexts.get(0);
        this.port = first.port();
        this.deadline = deadline;
        this.tally = tally;
    }

    /** {@code component} as the request's rounds see it: yielding if its path is shared with Curator. */
    LockContext component(LockContext component) {
        return component.compatibility() == LockCompatibility.CURATOR
                ? component.withDriver(new YieldingDriver(component, blocker)) : component;
    }

    /** The node the round that just ended yielded to (full path), or null; cleared for the next round. */
    String takeBlocker() {
        return blocker.getAndSet(null);
    }

    /** The caller withdrew: a wait for a blocker under way ends now. */
    void withdraw() {
        CompletableFuture<Void> waitingForBlocker = yielding;
        if (waitingForBlocker != null) {
            waitingForBlocker.complete(null);
        }
    }

    /**
     * Completes once {@code path} is gone (or changed), the deadline passes or the caller
     * withdraws ({@code withdrawn}, or {@link #withdraw}), and its watch is no longer on the
     * server; the next round then starts (or ends the request). The watch is a getData one, which
     * a node already gone does not leave, and it is counted in the client's watch book, so that a
     * wait that ends before the node goes removes it (unless another waiter of the session shares
     * it): no watch outlives the wait.
     */
    CompletableFuture<Void> waitFor(String path, BooleanSupplier withdrawn) {
        CompletableFuture<Void> gone = new CompletableFuture<>();
        yielding = gone;
        if (withdrawn.getAsBoolean() || deadline.isSingleAttempt()) {
            gone.complete(null);
            return gone;
        }
        if (deadline.needsTimer()) {
            ScheduledFuture<?> timer = Threads.TIMER.schedule(() -> gone.complete(null), deadline.remainingNanos(),
                    TimeUnit.NANOSECONDS);
            gone.whenComplete((v, e) -> timer.cancel(false));
        }
        Watches watches = new Watches(first.monitor().watches(), port);   // used under its own monitor
        WatchKey key = WatchKey.data(port.serverPath(path));
        tally.issued();
        synchronized (watches) {
            watches.register(key, () -> port.data(path, event -> {
                if (event.getType() != Watcher.Event.EventType.None) {
                    synchronized (watches) {
                        watches.fired(0, key);
                    }
                }
                gone.complete(null);           // connection news too: the next round finds out
            })).whenComplete((reply, error) -> {
                synchronized (watches) {
                    watches.answered(error == null ? reply.rc() : null, key, 0);
                }
                if (error != null || !reply.ok()) {
                    gone.complete(null);       // gone already, or unknown: the next round finds out
                }
            });
        }
        return gone.thenCompose(v -> {
            synchronized (watches) {
                return watches.endAll();
            }
        });
    }

    /**
     * A component's driver that yields where the component's node would wait behind a node whose
     * uuid zklock did not pick: the round is refused, and the blocker remembered. It keeps the
     * default grantsStandAsNodesGoAndQueueBehind (false): a trial decision on a deletion would
     * remember a blocker as a side effect.
     */
    private record YieldingDriver(LockContext component, AtomicReference<String> blocker) implements LockDriver {
        @Override
        public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
            Decision decision = component.driver().decide(sorted, ours, maxLeases);
            for (LockNode node : decision.nodesToWatch()) {
                if (!node.zklockMarked()) {
                    blocker.compareAndSet(null, component.path() + "/" + node.name());
                    return Decision.refuse("a multi-lock does not wait behind " + node.name()
                            + ", which may be Curator's (it would hold its other locks meanwhile)");
                }
            }
            return decision;
        }

        @Override
        public boolean announcesGrants() {
            return component.driver().announcesGrants();
        }

        @Override
        public boolean conflicts(LockNode ahead, LockNode ours) {
            return component.driver().conflicts(ahead, ours);
        }

        @Override
        public ForeignLayout foreignLayout() {
            return component.driver().foreignLayout();
        }
    }
}
