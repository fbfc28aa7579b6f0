package io.zklock.core.internal.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.ForeignLayout;
import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * What a listing of the lock directory shows one waiting node, before its driver decides
 * (GrantWait's step 2). The queue is the children in queue order less this session's nodes whose
 * lease was released and whose delete is pending (a close while cut off): nobody holds them, and
 * waiting for them would only wait for the reconnection's delete. Other clients still see them,
 * which only makes them wait. The node is lost when the queue no longer shows it, or when it
 * belongs to a session that is no longer the client's. Children the directory view vouched for
 * after an inferring create grant the node at sight only if it is the client's, shows no directory
 * of the driver's ForeignLayout, and the driver grants on them; anything else lists.
 *
 * A decision that watches one node ahead keeps its queue, for a driver whose grants stand as
 * nodes go and others queue behind (LockDriver.grantsStandAsNodesGoAndQueueBehind), with no
 * foreign layout to look for and no lock-delay (which counts deletions in a listing's Stat).
 * When that node is heard deleted, the queue less it is what a listing at the deletion would
 * show ahead of ours, or more: ZooKeeper tells the deletion only to a live session, whose waiting
 * node the library deletes only when the wait has ended, nodes created since queue behind ours,
 * and a node ahead that went meanwhile only keeps the decision from granting. A grant on it is
 * final with no listing; anything else lists, as do a deletion told after connection news
 * (ZooKeeper sets a session's watches again on reconnecting) and the deletion of a node of our
 * own session (a release in this client: its delete's reply comes after the event, and the
 * listing's after that, so the released lease is told RELEASED before ours is granted). A waiting
 * node deleted by hand (an operator's zkCli) is not seen this way: the waiter is granted on a
 * node that is gone, as a holder is whose node is deleted by hand.
 */
/** The queue a listing shows one waiting node; see {@link GrantWait}. */
final class ListedQueue {
    private static final Logger LOG = LoggerFactory.getLogger(ListedQueue.class);

    private final LockContext context;
    private final QueuedNode node;

    // guarded by the request's lock
    /** The queue of the last decision, while it watches one node ahead that may grant on its deletion; else null. */
    private List<LockNode> watchedFrom;
    private LockNode watched;

    ListedQueue(LockContext context, QueuedNode node) {
        this.context = context;
        this.node = node;
    }

    /** The driver decided {@code decision} on {@code sorted}: kept if it watches one node whose deletion may grant. */
    void decided(List<LockNode> sorted, Decision decision) {
        List<LockNode> ahead = decision.nodesToWatch();
        boolean keep = ahead.size() == 1 && context.driver().grantsStandAsNodesGoAndQueueBehind() && !context.lockDelay().isOn()
                && context.driver().foreignLayout() == ForeignLayout.NONE;
        watchedFrom = keep ? sorted : null;
        watched = keep ? ahead.get(0) : null;
    }

    /** The watch on the node ahead is set, {@code stat} its node's: one of our own session's lists on its deletion. */
    void watchSet(Stat stat) {
        if (stat == null || stat.getEphemeralOwner() == node.session()) {
            forget();
        }
    }

    /** Connection news: a deletion told after it lists (ZooKeeper sets a session's watches again on reconnecting). */
    void forget() {
        watchedFrom = null;
    }

    /**
     * {@return the queue to decide on with no listing after {@code event}: the last decision's
     * less its watched node, if the event is that node's deletion and the driver grants ours on
     * it; else null (list)}
     */
    List<LockNode> grantedOnDeletion(WatchedEvent event) {
        List<LockNode> from = watchedFrom;
        if (from == null || event.getType() != Watcher.Event.EventType.NodeDeleted || event.getPath() == null
                || !event.getPath().endsWith("/" + watched.name())) {
            return null;
        }
        watchedFrom = null;
        List<LockNode> less = new ArrayList<>(from);
        less.remove(watched);
        return context.driver().decide(less, node.node(), context.maxLeases()).getsTheLock() ? less : null;
    }

    /** {@code children} in queue order, less this session's released nodes whose delete is pending (but ours). */
    List<LockNode> sorted(List<String> children) {
        return filtered(LockNode.sorted(children));
    }

    /** {@code sorted} (lock nodes in queue order) less this session's released nodes whose delete is pending (but ours). */
    List<LockNode> filtered(List<LockNode> sorted) {
        if (!context.monitor().anyReleasing()) {
            return sorted;
        }
        return sorted.stream()
                .filter(n -> n.equals(node.node())
                        || !context.monitor().isReleasing(context.port().serverPath(NodePaths.child(context.path(), n.name())), node.session()))
                .toList();
    }

    /** Why the node will never be granted, if {@code sorted} shows so while the client is on {@code session} (0: none now). */
    Optional<WaitEnd.NodeLost> lost(List<LockNode> sorted, long session) {
        if (!sorted.contains(node.node())) {
            return Optional.of(new WaitEnd.NodeLost("node " + node.path() + " is gone (session expired or deleted by someone else)"));
        }
        if (session != 0 && session != node.session()) {
            return Optional.of(new WaitEnd.NodeLost("node " + node.path() + " belongs to ended session 0x"
                    + Long.toHexString(node.session())));
        }
        return Optional.empty();
    }

    /**
     * {@return the grant that vouched {@code children} give the node without a listing, if they
     * do (counted in {@code tally}), else empty: the wait lists}
     */
    Optional<WaitEnd> grantedAtSight(List<String> children, AcquireTally tally) {
        List<LockNode> sorted = sorted(children);
        long session = context.port().sessionId();
        if (session == 0 || session != node.session() || !sorted.contains(node.node())
                || !context.driver().foreignLayout().shownIn(children).isEmpty()
                || !context.driver().decide(sorted, node.node(), context.maxLeases()).getsTheLock()) {
            return Optional.empty();
        }
        LOG.debug("{} granted in {} without a listing (sequence-gap inference)", node.node().name(), context.path());
        tally.decided(sorted, node.node());
        return Optional.of(new WaitEnd.Granted(sorted));
    }
}
