package io.zklock.core.internal.request;

import java.util.List;
import java.util.Optional;

import io.zklock.core.internal.LockContext;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.utils.ZKPaths;

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
    private final LockContext context;
    private final QueuedNode node;

    ListedQueue(LockContext context, QueuedNode node) {
        this.context = context;
        this.node = node;
    }

    /** {@code children} in queue order, less this session's released nodes whose delete is pending (but ours). */
    List<LockNode> sorted(List<String> children) {
        List<LockNode> sorted = LockNode.sorted(children);
        if (!context.monitor().anyReleasing()) {
            return sorted;
        }
        return sorted.stream()
                .filter(n -> n.equals(node.node())
                        || !context.monitor().isReleasing(context.port().serverPath(ZKPaths.makePath(context.path(), n.name())), node.session()))
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

    /** Whether vouched {@code children} ({@code sorted} as {@link #sorted} made them) grant the node without a listing. */
    boolean grantsAtSight(List<String> children, List<LockNode> sorted) {
        long session = context.port().sessionId();
        return session != 0 && session == node.session() && sorted.contains(node.node())
                && context.driver().foreignLayout().shownIn(children).isEmpty()
                && context.driver().decide(sorted, node.node(), context.maxLeases()).getsTheLock();
    }
}
