package io.zklock.core.internal.lease;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.RevocationRequest;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.TreeWatch;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.Watches;
import io.zklock.core.internal.zk.ZkPort;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * A lease that opted in to revocation watches its own node's data for a RevocationRequest
 * (written by LockAdmin; never a delete); so does a node a lease cache keeps (its Keeper), for
 * a waiter's ask. Repeatedly, while the lease lives:
 *   1. READ    getData(our node) with a data watch, counted in the session's watch book (a
 *              waiter of this session that watches our node and gives up then cannot remove it).
 *              A watch a keeper started is routed through the client's TreeWatch first: where
 *              the server has persistent recursive watches, the root's one watch covers the
 *              node and the read leaves no watch of its own (COVERED); otherwise as above. A
 *              node covered since its create's reply and untouched since (TreeWatch, FRESH)
 *              holds the data it was created with, which carries no request and no ask: no read.
 *   2. DECIDE  the data carries a request seen for the first time: tell every handler once;
 *              it carries an ask (NodeData.askedBack) or a request, and the keeper was not told
 *              yet: tell it
 *              (what an ask means is the cache's, see io.zklock.core.internal.cache). Each on a
 *              library thread (never ZooKeeper's event thread); keep watching (the holder may
 *              not let go, and a forced deletion must still reach it). The node is gone: stop.
 *              Connection trouble: READ again when the session reconnects.
 *   3. WAIT    for the watch: a data change tells the keeper at once, before the read (any write
 *              into a kept node is an ask or a request; the node's own grant notice is sent
 *              before the watch's first read on the same session, so it fires no event here),
 *              then 1; so does a removal of the shared watch. The node's deletion: stop, and
 *              tell the lease, which turns LOST unless it is being released (an operator's
 *              forced revocation deletes the node of a holder).
 * The watch's state is one value (Watch: its phase, the read's step, the request seen, whether
 * the keeper was told). One registration at a time. A request written while the client was
 * disconnected fires the watch when it reconnects (ZooKeeper re-registers watches with the last
 * zxid seen), and a read that failed is made again on reconnection: a holder that reconnects
 * sees a pending request. A covered node is read again at every reconnection, since a
 * persistent watch does not replay what it missed. When the lease ends, a registration still
 * confirmed is removed, and a route ended.
 */
/** The revocation watch of one lease; see the comment above. */
final class RevocationWatch {
    private static final Logger LOG = LoggerFactory.getLogger(RevocationWatch.class);

    /** Where the watch is: not started (no handler, no keeper yet), reading, watching, cut off, ended. */
    private enum Phase { IDLE, READING, WATCHING, DISCONNECTED, ENDED }

    /** The watch's one state value: its phase, the step of its last read, the request seen, whether an ask was seen. */
    private record Watch(Phase phase, int step, RevocationRequest request, boolean asked) {
        Watch in(Phase next) {
            return new Watch(next, step, request, asked);
        }
    }

    private final LockContext context;
    private final Lease lease;
    private final Runnable deletedUnderUs;
    private final WatchKey key;
    private final Watches watches;
    private final Watcher watcher = this::event;
    private final List<Consumer<? super Lease>> handlers = new CopyOnWriteArrayList<>();
    private volatile Keeper keeper;            // set once, under this
    private TreeWatch tree;                    // guarded by this; set at the start if a keeper started the watch

    private Watch state = new Watch(Phase.IDLE, 0, null, false);   // guarded by this

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

    /** Adds a handler; the first handler or keeper starts the watch. A request already seen is told at once. */
    void add(Consumer<? super Lease> handler) {
        RevocationRequest seen;
        synchronized (this) {
            seen = state.request();
            if (state.phase() == Phase.ENDED && seen == null) {
                return;                        // the lease ended before any request
            }
            handlers.add(handler);
            startIfIdle();
        }
        if (seen != null) {
            tell(handler, seen);
        }
    }

    /** Sets the keeper (once); the first handler or keeper starts the watch. An ask already seen is told at once. */
    void keep(Keeper keeper) {
        boolean seen;
        synchronized (this) {
            seen = state.asked();
            if (state.phase() == Phase.ENDED && !seen) {
                return;
            }
            this.keeper = keeper;
            startIfIdle();
        }
        if (seen) {
            Threads.COMPLETION.execute(keeper::askedBack);
        }
    }

    private void startIfIdle() {
        if (state.phase() == Phase.IDLE) {
            tree = keeper != null ? TreeWatch.of(context.monitor(), context.port()) : null;   // a kept node: the client's tree watch
            read();
        }
    }

    /** The session reconnected: a read that failed is made again. */
    synchronized void reconnected() {
        if (state.phase() == Phase.DISCONNECTED || state.phase() == Phase.WATCHING && tree != null) {
            read();                            // a tree watch does not replay what was missed meanwhile
        }
    }

    /** The lease ended: no more reads, and the watch is removed if it is still set. */
    synchronized void end() {
        if (state.phase() != Phase.ENDED) {
            state = state.in(Phase.ENDED);
            watches.endAll();
            if (tree != null) {
                tree.unroute(key.path());
            }
        }
    }

    private void read() {
        int s = state.step() + 1;
        state = new Watch(Phase.READING, s, state.request(), state.asked());
        if (tree == null) {
            readWatching(s);
        } else {
            tree.route(key.path(), watcher).whenComplete((cover, error) -> routed(cover, s));
        }
    }

    /** A read that leaves a data watch on the node. Under the monitor. */
    private void readWatching(int s) {
        watches.register(key, () -> context.port().data(lease.nodePath(), watcher))
                .whenComplete((reply, error) -> answered(reply, error, s, true));
    }

    /** The client's tree watch answered how the node is watched (it may answer within read()): read it, with a watch if it is not covered. */
    private synchronized void routed(TreeWatch.Cover cover, int s) {
        if (state.phase() != Phase.READING || s != state.step()) {
            return;
        }
        if (cover == TreeWatch.Cover.COVERED && tree.untouched(key.path())) {
            state = state.in(Phase.WATCHING);  // as created: no request, no ask; what comes from now on reaches the route
        } else if (cover == TreeWatch.Cover.COVERED) {
            context.port().data(lease.nodePath(), null).whenComplete((reply, error) -> answered(reply, error, s, false));
        } else if (cover == TreeWatch.Cover.UNSUPPORTED) {
            readWatching(s);                   // the node's own data watch; the route stays until the end, unused
        } else {
            answered(new ZkPort.Reply(KeeperException.Code.CONNECTIONLOSS, null, null, null, null, null), null, s, false);   // unknown: as a lost read
        }
    }

    private void answered(ZkPort.Reply reply, Throwable error, int s, boolean watched) {
        List<Consumer<? super Lease>> toTell = List.of();
        Keeper askToTell = null;
        RevocationRequest found = null;
        boolean gone = false;
        synchronized (this) {
            if (watched) {
                watches.answered(error == null ? reply.rc() : null, key, s);
            }
            if (state.phase() != Phase.READING || s != state.step()) {
                return;
            }
            if (error != null || reply.connectionTrouble()) {
                state = state.in(Phase.DISCONNECTED);   // read again on reconnection
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
                found = state.request() == null ? NodeData.revocationRequest(reply.data()).orElse(null) : null;
                toTell = found == null ? List.of() : List.copyOf(handlers);
                RevocationRequest request = found != null ? found : state.request();
                boolean ask = !state.asked() && asks(request, reply.data());
                askToTell = ask ? keeper : null;
                state = new Watch(Phase.WATCHING, s, request, state.asked() || ask);   // for a request, then the deletion
            }
        }
        RevocationRequest seen = found;
        toTell.forEach(handler -> tell(handler, seen));
        tellKeeper(askToTell);
        if (gone) {
            deletedUnderUs.run();
        }
    }

    /**
     * Whether a read's data lets a kept node go: an ask, or a request (one written before the
     * watch was set, or while the read was on its way, when its event is not acted on, is heard
     * only by the read).
     */
    private static boolean asks(RevocationRequest request, byte[] data) {
        return request != null || NodeData.askedBack(data);
    }

    private void event(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return;                            // connection news: reconnected() takes it from here
        }
        Keeper askToTell = null;
        synchronized (this) {
            watches.fired(state.step());
            if (state.phase() != Phase.WATCHING) {
                return;
            }
            if (event.getType() != Watcher.Event.EventType.NodeDeleted) {
                if (event.getType() == Watcher.Event.EventType.NodeDataChanged && !state.asked() && keeper != null) {
                    askToTell = keeper;        // any write into a kept node means "let it go": no need to wait for the read
                    state = new Watch(state.phase(), state.step(), state.request(), true);
                }
                read();                        // the data changed, or a waiter removed the shared watch
            } else {
                end();
            }
        }
        tellKeeper(askToTell);
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            deletedUnderUs.run();
        }
    }

    private static void tellKeeper(Keeper keeper) {
        if (keeper != null) {
            Threads.COMPLETION.execute(keeper::askedBack);
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
