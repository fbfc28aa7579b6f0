package io.zklock.core.internal.request;

import io.zklock.core.internal.zk.DirectoryView;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.LockNode;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A node in a lock's queue, as its creation left it for the wait: what the wait starts from,
 * and nothing it reaches back for.
 *
 * @param path the node's full path (the client's)
 * @param node its parsed name
 * @param token its czxid: the fencing token
 * @param session the session that owns it (its ephemeralOwner)
 * @param vouched the directory's children as of the create, when sequence-gap inference could
 *        vouch for them (see {@link DirectoryView}); else null
 * @param firstListing a listing sent right behind the create and answered after it, so it
 *        shows the node; else null
 */
record QueuedNode(String path, LockNode node, long token, long session, List<String> vouched,
        CompletableFuture<ZkPort.Reply> firstListing) {

    QueuedNode {
        vouched = vouched == null ? null : List.copyOf(vouched);
    }
}
