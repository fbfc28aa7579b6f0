package io.zklock.core.internal.request;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.core.LockException;
import io.zklock.core.OwnerInfo;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.zk.SessionListener;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * One request for one lock. It obtains a node (NodeCreation), waits for the node's grant
 * (GrantWait) and ends exactly once, completing `result`. Its phase is one value: Starting,
 * Creating(the creation), Waiting(the wait, its node), Ended; a re-queue goes from Waiting back
 * to Creating. Its steps, and its stages' steps, follow the package's serialisation rule (see
 * package-info.java): one RequestLock, bookkeeping and background calls only. Repeatedly:
 *   1. NodeCreation gives a QueuedNode (a node a multi-lock's transaction made is given instead).
 *   2. GrantWait on it ends with
 *      - Granted: a ZkLease, bound to the node's session (LeaseMaking), completes the request;
 *      - NodeLost: the node will never be granted. A request that made its own node deletes it
 *        and goes back to 1 (it re-queues); a multi-lock's node ends the request with Lost, and
 *        the multi-lock, which made it with the others, decides what to do.
 * Giving up (the deadline's timer, an interrupt, a cancel, the client closing, a failure of a
 * stage or of a step) and the grant are decided once, under the lock: whichever comes first wins,
 * and a grant that comes second is never seen by anybody. A give-up stops the stage, deletes the
 * node (a guaranteed delete), ends the wait's watches, and fails `result` once those calls were
 * answered while connected (at most CLEANUP_WAIT_MS), or at once when not: the retried delete
 * finishes the job, and the node is ephemeral. So a caller who sees a timeout sees no node of ours.
 * The stages count their ZooKeeper calls into the request's AcquireTally, which reports the end to
 * the LockObservers just before `result` completes.
 */
public final class Acquisition implements Request<Acquisition.End>, SessionListener {
    private static final Logger LOG = LoggerFactory.getLogger(Acquisition.class);
    private static final long CLEANUP_WAIT_MS = 5_000;

    /** How a request ended, when it did not fail. */
    public sealed interface End {
        /**
         * Granted: the lease, and the children on which the driver granted it, in queue order
         * (what a lease cache judges its node by; null when the grant was known without them).
         */
        record Leased(ZkLease lease, List<LockNode> granting) implements End { }

        /** Only for a node a multi-lock made: it is gone, and only a new transaction can replace it. */
        record Lost(String why) implements End { }
    }

    private final LockContext context;
    private final Deadline deadline;
    private final RequestLock lock;
    /** What its node's data was created with. */
    private final byte[] ownerData;
    private final boolean madeByMulti;
    /** Counts this request's calls; reports its end (a multi-lock's component tally reports nothing). */
    private final AcquireTally tally;
    final CompletableFuture<End> result = new CompletableFuture<>();

    /** Where the request is (made, obtaining a node, waiting for its grant, over): one value, so no two stages are live at once. */
    private sealed interface Phase {
        record Starting() implements Phase { }
        record Creating(NodeCreation creation) implements Phase { }
        record Waiting(GrantWait grantWait, QueuedNode node) implements Phase { }
        record Ended() implements Phase { }
    }

    // guarded by lock
    private Phase phase = new Phase.Starting();
    /** The deadline's timer: set by the first step when the deadline needs one, cancelled at the end (not a phase). */
    private ScheduledFuture<?> timer;

    @Override
    public CompletableFuture<End> result() {
        return result;
    }

    private Acquisition(LockContext context, Deadline deadline, boolean madeByMulti, byte[] ownerData, AcquireTally tally) {
        this.context = context;
        this.ownerData = ownerData;
        this.deadline = deadline;
        this.madeByMulti = madeByMulti;
        this.tally = tally;
        this.lock = new RequestLock(this::failed);
    }

    /** Starts a request that makes its own node; returns at once. */
    public static Acquisition start(LockContext context, Deadline deadline) {
        return start(context, deadline, AcquireTally.begin(context));
    }

    /** As {@link #start(LockContext, Deadline)}, reporting to {@code tally}. */
    public static Acquisition start(LockContext context, Deadline deadline, AcquireTally tally) {
        return start(context, deadline, tally, null);
    }

    /**
     * As {@link #start(LockContext, Deadline, AcquireTally)}, for a participant: its id is written
     * into the node's data after the owner's lines (null for none).
     */
    public static Acquisition start(LockContext context, Deadline deadline, AcquireTally tally, String participantId) {
        Acquisition a = new Acquisition(context, deadline, false, NodeData.ofParticipant(OwnerInfo.current(), tally.traceId(), participantId), tally);
        a.begin(a::create);
        return a;
    }

    /**
     * Starts the wait of a node that a multi-lock's transaction made with {@code ownerData},
     * counting into its {@code tally}; returns at once.
     */
    static Acquisition waitingFor(LockContext context, Deadline deadline, QueuedNode node, byte[] ownerData, AcquireTally tally) {
        Acquisition a = new Acquisition(context, deadline, true, ownerData, tally);
        a.begin(() -> a.waitFor(node));
        return a;
    }

    private void begin(Runnable first) {
        context.monitor().addListener(this);
        lock.run(() -> {
            if (phase instanceof Phase.Ended) {
                return;                        // the client closed before the request began
            }
            if (deadline.needsTimer()) {
                timer = Threads.TIMER.schedule(() -> giveUp(context.port().isClosed() ? context.clientClosed() : context.timedOut()),
                        deadline.remainingNanos(), TimeUnit.NANOSECONDS);
            }
            first.run();
        });
    }

    // ---- the stages -------------------------------------------------------------------------

    private void create() {
        NodeCreation c = new NodeCreation(context, deadline, lock, ownerData, tally);
        phase = new Phase.Creating(c);
        c.result.whenComplete((created, error) -> lock.run(() -> created(c, created, error)));
        c.start();
    }

    private void created(NodeCreation c, QueuedNode created, Throwable error) {
        if (!(phase instanceof Phase.Creating now && now.creation() == c)) {
            return;                            // a give-up stopped it, and it deleted the node
        }
        if (error != null) {
            giveUpInStep(error);
        } else {
            waitFor(created);
        }
    }

    private void waitFor(QueuedNode queued) {
        GrantWait w = new GrantWait(context, queued, ownerData, deadline, lock, tally);
        Phase.Waiting waiting = new Phase.Waiting(w, queued);
        phase = waiting;
        w.result.whenComplete((end, error) -> lock.run(() -> waited(waiting, end, error)));
        w.start();
    }

    private void waited(Phase.Waiting waiting, WaitEnd end, Throwable error) {
        if (phase != waiting) {
            return;
        }
        if (error != null) {
            giveUpInStep(error);
        } else if (end instanceof WaitEnd.Granted granted) {
            grant(waiting.node(), granted);
        } else if (madeByMulti) {
            endWith(new End.Lost(((WaitEnd.NodeLost) end).why()), null);
        } else {
            LOG.info("re-queueing on {}: {}", context.path(), ((WaitEnd.NodeLost) end).why());
            context.cleanup().delete(waiting.node().path());
            waiting.grantWait().stop();
            create();
        }
    }

    /** The grant ends the request, unless the client closed meanwhile; the lease is made by {@link LeaseMaking}. */
    private void grant(QueuedNode node, WaitEnd.Granted granted) {
        if (context.port().isClosed()) {
            giveUpInStep(context.clientClosed());
            return;
        }
        phase = new Phase.Ended();
        stopTimer();
        context.monitor().removeListener(this);
        ZkLease lease = LeaseMaking.make(context, node, granted, ownerData, tally);
        lock.later(() -> {
            tally.granted();
            if (!result.complete(new End.Leased(lease, granted.sorted()))) {
                lease.release();               // never leak a grant nobody will see
            }
        });
    }

    // ---- giving up --------------------------------------------------------------------------

    /**
     * Withdraws the request: deletes its node and ends its watches, then fails {@code result}
     * with {@code reason}. Returns false if it had already ended (granted or given up).
     */
    @Override
    public boolean giveUp(Throwable reason) {
        boolean[] first = new boolean[1];
        lock.run(() -> first[0] = giveUpInStep(reason));
        return first[0];
    }

    private boolean giveUpInStep(Throwable reason) {
        return endWith(null, reason);
    }

    /** Ends the request after cleaning up: with {@code outcome}, or failed with {@code reason}. */
    private boolean endWith(End outcome, Throwable reason) {
        Phase was = phase;
        if (was instanceof Phase.Ended) {
            return false;
        }
        phase = new Phase.Ended();
        stopTimer();
        context.monitor().removeListener(this);
        List<CompletableFuture<Void>> cleanups = new ArrayList<>();
        if (was instanceof Phase.Creating creating) {
            cleanups.add(creating.creation().stop());
        } else if (was instanceof Phase.Waiting waiting) {
            cleanups.add(waiting.grantWait().stop());
            cleanups.add(context.cleanup().delete(waiting.node().path()));
        }
        Runnable complete = () -> {
            if (outcome != null) {
                result.complete(outcome);
            } else {
                tally.ended(reason);
                result.completeExceptionally(reason);
            }
        };
        if (!context.port().isConnected() || context.port().isClosed()) {
            lock.later(complete);              // nothing to wait for: the delete is retried on reconnection
        } else {
            CompletableFuture.allOf(cleanups.toArray(CompletableFuture[]::new))
                    .completeOnTimeout(null, CLEANUP_WAIT_MS, TimeUnit.MILLISECONDS)
                    .whenComplete((v, e) -> complete.run());
        }
        return true;
    }

    /** Whatever a step threw: the request gives up with it; if even that throws, it ends here. */
    private void failed(Throwable thrown) {
        LockException failure = new LockException("lock " + context.path() + ": a ZooKeeper reply could not be handled: "
                + thrown, thrown);
        try {
            if (giveUp(failure) || result.isDone()) {
                return;
            }
        } catch (RuntimeException | Error again) {
            failure.addSuppressed(again);
        }
        context.monitor().removeListener(this);
        tally.ended(failure);
        result.completeExceptionally(failure);  // it died half-way through ending: end it here
    }

    private void stopTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    // ---- session news -----------------------------------------------------------------------

    @Override
    public void reconnected(long sessionId) {
        kick(sessionId);                       // a new session has none of the old watches; the same one has them all
    }

    @Override
    public void lost() {
        kick(0);
    }

    @Override
    public void closing() {
        giveUp(context.clientClosed());
    }

    private void kick(long sessionId) {
        lock.run(() -> {
            if (phase instanceof Phase.Creating creating) {
                creating.creation().kick();
            } else if (phase instanceof Phase.Waiting waiting) {
                waiting.grantWait().kick(sessionId);
            }
        });
    }
}
