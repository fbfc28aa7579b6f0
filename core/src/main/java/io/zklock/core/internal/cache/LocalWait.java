package io.zklock.core.internal.cache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.Watches;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/*
 * Overview.
 *
 * The directory check of one local wait (LeaseCache.awaitLocal; see the package's Overview): a thread that wants a node of
 * one-at-a-time kind (a mutex node, a semaphore permit) while every entry of its cache is in
 * use may wait for one of them to close instead of queueing a node, but only while every
 * permit is taken: a free permit must not sit idle while it waits.
 *   1. LIST   getChildren(dir) with a children watch (counted in the session's watch book).
 *             Fewer lock nodes than maxLeases (a permit is free, or about to be), more (a
 *             waiter is queued: a permit handed over locally would go ahead of it), the
 *             directory gone, connection trouble or any other failure: give up (the thread
 *             queues a node as usual, whose path handles every fault). Otherwise, exactly
 *             maxLeases nodes, the wait goes on: every permit is taken, nobody is queued, and
 *             ours are among the holders.
 *   2. WATCH  any event but connection news (a node came or went: a permit may be free, or a
 *             waiter queued, whose ask follows): give up. Connection news: the session's loss
 *             drops the entries, which ends the wait; a reconnection leaves the watch in place
 *             (ZooKeeper re-registers it) or gone with the session (the entries go with it).
 * The wait's end (handed an entry, timed out, given up) removes a registration still confirmed.
 * Serialisation: this object's monitor guards its Watches and its ended flag.
 */
/** The directory check of one local wait for a cached node; see the comment above. */
final class LocalWait {
    private final LockContext context;
    private final Runnable giveUp;
    private final Watches watches;
    private final WatchKey key;
    private final Watcher watcher = this::event;
    private boolean ended;                     // guarded by this

    LocalWait(LockContext context, Runnable giveUp) {
        this.context = context;
        this.giveUp = giveUp;
        this.watches = new Watches(context.monitor().watches(), context.port());
        this.key = WatchKey.children(context.port().serverPath(context.path()));
    }

    /**
     * Waits, with {@code check} running, for a node handed over at a close, for at most
     * {@code boundNanos} (the escalation bound) and until {@code deadline}; null if none came.
     * Timed out, the wait {@code giveUp}s and takes a node handed over meanwhile; interrupted
     * (or the check failed), it gives up and {@code giveOn}s such a node.
     */
    static <T> T await(LocalWait check, CompletableFuture<T> handed, long boundNanos, Deadline deadline, Runnable giveUp,
            Consumer<T> giveOn) throws InterruptedException {
        try {
            check.start();
            // then ZooKeeper, whose node asks by need: a permit another client keeps idle idles no longer
            return handed.get(deadline.isUnbounded() ? boundNanos : Math.min(boundNanos, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            giveUp.run();
            return handed.getNow(null);        // handed over as the wait timed out: take it
        } catch (InterruptedException | RuntimeException e) {
            giveUp.run();
            T late = handed.getNow(null);
            if (late != null) {
                giveOn.accept(late);           // handed over as we were interrupted (or the check failed): give it on
            }
            throw e;
        } catch (ExecutionException impossible) {
            throw new IllegalStateException(impossible);
        } finally {
            check.end();
        }
    }

    /** Step 1. */
    synchronized void start() {
        watches.register(key, () -> context.list(watcher)).whenComplete(this::listed);
    }

    /** The wait ended: a watch still set is removed. */
    synchronized void end() {
        if (!ended) {
            ended = true;
            watches.endAll();
        }
    }

    private void listed(ZkPort.Reply reply, Throwable error) {
        boolean free;
        synchronized (this) {
            watches.answered(error == null ? reply.rc() : null, key, 1);
            free = error != null || !reply.ok() || LockNode.sorted(reply.children()).size() != context.maxLeases();
        }
        if (free) {
            giveUp.run();
        }
    }

    private void event(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        synchronized (this) {
            watches.fired(1, key);
        }
        giveUp.run();
    }
}
