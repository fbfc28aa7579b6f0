package io.zklock.core.internal.request;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.zklock.core.LockCompatibility;
import io.zklock.core.LockException;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.Backoff;
import io.zklock.core.internal.zk.DirectoryView;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * Obtaining one node in a lock's queue, for a request that has none; it completes `result`
 * with the QueuedNode the wait starts from. Its steps run under the request's RequestLock.
 * Repeatedly:
 *   1. If this session's DirectoryView of the directory is exact (and the server returns a
 *      Stat for a create inside multi()), the InferenceTransaction: one multi() that sets the
 *      directory's data and creates our node (sequence-gap inference, see DirectoryView); the
 *      same transaction without inference for a node whose uuid must be ours (a cached node,
 *      a node of Curator's layout); otherwise the protected create, with the first listing
 *      sent right behind it (one session's replies come in order, so it may show our node).
 *   2. The reply. OK: the node, its czxid (the fencing token) and its session from the reply's
 *      Stat, or from one exists() when the reply carried none (a create Curator found again
 *      after a connection loss; a server before 3.7.2 / 3.8.2 / 3.9.0 inside multi(), after
 *      which this client creates plainly). NoNode: the directory or a parent was reaped under
 *      the create: create again, with a short pause from the second time in a row, at most
 *      MAX_REAPED times in a row, inside the deadline. Connection trouble: back off and create
 *      again (a protected create never makes two nodes). A transaction whose reply was lost:
 *      list the directory for its uuid; take that node if it is there, else 1.
 * Stopped, it deletes what the call in flight made or may have made (a transaction's uuid is swept), then completes stop()'s future.
 */
final class NodeCreation {
    private static final Logger LOG = LoggerFactory.getLogger(NodeCreation.class);
    /** Creates in a row that may find the directory reaped before the request gives up. */
    static final int MAX_REAPED = 100;

    private enum State { CALLING, BACKOFF, DONE, FAILED, STOPPED }

    private final LockContext context;
    private final Deadline deadline;
    private final RequestLock lock;
    private final byte[] ownerData;
    private final PendingRetry retry;
    private final AcquireTally tally;
    /** Completed outside the lock with the node, or with the reason creation failed. */
    final CompletableFuture<QueuedNode> result = new CompletableFuture<>();

    // guarded by lock
    private State state = State.CALLING;
    private int reapedInARow;
    private Leftover leftover = new Leftover.Nothing();
    private CompletableFuture<Void> stopped;

    NodeCreation(LockContext context, Deadline deadline, RequestLock lock, byte[] ownerData, AcquireTally tally) {
        this.context = context;
        this.tally = tally;
        this.deadline = deadline;
        this.lock = lock;
        this.ownerData = ownerData;
        this.retry = new PendingRetry(lock);
    }

    /** Step 1; call from a step of the request. */
    void start() {
        DirectoryView view = context.view();
        long session = context.port().sessionId();
        if (view.usable(session) && context.monitor().multiCreateReturnsStat() && context.infersCreates()) {
            transaction(view, session);
        } else if (context.picksOwnUuids()) {
            transaction(null, session);        // a caching or Curator-layout node's uuid: Curator's protected create picks its own
        } else {
            create();
        }
    }

    /** The connection came back: a create backing off is issued now. */
    void kick() {
        lock.run(() -> {
            if (state == State.BACKOFF) {
                retry.runNow();
            }
        });
    }

    /**
     * Ends the creation for an owner that gives up before it took the node; call from a step.
     * Completes once whatever the creation made, or a call in flight makes, is deleted.
     */
    CompletableFuture<Void> stop() {
        if (stopped != null) {
            return stopped;
        }
        stopped = new CompletableFuture<>();
        state = State.STOPPED;
        retry.cancel();
        CompletableFuture<Void> cleanup = leftover.cleanUp(context.cleanup());
        if (cleanup != null) {                 // else ToldByReply: the reply's handler completes it
            cleanup.whenComplete((v, e) -> stopped.complete(null));
        }
        return stopped;
    }

    /** A create: a Curator-layout node's uuid must be zklock's (its mark), so it is always made by a transaction. */
    private void create() {
        if (context.compatibility() == LockCompatibility.CURATOR) {
            transaction(null, context.port().sessionId());
        } else {
            plainCreate();
        }
    }

    private void plainCreate() {
        state = State.CALLING;
        leftover = new Leftover.ToldByReply();
        long session = context.port().sessionId();
        AtomicBoolean createAnswered = new AtomicBoolean();
        AtomicBoolean listedAfterCreate = new AtomicBoolean();
        CompletableFuture<ZkPort.Reply> created = context.port().createProtected(context.path(), context.namePrefix(),
                ownerData, reply -> {
                    createAnswered.set(true);  // in reply order, on the event thread
                    context.view().plainCreate(session, reply);
                });
        CompletableFuture<ZkPort.Reply> firstListing = context.list(null, reply -> listedAfterCreate.set(createAnswered.get()));
        tally.issued(2);
        created.whenComplete((reply, error) -> lock.run(() -> created(reply, error, firstListing, listedAfterCreate)));
    }

    private void created(ZkPort.Reply reply, Throwable error, CompletableFuture<ZkPort.Reply> firstListing,
            AtomicBoolean listedAfterCreate) {
        leftover = new Leftover.Nothing();
        if (state == State.STOPPED) {
            cleanUpAfterStop(error == null && reply.ok() ? reply.path() : null, null);
        } else if (error != null) {
            fail(context.refused("create under " + context.path(), error));
        } else if (reply.ok()) {
            reapedInARow = 0;
            // used only if answered after the create (one answered before it may not show our
            // node), as the replies' order says, not as the order in which this step runs does
            obtained(reply.path(), reply.stat(), firstListing.isDone() && !listedAfterCreate.get()
                    ? QueuedNode.Known.NOTHING : new QueuedNode.Known.FirstListing(firstListing));
        } else if (reply.noNode()) {
            directoryReaped();
        } else {
            failedCall(reply.rc(), "create under " + context.path(), this::create);
        }
    }

    /**
     * The container directory was reaped between its making and our create (an idle lock's
     * directory is, at any moment): make it again and create again, inside the deadline.
     */
    private void directoryReaped() {
        if (reapedTooOften()) {
            return;
        }
        if (!deadline.isSingleAttempt() && deadline.hasExpired()) {
            fail(context.timedOut());
            return;
        }
        LOG.debug("lock directory {} was reaped under our create; making it again", context.path());
        long pause = Backoff.afterReaped(reapedInARow);
        if (pause == 0) {
            create();
        } else {
            state = State.BACKOFF;
            retry.schedule(pause, this::create);
        }
    }

    private void transaction(DirectoryView view, long session) {
        InferenceTransaction t = InferenceTransaction.send(context, view, session, ownerData);
        if (t == null) {
            plainCreate();
            return;
        }
        tally.issued(t.requests());
        state = State.CALLING;
        leftover = new Leftover.Transaction(t.uuid());
        t.reply().whenComplete((reply, error) -> lock.run(() -> transacted(t, reply, error)));
    }

    private void transacted(InferenceTransaction t, ZkPort.Reply reply, Throwable error) {
        boolean applied = error == null && reply.ok();
        if (state == State.STOPPED) {
            leftover = new Leftover.Nothing();
            cleanUpAfterStop(applied ? InferenceTransaction.createdPath(context, reply) : null,
                    error == null && reply.connectionTrouble() ? t.uuid() : null);
        } else if (applied) {
            leftover = new Leftover.Nothing();
            Stat stat = InferenceTransaction.createdStat(reply);
            if (stat == null) {
                context.monitor().multiCreateWithoutStat();   // read the token instead
            }
            obtained(InferenceTransaction.createdPath(context, reply), stat, t.known());
        } else if (error == null && reply.connectionTrouble()) {
            resolve(t.uuid());                 // it may have been applied: find out before anything else
        } else {
            leftover = new Leftover.Nothing();
            if (error != null && context.port().isClosed()) {
                fail(context.clientClosed());
            } else if (error == null && reply.noNode() && context.picksOwnUuids()) {
                makeDirectory();               // a caching or Curator-layout node is made by a transaction: the directory first
            } else {
                create();                      // e.g. no directory yet: the plain create makes it
            }
        }
    }

    /** Fails the creation once the directory was reaped under MAX_REAPED creates in a row; true if it did. */
    private boolean reapedTooOften() {
        boolean tooOften = ++reapedInARow > MAX_REAPED;
        if (tooOften) {
            fail(new LockException("lock directory " + context.path() + " was deleted under " + MAX_REAPED + " creates in a row"));
        }
        return tooOften;
    }

    /** Makes the lock directory (a container) for a caching or Curator-layout context's transaction, then sends it again. */
    private void makeDirectory() {
        if (reapedTooOften()) {
            return;
        }
        state = State.CALLING;
        tally.issued();
        context.port().makeContainer(context.path()).whenComplete((reply, error) -> lock.run(() -> {
            if (state == State.STOPPED) {
                stopped.complete(null);
            } else if (error != null) {
                fail(context.refused("create of " + context.path(), error));
            } else if (reply.ok() || reply.rc() == KeeperException.Code.NODEEXISTS) {
                transaction(null, context.port().sessionId());
            } else {
                failedCall(reply.rc(), "create of " + context.path(), this::makeDirectory);
            }
        }));
    }

    /** Lists the directory to learn whether a transaction whose reply was lost created our node. */
    private void resolve(String uuid) {
        state = State.CALLING;
        tally.issued();
        context.list(null).whenComplete((reply, error) -> lock.run(() -> resolved(reply, error, uuid)));
    }

    private void resolved(ZkPort.Reply reply, Throwable error, String uuid) {
        if (state == State.STOPPED) {
            return;                            // stop() swept the uuid
        }
        if (error != null) {
            fail(context.refused("list of " + context.path(), error));
        } else if (reply.ok() || reply.noNode()) {
            leftover = new Leftover.Nothing();
            Optional<String> found = reply.children().stream().filter(child -> LockNode.createdBy(child, uuid)).findFirst();
            if (found.isPresent()) {
                obtained(NodePaths.child(context.path(), found.get()), null, QueuedNode.Known.NOTHING);
            } else {
                create();
            }
        } else {
            failedCall(reply.rc(), "list of " + context.path(), () -> resolve(uuid));
        }
    }

    /** Our node exists; with no Stat, one exists() reads its token and session first. */
    private void obtained(String path, Stat stat, QueuedNode.Known known) {
        Optional<LockNode> node = LockNode.parse(NodePaths.name(path));
        if (node.isEmpty()) {
            leftover = new Leftover.Node(path);
            fail(new LockException("created node " + path + " has an unexpected name"));
        } else if (stat == null) {
            read(path);
        } else {
            state = State.DONE;
            leftover = new Leftover.Node(path);  // until the owner has taken it, stop() deletes it
            QueuedNode queued = new QueuedNode(path, node.get(), stat.getCzxid(), stat.getEphemeralOwner(), known);
            lock.later(() -> result.complete(queued));
        }
    }

    private void read(String path) {
        state = State.CALLING;
        leftover = new Leftover.Node(path);
        tally.issued();
        context.port().exists(path, null).whenComplete((reply, error) -> lock.run(() -> {
            if (state == State.STOPPED) {
                return;                        // stop() deletes the node
            }
            if (error != null) {
                fail(context.refused("read of " + path, error));
            } else if (reply.ok() && reply.stat() != null) {
                obtained(path, reply.stat(), QueuedNode.Known.NOTHING);
            } else if (reply.ok() || reply.noNode()) {
                LOG.info("re-queueing on {}: node {} vanished before it was read", context.path(), path);
                leftover = new Leftover.Nothing();
                create();
            } else {
                failedCall(reply.rc(), "read of " + path, () -> read(path));
            }
        }));
    }

    private void failedCall(KeeperException.Code rc, String what, Runnable again) {
        if (retry.afterFailure(context, deadline, rc, what, again, this::fail)) {
            state = State.BACKOFF;
        }
    }

    /** Fails the creation; what it made stays in {@code leftover}, for the owner's give-up (stop()) to delete. */
    private void fail(Throwable reason) {
        state = State.FAILED;
        lock.later(() -> result.completeExceptionally(reason));
    }

    /** A reply that came after stop(): deletes what it made, then completes stop()'s future. */
    private void cleanUpAfterStop(String createdPath, String unresolvedUuid) {
        Leftover.after(createdPath, unresolvedUuid).cleanUp(context.cleanup()).whenComplete((v, e) -> stopped.complete(null));
    }
}
