package io.zklock.core.internal.request;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.zklock.core.internal.zk.DirectoryView;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockNode;

/**
 * A node in a lock's queue, as its creation left it for the wait: what the wait starts from,
 * and nothing it reaches back for.
 *
 * @param path the node's full path (the client's)
 * @param node its parsed name
 * @param token its czxid: the fencing token
 * @param session the session that owns it (its ephemeralOwner)
 * @param known what the creation already knows of the directory's children
 */
record QueuedNode(String path, LockNode node, long token, long session, Known known) {

    /** What the creation learned of the children beside the node itself: at most one thing. */
    sealed interface Known {
        /** Nothing: the wait lists first. */
        Known NOTHING = new Nothing();

        /** Nothing is known: the wait lists first. */
        record Nothing() implements Known { }

        /**
         * The directory's children as of the create, which sequence-gap inference vouched for
         * (see {@link DirectoryView}): a grant on them is final.
         *
         * @param children the children's names, our node included
         */
        record Vouched(List<String> children) implements Known {
            /** @param children the children's names, our node included */
            public Vouched {
                children = List.copyOf(children);
            }
        }

        /**
         * A listing sent right behind the create and answered after it, so it shows the node
         * unless the node is already gone.
         *
         * @param listing the listing's reply
         */
        record FirstListing(CompletableFuture<ZkPort.Reply> listing) implements Known { }
    }
}
