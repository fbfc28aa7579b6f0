package io.zklock.multilock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.MultiLease;
import io.zklock.core.spi.JucLockView;
import io.zklock.core.spi.MultiLockSupport;
import io.zklock.core.spi.queue.Deadline;

/**
 * Several locks taken together, all or nothing, without deadlock.
 *
 * <p>One ZooKeeper transaction creates a node in every component lock's queue. Every node of a
 * transaction takes its place in every queue at the same point of ZooKeeper's total order, so
 * two multi-locks can never wait for each other in a cycle, whatever order their locks are
 * listed in, and single-lock users of the same locks queue fairly among them. The waits then
 * run in parallel under one deadline: acquiring N locks costs one write and N reads when
 * uncontended, and releasing them one write.
 *
 * <p>Components may be any zklock recipe on the same {@code CuratorFramework} client (one
 * transaction needs one session): mutexes, read or write halves of read-write locks,
 * semaphores. On a timeout, an interrupt, a cancellation or a failure every node of the
 * transaction is deleted and no component is held. If a component's node is lost with the
 * session while waiting, the whole request is queued again with a new transaction.
 *
 * <p><b>Re-entry.</b> A thread that holds this multi-lock through a blocking call and calls
 * {@link #acquire()} or {@link #tryAcquire} on it again gets a new lease at once on the same
 * nodes (same components, node paths and fencing tokens); the nodes are deleted when the last of
 * those leases is closed, and a lease closed before the last is {@code RELEASED} at once (the
 * thread still holds through the others). A blocking acquisition by a thread that already holds
 * a reentrant component on its own (a mutex, or the same half of a read-write lock) counts that
 * component instead of queueing it; the component stays held until both leases are closed.
 *
 * <p>Nodes this multi-lock created are not thread holds of their components (that is what lets
 * one transaction release them), so nothing else can re-enter them. Any blocking acquisition
 * that would queue behind them is refused at once with an {@link IllegalStateException} naming
 * the lock path, instead of waiting for itself forever: while a thread holds this multi-lock, its
 * blocking acquisition of a reentrant component alone (either half of a read-write lock one half
 * of which the multi-lock holds included), or of another multi-lock over such a component (the
 * same components in another {@code ZkMultiLock} object included), is refused; it works again
 * once the multi-lease is closed. A semaphore permit is not reentrant: a second request for a
 * semaphore the thread holds through a multi-lock is a new permit request, as for a plain
 * semaphore lease, and waits while every permit is taken, by this thread or not (so a thread
 * holding every permit waits for itself, as it would with plain semaphore leases: use a timeout).
 * The per-thread bookkeeping is keyed by owner id, retains no {@code Thread}, and ends when the
 * last lease closes, is {@code LOST}, or none of its open leases is reachable any more (one
 * dropped unclosed); a lost grant is never re-entered. {@link #acquireAsync}
 * never re-enters and is never refused: it queues like any other request.
 *
 * <p><b>Release.</b> Closing the last lease of a grant deletes every node it created in one
 * transaction. The lease state is never optimistic: it stays {@code HELD} or {@code SUSPENDED}
 * until every node is gone (a delete that cannot reach ZooKeeper is retried), then turns
 * {@code RELEASED}, or {@code LOST} if the session ended; listeners are told at that moment.
 *
 * <pre>{@code
 * ZkMultiLock both = new ZkMultiLock(List.of(new ZkMutex(client, "/locks/a"), new ZkMutex(client, "/locks/b")));
 * try (MultiLease lease = both.acquire()) {
 *     transfer(a, b, lease.components().get(0).fencingToken(), lease.components().get(1).fencingToken());
 * }
 * }</pre>
 */
public final class ZkMultiLock implements DistributedLock {
    private final MultiLockSupport sync;
    private final Lock view = new JucLockView(this);

    /**
     * @param locks the component locks, each a zklock recipe on the same client
     * @throws IllegalArgumentException if the list is null or empty, holds the same lock or the
     *         same path twice, holds a lock that is not built on the zklock engine, or mixes
     *         clients
     */
    public ZkMultiLock(List<? extends DistributedLock> locks) {
        this.sync = new MultiLockSupport(locks, "the multi-lock ZkMultiLock[" + pathOf(locks) + "]");
    }

    private static String pathOf(List<? extends DistributedLock> locks) {
        return locks == null ? "" : String.join(",", locks.stream().map(l -> l == null ? "null" : l.path()).toList());
    }

    /** The component locks' paths, in order, joined by commas. */
    @Override
    public String path() {
        return sync.path();
    }

    /** {@return the component locks, in order} */
    public List<DistributedLock> locks() {
        return sync.locks();
    }

    /**
     * Acquires every component, waiting as long as it takes. One of these things happens:
     * the thread already holds this multi-lock through a blocking call, and a new lease on the
     * same nodes is returned at once (re-entry); every component is granted and the lease is
     * returned; the thread is interrupted and no component is held; ZooKeeper refuses the
     * request ({@link io.zklock.core.LockException}) or a component refuses it
     * ({@link IllegalStateException}: a semaphore whose maxLeases disagrees, the other half of
     * a read-write lock the thread holds, a reentrant lock the thread holds through another
     * multi-lock), and no component is held.
     */
    @Override
    public MultiLease acquire() throws InterruptedException {
        return Deadline.grantOfUnbounded(sync.acquire(Deadline.unbounded()), toString());
    }

    /**
     * As {@link #acquire()}, but gives up after {@code timeout} with nothing held; ZERO is one
     * attempt. The lease is a {@link MultiLease}.
     */
    @Override
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        return sync.acquire(Deadline.after(timeout)).map(lease -> lease);
    }

    /**
     * Starts an acquisition of every component; {@code cancel()} withdraws it. Never re-enters.
     * The lease is a {@link MultiLease}.
     */
    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return sync.acquireAsync(timeout);
    }

    /** Whether the current thread holds a valid lease of this multi-lock taken by a blocking call. */
    @Override
    public boolean isHeldByCurrentThread() {
        return sync.isHeldByCurrentThread();
    }

    @Override
    public Lock asLock() {
        return view;
    }

    @Override
    public String toString() {
        return "ZkMultiLock[" + path() + "]";
    }
}
