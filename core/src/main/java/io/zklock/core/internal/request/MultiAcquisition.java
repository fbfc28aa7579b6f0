package io.zklock.core.internal.request;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.zklock.core.LockException;
import io.zklock.core.OwnerInfo;
import io.zklock.core.internal.Failures;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.zk.Backoff;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.Deadline;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * All-or-nothing acquisition of several locks of one session, as a composition of futures.
 * Repeatedly (each round under the one deadline):
 *   1. TRANSACTION  one multi() (a MultiTransaction) creates a node in every lock's directory,
 *      each named like a single lock's node (_c_<uuid>-<prefix>-<seq>) and created with create2,
 *      so the reply carries every node's Stat (czxid: the fencing token; ephemeralOwner; read with exists()
 *      from a server that returns none). Every node of a transaction takes its place in every
 *      queue at the same point of ZooKeeper's total order, so two multi-locks can never wait
 *      for each other in a cycle, whatever order their locks are listed in.
 *      - NoNode: a directory is missing; make the missing ones as containers, then 1 again.
 *      - connection trouble: the transaction may or may not have been applied (it is sent on
 *        the ZooKeeper handle, which never retries it, so it is never applied twice). Sweep
 *        every directory for our uuids, then 1 again with new uuids.
 *   2. WAITS  each node waits as a single lock's node does (an Acquisition waiting for a node it did not make), all at
 *      once: N listings issued together.
 *   3. All granted: done. One ends otherwise: every other is given up (its node deleted, a
 *      grant that raced released). If one ended because its node was lost (session expiry),
 *      1 again with the time left; otherwise fail with its reason.
 * A node of a component in LockCompatibility.CURATOR never waits behind a node that may be
 * Curator's: its round ends as if refused, and the next starts once that node is gone
 * (CuratorYielding says how and why).
 * The caller's withdrawal (interrupt, cancel) gives up the waits, or, while a transaction is in
 * flight, deletes its nodes when its reply comes. The deadline ends the waits through their own
 * timers; between rounds, while the client is cut off, it ends the request itself (deadlinePassed).
 */
public final class MultiAcquisition implements Request<List<ZkLease>> {
    private static final Logger LOG = LoggerFactory.getLogger(MultiAcquisition.class);

    /** Why the other waits of a round were given up: one of them ended first. */
    private static final class Abandoned extends Exception {
        private static final long serialVersionUID = 1L;

        Abandoned() {
            super("another lock of the multi-lock ended first", null, false, false);
        }
    }

    private final List<LockContext> contexts;
    private final CuratorYielding yielding;
    private final ZkPort port;
    private final Deadline deadline;
    private final String what;
    private final byte[] ownerData;
    private final AtomicReference<Throwable> withdrawal = new AtomicReference<>();
    private volatile List<Acquisition> waits = List.of();
    /** Counts every round's calls and its waits' calls; reported once, before {@code result} completes. */
    private final AcquireTally tally;
    final CompletableFuture<List<ZkLease>> result = new CompletableFuture<>();

    private MultiAcquisition(List<LockContext> contexts, Deadline deadline, String what, AcquireTally tally) {
        this.yielding = new CuratorYielding(contexts, deadline, tally);
        this.contexts = contexts.stream().map(yielding::component).toList();
        this.tally = tally;
        this.port = contexts.get(0).port();
        this.deadline = deadline;
        this.what = what;
        this.ownerData = NodeData.ofMulti(NodeData.of(OwnerInfo.current(), tally.traceId()), contexts.size());
    }

    public static MultiAcquisition start(List<LockContext> contexts, Deadline deadline, String what, AcquireTally tally) {
        MultiAcquisition m = new MultiAcquisition(contexts, deadline, what, tally);
        if (deadline.needsTimer()) {
            ScheduledFuture<?> timer = Threads.TIMER.schedule(m::deadlinePassed, deadline.remainingNanos(), TimeUnit.NANOSECONDS);
            m.result.whenComplete((leases, error) -> timer.cancel(false));
        }
        m.round().whenComplete(m::finish);
        return m;
    }

    /*
     * The waits time out on their own timers. Between rounds (a sweep, directories being made)
     * nothing else would end the request while the client is cut off: the caller hears of the
     * timeout at once, no new transaction is sent, and the sweep under way deletes what the
     * last one made as soon as the connection is back.
     */
    private void deadlinePassed() {
        if (!result.isDone() && waits.isEmpty() && !port.isConnected()) {
            TimeoutException timeout = new TimeoutException("timed out waiting for " + what);
            withdrawal.compareAndSet(null, timeout);
            tally.ended(timeout);
            result.completeExceptionally(timeout);
        }
    }

    @Override
    public CompletableFuture<List<ZkLease>> result() {
        return result;
    }

    @Override
    public boolean giveUp(Throwable reason) {
        if (result.isDone() || !withdrawal.compareAndSet(null, reason)) {
            return false;
        }
        waits.forEach(a -> a.giveUp(reason));  // none yet: the transaction's reply sees the withdrawal
        yielding.withdraw();
        return true;
    }

    private void finish(List<ZkLease> leases, Throwable error) {
        if (error == null) {
            tally.granted();                   // no-op if the deadline ended it first
            if (result.complete(leases)) {
                return;
            }
        }
        if (leases != null) {
            leases.forEach(ZkLease::release);  // granted just as the caller withdrew
        }
        Throwable reason = withdrawal.get() != null ? withdrawal.get() : unwrap(error);
        if (reason != null && !(reason instanceof TimeoutException) && !(reason instanceof LockException)
                && !(reason instanceof IllegalStateException) && !(reason instanceof Blocking.Withdrawn)) {
            reason = Failures.of(what, reason);
        }
        Throwable end = port.isClosed() ? LockContext.clientClosed(what) : reason;
        tally.ended(end);
        result.completeExceptionally(end);
    }

    // ---- one round --------------------------------------------------------------------------

    private CompletableFuture<List<ZkLease>> round() {
        MultiTransaction t = new MultiTransaction(contexts, tally);
        tally.issued();
        return t.send(ownerData).thenCompose(reply -> transacted(t, reply));
    }

    private CompletableFuture<List<ZkLease>> transacted(MultiTransaction t, ZkPort.Reply reply) {
        if (reply.ok()) {
            return t.nodes(reply.results(), () -> withdrawal.get() == null).handle((nodes, error) -> {
                if (error != null) {
                    return t.sweep().thenCompose(v -> CompletableFuture.<List<ZkLease>>failedFuture(error));
                }
                if (nodes.contains(null)) {    // a node gone before its Stat was read: the session ended
                    return t.sweep().thenCompose(v -> again());
                }
                return waitAll(nodes);
            }).thenCompose(f -> f);
        }
        if (reply.noNode()) {
            return makeDirectories().thenCompose(v -> proceed());
        }
        if (reply.connectionTrouble() && !port.isClosed() && !port.authFailed()) {
            LOG.debug("multi-lock transaction failed with {}; cleaning up and retrying", reply.rc());
            return MultiTransaction.later(Backoff.TRANSACTION_RETRY_MS).thenCompose(v -> t.sweep()).thenCompose(v -> again());
        }
        KeeperException.Code rc = port.authFailed() ? KeeperException.Code.AUTHFAILED : reply.rc();
        return t.sweep().thenCompose(v -> CompletableFuture.failedFuture(Failures.of("the transaction of " + what, rc, null)));
    }

    /** Another round if the time, the client and the caller allow it. */
    private CompletableFuture<List<ZkLease>> again() {
        if (deadline.hasExpired()) {
            return CompletableFuture.failedFuture(new TimeoutException("timed out waiting for " + what));
        }
        return proceed();
    }

    /** The next transaction of this round (after its directories were made) unless the client or the caller ended it. */
    private CompletableFuture<List<ZkLease>> proceed() {
        if (port.isClosed()) {
            return CompletableFuture.failedFuture(LockContext.clientClosed(what));
        }
        if (withdrawal.get() != null) {
            return CompletableFuture.failedFuture(withdrawal.get());
        }
        return round();
    }

    // ---- 2, 3. the waits --------------------------------------------------------------------

    private CompletableFuture<List<ZkLease>> waitAll(List<QueuedNode> nodes) {
        List<Acquisition> started = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            started.add(Acquisition.waitingFor(contexts.get(i), deadline, nodes.get(i), ownerData, tally.component()));
        }
        waits = List.copyOf(started);
        if (withdrawal.get() != null) {
            started.forEach(a -> a.giveUp(withdrawal.get()));
        }
        Abandoned abandoned = new Abandoned();
        started.forEach(a -> a.result.whenComplete((outcome, error) -> {
            if (error != null || outcome instanceof Acquisition.End.Lost) {
                started.forEach(other -> other.giveUp(abandoned));   // all or nothing
            }
        }));
        return CompletableFuture.allOf(started.stream().map(a -> a.result).toArray(CompletableFuture[]::new))
                .handle((v, e) -> started)
                .thenCompose(this::settle);
    }

    /** Every wait of the round has ended: all leased, or the round is over and its grants released. */
    private CompletableFuture<List<ZkLease>> settle(List<Acquisition> ended) {
        List<ZkLease> leases = new ArrayList<>();
        Throwable failure = null;
        boolean lost = false;
        for (Acquisition a : ended) {
            try {
                Acquisition.End outcome = a.result.join();
                if (outcome instanceof Acquisition.End.Leased leased) {
                    leases.add(leased.lease());
                } else {
                    lost = true;
                }
            } catch (CompletionException e) {
                Throwable cause = unwrap(e);
                if (failure == null && !(cause instanceof Abandoned)) {
                    failure = cause;
                }
            }
        }
        if (leases.size() == ended.size()) {
            return CompletableFuture.completedFuture(leases);
        }
        waits = List.of();
        Throwable reason = failure;
        boolean requeue = failure == null && lost;
        String yieldedTo = yielding.takeBlocker();
        // grants that raced the end of the round: gone before the caller hears of it
        return ZkLease.releaseAll(leases).thenCompose(v -> {
            if (requeue) {
                LOG.info("{} re-queueing: a node was lost", what);
                return again();
            }
            if (yieldedTo != null && withdrawal.get() == null) {
                LOG.debug("{} withdrew its nodes: one would wait behind {}, which may be Curator's", what, yieldedTo);
                return yielding.waitFor(yieldedTo, () -> withdrawal.get() != null).thenCompose(w -> again());
            }
            return CompletableFuture.failedFuture(reason != null ? reason : new LockException(what + " ended without a grant"));
        });
    }

    // ---- directories and sweeps -------------------------------------------------------------

    /** Makes the missing directories as containers; part of the same attempt, also for a zero timeout. */
    private CompletableFuture<Void> makeDirectories() {
        tally.issued(contexts.size());
        List<CompletableFuture<Boolean>> made = contexts.stream().map(e -> port.makeContainer(e.path()).thenApply(reply -> {
            if (port.authFailed()) {
                throw Failures.of("creation of lock directory " + e.path(), KeeperException.Code.AUTHFAILED, e.path());
            }
            if (reply.connectionTrouble() || reply.noNode()) {
                return false;                  // NoNode: a parent was reaped while the chain was made
            }
            if (!reply.ok() && reply.rc() != KeeperException.Code.NODEEXISTS) {
                throw Failures.of("creation of lock directory " + e.path(), reply.rc(), e.path());
            }
            return true;
        })).toList();
        return MultiTransaction.all(made).thenCompose(done -> {
            if (!done.contains(false)) {
                return !deadline.isSingleAttempt() && deadline.hasExpired()
                        ? CompletableFuture.failedFuture(new TimeoutException("timed out waiting for " + what))
                        : CompletableFuture.completedFuture(null);
            }
            if (port.isClosed()) {
                return CompletableFuture.failedFuture(LockContext.clientClosed(what));
            }
            if (withdrawal.get() != null) {
                return CompletableFuture.failedFuture(withdrawal.get());
            }
            if (deadline.hasExpired()) {
                return CompletableFuture.failedFuture(new TimeoutException("timed out waiting for " + what));
            }
            return MultiTransaction.later(Backoff.CLEANUP_RETRY_MS).thenCompose(v -> makeDirectories());
        });
    }

    private static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
