package io.zklock.core.internal.request;

import java.util.List;
import java.util.Optional;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.spi.queue.LockNode;
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
 */
/** The queue a listing shows one waiting node; see {@link GrantWait}. */
final class ListedQueue {
    private static final Logger LOG = LoggerFactory.getLogger(ListedQueue.class);

    private final LockContext context;
    private final QueuedNode node;

    ListedQueue(LockContext context, QueuedNode node) {
        this.context = context;
        this.node = node;
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
