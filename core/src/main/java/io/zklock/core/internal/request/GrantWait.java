package io.zklock.core.internal.request;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.zklock.core.LockException;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.cache.AskBack;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.Watches;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * The wait for the grant of one node that exists (a QueuedNode): its steps run under the request's RequestLock, it calls
 * ZooKeeper only through the ZkPort, and it ends once, with a WaitEnd (Granted, NodeLost) or a failure. Repeatedly:
 *   1. LIST     getChildren(dir), leaving a children watch when the driver last asked to watch the directory. The first
 *               listing may be the create's own, sent right behind it (not showing our node, it means "list again"), or
 *               the children sequence-gap inference vouched for (a grant on them is final; else list).
 *   2. DECIDE   on the children less this session's released nodes whose delete waits for the reconnection (ListedQueue).
 *               Our node missing, or not the client's session's: NodeLost. The driver grants: Granted. It refuses:
 *               IllegalStateException (a misuse), or LockException (FOREIGN: Curator's participants it cannot be safe
 *               beside; also a directory of its ForeignLayout with nodes zklock did not write: ForeignLayoutCheck, a
 *               request more). Else the cached nodes ahead that conflict with ours are asked back (AskBack), and: past
 *               the deadline (or a zero timeout's one attempt): TimeoutException; else 3.
 *   3. WATCH    getData(each node the driver names: one, or two) with a watcher, all in one step. NoNode, or data already
 *               changed (its grant announced: GrantAnnouncements), on any of them: 1 at once. Otherwise wait for the first
 *               event on any (a watch left on the other is only bookkept): 1, or 2 with no listing on the last queue less the
 *               one node watched when it goes (ListedQueue). A directory decision waits on its listing's children watch,
 *               unless heard (DIR). Cached nodes are not read where the client has a tree watch, nor other nodes where it
 *               covers the root, nor cached nodes whose holders hear creations, nor a counted directory of cached nodes
 *               listed: the watch hears them go, and the wait decides (2) on it, or lists (HeardWait).
 * With a lock-delay, every listing's Stat also counts deletions nobody marked; a grant while any are counted ends the wait
 * only once the delay has passed (LockDelayWait). A call failing on the connection backs off and is issued again, or at
 * once when the session monitor reports the connection back (kick); a wait whose watches (3) were all answered looks again
 * only on a new session (on the same one ZooKeeper sets them again). A reply of an older step only does watch bookkeeping.
 */
final class GrantWait {
    private static final Logger LOG = LoggerFactory.getLogger(GrantWait.class);
    private enum State { LISTING, CHECKING, WATCHING, BACKOFF, ENDED }

    private final LockContext context;
    private final QueuedNode node;
    private final Deadline deadline;
    private final RequestLock lock;
    private final Watches watches;
    private final PendingRetry retry;
    private final AcquireTally tally;
    private final AskBack askBack;
    private final LockDelayWait delay;
    private final ListedQueue queue;
    private final HeardWait heard;
    final CompletableFuture<WaitEnd> result = new CompletableFuture<>();   // completed outside the lock, once

    // guarded by lock
    private State state = State.LISTING;
    private int step;
    private boolean watchDirectory;        // the last decision was WATCH_DIRECTORY
    private final GrantAnnouncements announcements = new GrantAnnouncements();
    private List<String> watched = List.of();  // the paths of the last WATCH step

    GrantWait(LockContext context, QueuedNode node, byte[] ownerData, Deadline deadline, RequestLock lock, AcquireTally tally) {
        this.context = context;
        this.tally = tally;
        this.node = node;
        this.deadline = deadline;
        this.lock = lock;
        this.watches = new Watches(context.monitor().watches(), context.port());
        this.retry = new PendingRetry(lock);
        this.askBack = new AskBack(context, node.node(), lock::run);
        this.delay = new LockDelayWait(context, node, ownerData, lock, tally);
        this.queue = new ListedQueue(context, node);
        this.heard = new HeardWait(context, node, lock, queue, tally.observed());
    }

    /** Step 1 for the first time; call from a step of the request. */
    void start() {
        if (node.known() instanceof QueuedNode.Known.Vouched vouched) {
            queue.grantedAtSight(vouched.children(), tally).ifPresentOrElse(this::end, () -> list(false));
        } else if (node.known() instanceof QueuedNode.Known.FirstListing first) {
            int s = ++step;
            first.listing().whenComplete((reply, error) -> lock.run(() -> listed(reply, error, s, null, true)));
        } else {
            list(false);                       // Known.Nothing
        }
    }

    /** The connection came back on {@code session} (0: the session was lost): look again, unless set watching on the node's session. */
    void kick(long session) {
        lock.run(() -> {
            queue.forget();                    // a deletion told after connection news lists
            if (state == State.BACKOFF) {
                retry.runNow();
            } else if (state != State.ENDED && (state != State.WATCHING || heard.listening() || session != node.session()
                    || watches.anyInFlight())) {
                list(watchDirectory);
            }
        });
    }

    /** Ends the wait (its owner gives up, or moves on after NodeLost); done once its watch registrations are removed. */
    CompletableFuture<Void> stop() {
        end();
        return watches.endAll();
    }

    // ---- 1. list ----------------------------------------------------------------------------

    private void list(boolean watch) {
        state = State.LISTING;
        int s = ++step;
        tally.issued();
        if (!watch) {
            context.list(null).whenComplete((reply, error) -> lock.run(() -> listed(reply, error, s, null, false)));
            return;
        }
        WatchKey key = WatchKey.children(context.port().serverPath(context.path()));
        Watcher watcher = event -> lock.run(() -> watchEvent(event, s, key));
        watches.register(key, () -> context.list(watcher))
                .whenComplete((reply, error) -> lock.run(() -> listed(reply, error, s, key, false)));
    }

    /** A listing's reply; {@code first}: the create's, which does not show our node only when we must list again. */
    private void listed(ZkPort.Reply reply, Throwable error, int s, WatchKey key, boolean first) {
        if (key != null) {
            watches.answered(error == null ? reply.rc() : null, key, s);
        }
        if (state == State.ENDED || s != step) {
            return;
        }
        if (first && error == null && (reply.noNode() || reply.ok() && !reply.children().contains(node.node().name()))) {
            list(false);                       // never NodeLost on a listing not known to follow the create
        } else if (error != null) {
            fail(context.refused("list of " + context.path(), error));
        } else if (reply.noNode()) {
            end(new WaitEnd.NodeLost("lock directory " + context.path() + " vanished"));
        } else if (!reply.ok()) {
            failedCall(reply.rc(), "list of " + context.path(), () -> list(watchDirectory));
        } else {
            retry.succeeded();
            delay.listed(reply.stat());
            List<String> shown = context.driver().foreignLayout().shownIn(reply.children());
            if (shown.isEmpty()) {
                decide(queue.sorted(reply.children()), key != null);
            } else {
                checkForeignLayout(shown, reply.children(), key != null, s);
            }
        }
    }

    /** Step 2 on a listing that shows another library's directories: decide only if they hold none of its nodes. */
    private void checkForeignLayout(List<String> shown, List<String> children, boolean directoryWatched, int s) {
        state = State.CHECKING;                // an event of the listing's children watch meanwhile lists again
        ForeignLayoutCheck.read(context, shown, tally).thenAccept(found -> lock.run(() -> {
            if (state != State.CHECKING || s != step) {
                return;                        // a kick or the directory watch moved on
            }
            if (found.failure() != null) {
                failedCall(found.failure(), "list below " + context.path(), () -> list(watchDirectory));
            } else if (!found.foreign().isEmpty()) {
                fail(ForeignLayoutCheck.refusal(context, found.foreign()));
            } else {
                decide(queue.sorted(children), directoryWatched);
            }
        }));
    }

    // ---- 2. decide --------------------------------------------------------------------------

    private void decide(List<LockNode> sorted, boolean directoryWatched) {
        long session = context.port().sessionId();
        var lost = queue.lost(sorted, session);
        if (lost.isPresent()) {
            end(lost.get());
            return;
        }
        if (session == 0) {
            failedCall(KeeperException.Code.CONNECTIONLOSS, "list of " + context.path(), () -> list(watchDirectory));
            return;
        }
        Decision decision = context.driver().decide(sorted, node.node(), context.maxLeases());
        queue.decided(sorted, decision);
        tally.decided(sorted, node.node());
        if (LOG.isDebugEnabled()) {            // its arguments cost a scan of the queue and an array
            LOG.debug("{} at {} of {} in {}: {}", node.node().name(), sorted.indexOf(node.node()), sorted.size(), context.path(), decision);
        }
        watchDirectory = decision.verdict() == Decision.Verdict.WATCH_DIRECTORY;
        switch (decision.verdict()) {
            case GRANTED -> delay.granted(sorted, this::end);
            case REFUSED -> fail(new IllegalStateException("lock " + context.path() + ": " + decision.refusal()));
            case FOREIGN -> fail(new LockException("lock " + context.path() + ": " + decision.refusal()));
            case WATCH_NODE, WATCH_DIRECTORY -> waitFor(decision, sorted, directoryWatched);
        }
    }

    /** Asks back the cached nodes ahead that keep us waiting, then 3 on the nodes named or the directory. */
    private void waitFor(Decision decision, List<LockNode> sorted, boolean directoryWatched) {
        askBack.ask(sorted);
        if (deadline.hasExpired()) {
            fail(context.timedOut());
        } else if (decision.verdict() == Decision.Verdict.WATCH_NODE) {
            watch(decision.pathsToWatch(context.path()));
        } else if (heard.mayHearDirectory(sorted)) {
            state = State.WATCHING;            // HEAR (DIR): the tree watch tells when another node goes
            int s = ++step;
            if (!heard.hearsDirectory(sorted, counted -> heardOf(counted, s))) {
                list(true);
            }
        } else if (directoryWatched) {
            state = State.WATCHING;            // this very listing left the children watch
        } else {
            list(true);
        }
    }

    // ---- 3. watch ---------------------------------------------------------------------------

    private void watch(List<String> paths) {
        state = State.WATCHING;
        int s = ++step;
        watched = paths;
        if (heard.hears(paths, counted -> heardOf(counted, s))) {
            return;                            // HEAR: the client's tree watch tells when they go
        }
        announcements.watching(paths);
        for (String path : paths) {
            tally.issued();
            WatchKey key = WatchKey.data(context.port().serverPath(path));
            Watcher watcher = event -> lock.run(() -> watchEvent(event, s, key));
            watches.register(key, () -> context.port().data(path, watcher))
                    .whenComplete((reply, error) -> lock.run(() -> watchSet(reply, error, key, path, s)));
        }
    }

    /** HEAR: a node waited on went, or the watch can no longer tell (null): decide on {@code counted}, or list. */
    private void heardOf(List<LockNode> counted, int s) {
        if (state == State.WATCHING && s == step && counted != null) {
            decide(counted, false);
        } else if (state == State.WATCHING && s == step) {
            list(watchDirectory);
        }
    }

    private void watchSet(ZkPort.Reply reply, Throwable error, WatchKey key, String path, int s) {
        watches.answered(error == null ? reply.rc() : null, key, s);
        if (state != State.WATCHING || s != step) {
            return;                            // ended, or the other watch of this step moved on
        }
        if (error != null) {
            fail(context.refused("watch of " + key.path(), error));
        } else if (reply.noNode()) {
            list(watchDirectory);              // it went before the watch was set
        } else if (!reply.ok()) {
            failedCall(reply.rc(), "watch of " + key.path(), () -> list(watchDirectory));
        } else if (announcements.fresh(context, path, reply)) {
            list(watchDirectory);              // it announced its grant before our watch was set
        } else {
            queue.watchSet(reply.stat());      // a node of our own session: its deletion lists (see ListedQueue)
            tally.waitsBehind(path, reply.data());   // the watch is set: watchEvent takes it from here
        }
    }

    /*
     * Any event but a connection event wakes us, a removal included: while we wait, a removal means another waiter
     * of this session removed the shared server watch (a retried removal can land after our registration): look again.
     */
    private void watchEvent(WatchedEvent event, int s, WatchKey key) {
        if (event.getType() == Watcher.Event.EventType.None) {
            queue.forget();                    // connection news: a deletion told after it lists
            if (event.getState() == Watcher.Event.KeeperState.Closed && context.port().isClosed() && state != State.ENDED) {
                fail(context.clientClosed());   // a namespace facade's monitor hears no CLOSING of its own
            }
            return;                            // other connection news: the session monitor kicks us
        }
        watches.fired(s, key);
        if ((state == State.WATCHING || state == State.CHECKING) && s == step) {
            List<LockNode> less = state == State.WATCHING ? queue.grantedOnDeletion(event) : null;
            if (less != null) {
                decide(less, false);           // the one node watched went, and what was ahead of it grants: no listing
            } else if (event.getType() == Watcher.Event.EventType.NodeDataChanged && !watchDirectory && !context.driver().announcesGrants()) {
                watch(watched);                // a write into a node ahead (our own ask of it, say) changes no decision: watch again
            } else {
                list(watchDirectory);
            }
        }
    }

    // ---- connection trouble and endings -----------------------------------------------------

    /** A call failed: back off and retry if the error is one of the connection's, else fail. */
    private void failedCall(KeeperException.Code rc, String what, Runnable again) {
        if (retry.afterFailure(context, deadline, rc, what, again, this::fail)) {
            state = State.BACKOFF;
        }
    }

    private void end(WaitEnd end) {
        if (end()) {
            lock.later(() -> result.complete(end));
        }
    }

    private void fail(Throwable reason) {
        if (end()) {
            lock.later(() -> result.completeExceptionally(reason));
        }
    }

    /** Moves to ENDED; false if it already was. */
    private boolean end() {
        if (state == State.ENDED) {
            return false;
        }
        state = State.ENDED;
        retry.cancel();
        askBack.stop();
        delay.stop();
        heard.stop();
        return true;
    }
}
