package io.zklock.core.internal.request;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.DirectoryView;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.TreeWatch;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The create of sequence-gap inference (see {@link DirectoryView}): one multi() that sets the
 * lock directory's (empty) data, whose Stat comes back, and creates our node with create2. It
 * is sent on the ZooKeeper handle, which never retries it behind our back; its reply updates the
 * session's view on the event thread, in reply order, and tells whether the view can vouch for
 * the children as of the create. A node a lease cache may keep is told to the client's tree
 * watch there (TreeWatch, FRESH), so that its adoption need not read it. Without a view (no
 * inference), the wait's first listing is sent right behind the transaction, as behind a
 * plain create: one round trip for both.
 */
final class InferenceTransaction {
    private static final Logger LOG = LoggerFactory.getLogger(InferenceTransaction.class);
    private static final byte[] EMPTY = new byte[0];

    private final String uuid;
    private final CompletableFuture<ZkPort.Reply> reply;
    private final AtomicReference<List<String>> vouched;
    private final AtomicBoolean listedAfter = new AtomicBoolean();   // the first listing's reply was read after the transaction's
    private volatile CompletableFuture<ZkPort.Reply> firstListing;  // set once, by send, without a view (null until then)

    private InferenceTransaction(String uuid, CompletableFuture<ZkPort.Reply> reply, AtomicReference<List<String>> vouched) {
        this.uuid = uuid;
        this.reply = reply;
        this.vouched = vouched;
    }

    /**
     * Sends the transaction for {@code context}'s next node; null if it cannot even be built.
     * Without a view (null) it only creates: the node of a caching context, whose uuid Curator's
     * protected create could not carry, made where no inference is possible.
     */
    static InferenceTransaction send(LockContext context, DirectoryView view, long session, byte[] ownerData) {
        String uuid = context.newProtectedId();
        List<Op> ops;
        try {
            Op create = context.port().createOp(NodePaths.child(context.path(), LockNode.protectedName(uuid, context.namePrefix())), ownerData);
            ops = view == null ? List.of(create) : List.of(Op.setData(context.port().serverPath(context.path()), EMPTY, -1), create);
        } catch (RuntimeException e) {
            LOG.debug("could not build the transaction on {}; creating through Curator", context.path(), e);
            if (view != null) {
                view.invalidate();
            }
            return null;
        }
        AtomicReference<List<String>> vouched = new AtomicReference<>();
        TreeWatch tree = context.cachingNodes() ? TreeWatch.existing(context.monitor()) : null;
        AtomicBoolean answered = new AtomicBoolean();   // the transaction's reply was read (event thread, in reply order)
        InferenceTransaction t = new InferenceTransaction(uuid, context.port().multi(ops, r -> {
            if (view != null) {
                vouched.set(view.transacted(session, r));
            }
            if (tree != null && r.ok()) {
                tree.created(created(r).getPath(), session);   // a node a cache may keep: see TreeWatch, FRESH
            }
            answered.set(true);
        }), vouched);
        if (view == null) {                    // a wait that starts before this is set lists for itself
            t.firstListing = context.list(null, r -> t.listedAfter.set(answered.get()));
        }
        return t;
    }

    /** {@return the requests send issued: the transaction, and the first listing without a view} */
    int requests() {
        return firstListing == null ? 1 : 2;   // read by the thread that sent them
    }

    /** The uuid in the node's name: how a lost reply's node is found again, or swept. */
    String uuid() {
        return uuid;
    }

    CompletableFuture<ZkPort.Reply> reply() {
        return reply;
    }

    /**
     * The children as of the create, our node included, if the view could vouch for them; the
     * first listing sent behind the transaction, unless it was answered before it; else nothing.
     */
    QueuedNode.Known known() {
        List<String> children = vouched.get();
        if (children != null) {
            return new QueuedNode.Known.Vouched(children);
        }
        CompletableFuture<ZkPort.Reply> listing = firstListing;
        boolean before = listing == null || listing.isDone() && !listedAfter.get();
        return before ? QueuedNode.Known.NOTHING : new QueuedNode.Known.FirstListing(listing);
    }

    /** The created node's path (the client's), from an OK reply. */
    static String createdPath(LockContext context, ZkPort.Reply reply) {
        return context.port().clientPath(created(reply).getPath());
    }

    /** The created node's Stat from an OK reply; null from a server before 3.7.2 / 3.8.2 / 3.9.0 (ZOOKEEPER-4026). */
    static Stat createdStat(ZkPort.Reply reply) {
        return created(reply).getStat();
    }

    private static OpResult.CreateResult created(ZkPort.Reply reply) {
        return (OpResult.CreateResult) reply.results().get(reply.results().size() - 1);
    }
}
