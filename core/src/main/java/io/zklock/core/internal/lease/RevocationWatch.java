package io.zklock.core.internal.lease;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.RevocationRequest;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.Watches;
import io.zklock.core.internal.zk.ZkPort;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * A lease that opted in to revocation watches its own node's data for a RevocationRequest
 * (written by LockAdmin; never a delete). Repeatedly, while the lease lives:
 *   1. READ    getData(our node) with a data watch, counted in the session's watch book (a
 *              waiter of this session that watches our node and gives up then cannot remove it).
 *   2. DECIDE  the data carries a request seen for the first time: tell every handler once,
 *              and a waiter's ask-back (a cached node's) seen for the first time: tell the
 *              ask listeners (the lease cache) once, on a library thread, never the handlers;
 *              the ask listeners are told at the data event already (3), before this read:
 *              any write into a node that has ask listeners (a cached node) means "let it
 *              go" (a waiter's ask, an operator's request; the node's own grant notice is sent
 *              before the watch's first read on the same session, so it fires no event here;
 *              a retried one, or a foreign write, only costs the cache that node);
 *              each on a library thread (never ZooKeeper's event thread), and keep watching (the
 *              holder may not let go, and a forced deletion must still reach it); the node is
 *              gone: stop; connection trouble: READ again when the session reconnects.
 *   3. WAIT    for the watch: a data change (a request, or the grant announcement of a
 *              semaphore node) or a removal of the shared watch: 1. The node's deletion: stop,
 *              and tell the lease, which turns LOST unless it is being released (an operator's
 *              forced revocation deletes the node of a holder).
 * One registration at a time. A request written while the client was disconnected fires the
 * watch when it reconnects (ZooKeeper re-registers watches with the last zxid seen), and a
 * read that failed is made again on reconnection: a holder that reconnects sees a pending
 * request. When the lease ends, a registration still confirmed is removed.
 */
/** The revocation watch of one lease; see the comment above. */
final class RevocationWatch {
    private static final Logger LOG = LoggerFactory.getLogger(RevocationWatch.class);

    private enum State { READING, WATCHING, DISCONNECTED, ENDED }

    private final LockContext context;
    private final Lease lease;
    private final Runnable deletedUnderUs;
    private final WatchKey key;
    private final Watches watches;
    private final Watcher watcher = this::event;
    private final List<Consumer<? super Lease>> handlers = new CopyOnWriteArrayList<>();
    private final List<Runnable> askListeners = new CopyOnWriteArrayList<>();

    // guarded by this
    private State state = State.READING;
    private int step;
    private RevocationRequest request;
    private boolean started;                   // the first handler or ask listener started the reads
    private boolean askedBack;

    /**
     * @param deletedUnderUs told, on the event thread, when the watch finds the node gone; the
     *                       lease tells a deletion by another client from its own release
     */
    RevocationWatch(LockContext context, Lease lease, Runnable deletedUnderUs) {
        this.context = context;
        this.lease = lease;
        this.deletedUnderUs = deletedUnderUs;
        this.key = WatchKey.data(context.port().serverPath(lease.nodePath()));
        this.watches = new Watches(context.monitor().watches(), context.port());
    }

    /** Adds a handler; the first one starts the watch. A request already seen is told at once. */
    void add(Consumer<? super Lease> handler) {
        boolean first;
        RevocationRequest seen;
        synchronized (this) {
            seen = request;
            if (state == State.ENDED && seen == null) {
                return;                        // the lease ended before any request
            }
            first = !started;
            handlers.add(handler);
            if (first && seen == null) {
                started = true;
                read();
            }
        }
        if (seen != null) {
            tell(handler, seen);
        }
    }

    /**
     * Adds a listener of waiters' ask-backs (the lease cache's); the first listener of any kind
     * starts the watch. An ask already seen is told at once.
     */
    void addAskListener(Runnable listener) {
        boolean seen;
        synchronized (this) {
            seen = askedBack;
            if (state == State.ENDED && !seen) {
                return;
            }
            askListeners.add(listener);
            if (!started && !seen) {
                started = true;
                read();
            }
        }
        if (seen) {
            Threads.COMPLETION.execute(listener);
        }
    }

    /** The session reconnected: a read that failed is made again. */
    synchronized void reconnected() {
        if (state == State.DISCONNECTED) {
            read();
        }
    }

    /** The lease ended: no more reads, and the watch is removed if it is still set. */
    synchronized void end() {
        if (state != State.ENDED) {
            state = State.ENDED;
            watches.endAll();
        }
    }

    private void read() {
        state = State.READING;
        int s = ++step;
        watches.register(key, () -> context.port().data(lease.nodePath(), watcher))
                .whenComplete((reply, error) -> answered(reply, error, s));
    }

    private void answered(ZkPort.Reply reply, Throwable error, int s) {
        List<Consumer<? super Lease>> toTell = List.of();
        List<Runnable> asksToTell = List.of();
        RevocationRequest found = null;
        boolean gone = false;
        synchronized (this) {
            watches.answered(error == null ? reply.rc() : null, key, s);
            if (state != State.READING || s != step) {
                return;
            }
            if (error != null || reply.connectionTrouble()) {
                state = State.DISCONNECTED;    // read again on reconnection
                if (error != null || !context.port().isConnected()) {
                    return;
                }
                read();                        // a reply of trouble while connected: the client has reconnected
            } else if (reply.noNode()) {
                end();
                gone = true;
            } else if (!reply.ok()) {
                LOG.warn("cannot watch {} for revocation requests ({}); the holder will not hear of them", lease.nodePath(), reply.rc());
                end();
            } else {
                state = State.WATCHING;        // for a request, and after it for the node's deletion
                if (request == null) {
                    request = NodeData.revocationRequest(reply.data()).orElse(null);
                    found = request;
                    toTell = request == null ? List.of() : List.copyOf(handlers);
                }
                if (!askedBack && NodeData.askedBack(reply.data())) {
                    askedBack = true;
                    asksToTell = List.copyOf(askListeners);
                }
            }
        }
        RevocationRequest seen = found;
        toTell.forEach(handler -> tell(handler, seen));
        asksToTell.forEach(Threads.COMPLETION::execute);
        if (gone) {
            deletedUnderUs.run();
        }
    }

    private void event(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return;                            // connection news: reconnected() takes it from here
        }
        List<Runnable> asksToTell = List.of();
        synchronized (this) {
            watches.fired(step);
            if (state != State.WATCHING) {
                return;
            }
            if (event.getType() != Watcher.Event.EventType.NodeDeleted) {
                if (event.getType() == Watcher.Event.EventType.NodeDataChanged && !askedBack && !askListeners.isEmpty()) {
                    askedBack = true;          // any write into a cached node means "let it go": no need to wait for the read
                    asksToTell = List.copyOf(askListeners);
                }
                read();                        // the data changed, or a waiter removed the shared watch
            } else {
                end();
            }
        }
        asksToTell.forEach(Threads.COMPLETION::execute);
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            deletedUnderUs.run();
        }
    }

    private void tell(Consumer<? super Lease> handler, RevocationRequest seen) {
        LOG.info("revocation of {} requested by {} at {}", lease.nodePath(), seen.requestedBy(), seen.requestedAt());
        Threads.COMPLETION.execute(() -> {
            if (ZkLease.isFinal(lease.state())) {
                return;                        // released or lost since the request was seen
            }
            try {
                handler.accept(lease);
            } catch (RuntimeException e) {
                LOG.warn("a revocation handler of {} threw; ignored", lease.nodePath(), e);
            }
        });
    }
}
