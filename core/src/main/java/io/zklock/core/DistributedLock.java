package io.zklock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * A lock on one ZooKeeper path, shared by every client that names the same path.
 *
 * <p>Every grant is a {@link Lease}: the caller closes it to release, may read its
 * {@linkplain Lease#fencingToken() fencing token} to guard the resource it protects, and is
 * told through {@link Lease#addListener} when the lease is suspended or lost with the
 * ZooKeeper session.
 *
 * <p><b>Fairness.</b> Waiters are granted in the order their nodes were created, which is the
 * order in which their requests reached the ZooKeeper leader. Nothing is promised about the
 * order of two requests that were issued concurrently.
 *
 * <p><b>The lock directory.</b> The path is a directory of queue nodes, made as a container
 * (the server removes it once it is empty). It belongs to zklock: its own data is overwritten
 * with empty bytes by a client that re-acquires the lock in one round trip, so nothing else
 * should be stored there.
 *
 * <p><b>Memory consistency.</b> Actions in a thread before it closes a lease
 * <i>happen-before</i> actions that follow a successful acquisition of the same lock by a
 * thread of the same JVM. Across JVMs the only ordering is the one ZooKeeper gives; use the
 * fencing token where that matters.
 */
public interface DistributedLock {

    /** {@return the ZooKeeper path of this lock, exactly as given to the constructor} */
    String path();

    /**
     * Acquires the lock, waiting as long as it takes.
     *
     * <p>One of these things happens:
     * <ul>
     *   <li>the lock is granted and a {@code HELD} lease is returned;</li>
     *   <li>the calling thread is interrupted: its queue node is deleted and
     *       {@link InterruptedException} is thrown;</li>
     *   <li>ZooKeeper refuses the request for a reason that retrying cannot fix (no
     *       authorisation), or the {@code CuratorFramework} client is closed before or while
     *       waiting: {@link LockException} is thrown, its message naming the cause, and no node
     *       is left behind.</li>
     * </ul>
     * Connection loss while waiting is ridden out; session expiry while waiting queues the
     * request again at the back of the queue of the new session. A lock directory that the
     * server reaps while the request creates its node is made again, invisibly.
     *
     * @return the lease, to be closed by the caller
     * @throws InterruptedException if the thread is interrupted on entry or while waiting
     */
    Lease acquire() throws InterruptedException;

    /**
     * Acquires the lock if it is granted within {@code timeout}.
     *
     * <p>One of these things happens:
     * <ul>
     *   <li>the lock is granted within the timeout: the lease is returned;</li>
     *   <li>the timeout elapses: the queue node is deleted and an empty optional is returned;
     *       with {@link Duration#ZERO} exactly one attempt is made;</li>
     *   <li>the calling thread is interrupted: the node is deleted and
     *       {@link InterruptedException} is thrown;</li>
     *   <li>ZooKeeper refuses the request, or the client is closed: {@link LockException};
     *       never an empty optional.</li>
     * </ul>
     * A grant that arrives just as the timeout elapses is released, never leaked.
     *
     * @param timeout how long to wait; {@code ZERO} means one attempt
     * @return the lease, to be closed by the caller, or empty if the timeout elapsed first
     * @throws InterruptedException if the thread is interrupted on entry or while waiting
     * @throws IllegalArgumentException if the timeout is null or negative
     */
    Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException;

    /**
     * Starts an acquisition without blocking the caller.
     *
     * <p>The future completes with the lease, or exceptionally with
     * {@link java.util.concurrent.TimeoutException} when {@code timeout} elapses, or with
     * {@link LockException} (also when the client is closed, before or while waiting).
     * {@code cancel()} withdraws the request and deletes its node; a
     * grant that races the cancellation is released. An asynchronous acquisition never
     * re-enters a lock held by the calling thread, and its lease is bound to no thread.
     *
     * @param timeout how long to wait; {@code ZERO} means one attempt
     * @return a future of the lease, to be closed by whoever takes it from the future
     * @throws IllegalArgumentException if the timeout is null or negative
     * @throws IllegalStateException if the client was never started
     */
    CompletableFuture<Lease> acquireAsync(Duration timeout);

    /**
     * {@return whether the current thread holds this lock through a blocking acquisition that
     * is still valid}
     */
    boolean isHeldByCurrentThread();

    /**
     * A {@link Lock} view of this lock for code written against {@code java.util.concurrent}:
     * {@code unlock()} releases the most recent acquisition by the calling thread.
     * {@code newCondition()} is unsupported. The same view is returned on every call.
     *
     * @return the {@code Lock} view
     */
    Lock asLock();
}
