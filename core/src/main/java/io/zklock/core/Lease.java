package io.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * One grant of a {@link DistributedLock}, carried by one ZooKeeper node.
 *
 * <p>A lease starts {@link LeaseState#HELD}. While its session is disconnected it is
 * {@link LeaseState#SUSPENDED}: the node may still exist, but the holder cannot know (see {@link #validFor()} for how long it
 * certainly still holds). It returns to {@code HELD} when the same session reconnects, and becomes
 * {@link LeaseState#LOST} when the session expires or Curator declares it lost, after which
 * another client may hold the lock: listeners hear of it before the client deletes the
 * lease's node on its next connection (the server may keep an old session, and its node,
 * until it expires it itself; waiters need not wait for that). {@link #close()} makes it
 * {@link LeaseState#RELEASED} once the node is gone. {@code LOST} and {@code RELEASED} are
 * final. A lease that opted in to revocation ({@link #onRevocationRequested}) also becomes
 * {@code LOST} when another client deletes its node.
 *
 * <p>Protect a shared resource with the {@linkplain #fencingToken() fencing token}, not with
 * {@link #isValid()} alone: a process that pauses for longer than its session timeout still
 * believes it holds the lease until it hears otherwise. To write into ZooKeeper itself only
 * while the lease holds, put its {@linkplain #guard() guard} first in the transaction.
 */
public interface Lease extends AutoCloseable {

    /** {@return the full path of the ZooKeeper node that carries this lease} */
    String nodePath();

    /**
     * The czxid of the lease's node: strictly increasing across successive exclusive holders
     * of the same lock, so a resource that rejects a token lower than the last one it
     * accepted rejects a holder whose lease was lost. With {@link LeaseCaching cached leases}
     * the token belongs to the node, not to the lease: leases one process is granted again on a
     * kept node share it (a later node's is larger), so across processes, and past a lost
     * session, the order holds; between two local leases on one node it does not tell them
     * apart.
     *
     * @return the fencing token
     */
    long fencingToken();

    /** {@return the current state} */
    LeaseState state();

    /** {@return {@code state() == HELD}} */
    boolean isValid();

    /**
     * Registers a listener told of every state change after the grant: once per change, in
     * order, outside any lock of the library (so a listener may close the lease; it hears that
     * change after it returns). One thread tells a lease's listeners at a time: the thread that
     * made the change, unless another thread is telling that lease's changes, which then tells
     * this one too, after the earlier ones. Changes are made on Curator's connection-state
     * thread ({@code SUSPENDED}, {@code HELD}, a {@code LOST} noticed with the session);
     * ZooKeeper's event thread ({@code RELEASED} when the delete's reply arrives, a {@code LOST}
     * learnt from a reply or a watch, such as a forced revocation); the thread that closes the
     * Curator client (the {@code LOST} that closing causes); the thread that calls
     * {@link #close()} (a re-entered lease closed before the last is {@code RELEASED} there, and
     * a close that finds the session gone is {@code LOST} there); and the library's timer thread
     * (a retried delete that finds the session gone). A listener must not block, since the
     * lease's later changes wait for it; an exception it throws is logged and the other
     * listeners are still told. A listener added to a lease in a final state is never called.
     *
     * @param listener the listener to tell
     */
    void addListener(LeaseListener listener);

    /**
     * Opts this lease in to cooperative revocation: {@code handler} is called once when
     * someone asks the holder to let go ({@link LockAdmin#requestRevocation(String)},
     * {@code zklock revoke}). The request is written into the lease's node; the lease watches
     * its node's data from this call on (one read, then a data watch, nothing more while
     * nothing is asked). The handler runs on a library thread, never on a ZooKeeper event
     * thread, and decides: closing the lease is the usual answer, and nothing happens to the
     * lease unless the handler acts.
     *
     * <p>A request written before this call, or while the client was disconnected, is seen
     * when the call is made or the client reconnects. Each handler is called at most once per
     * lease; one added after a request was seen is called at once. A lease that never opts in
     * ignores requests and keeps its lease. No handler starts once the lease is in a final state.
     * An exception the handler throws is logged and ignored.
     *
     * <p>The watch also tells the lease at once when another client deletes its node (an
     * operator's forced revocation, {@code zklock revoke --force}): the lease turns
     * {@link LeaseState#LOST}, as another client may now be granted. A lease that did not opt in
     * cannot know of such a deletion before it next calls ZooKeeper, which is one more reason to
     * guard the resource with the {@linkplain #fencingToken() fencing token}.
     *
     * @param handler told of the request, with this lease
     * @throws IllegalArgumentException if the handler is null
     */
    void onRevocationRequested(Consumer<? super Lease> handler);

    /**
     * A check that this lease's node still exists, to put first in a ZooKeeper transaction
     * ({@code client.transaction().forOperations(lease.guard(), write...)}): the transaction
     * commits only while the node exists, and fails as a whole, writing nothing, once it is
     * gone, whether the lease was closed, its session expired, or an operator deleted the node
     * ({@code zklock revoke --force}). While the node exists no other client can be granted
     * against it, so a guarded write is a write by the holder. This covers writes into
     * ZooKeeper; a resource outside ZooKeeper is guarded with the
     * {@linkplain #fencingToken() fencing token}.
     *
     * <p>The check is on the node's path, built with the lock's client (its namespace), and
     * tests existence only (any version): the lease's own data changes (revocation requests,
     * grant notices) do not fail it. Node names carry a uuid, so a path never names another
     * lease's node. A lease in any state returns its check while the lock's client is open: on
     * a {@code RELEASED} lease, or a {@code LOST} one whose node is gone, the transaction fails
     * on it with {@code NoNode}; a {@code LOST} lease whose old session the server has not yet
     * expired still commits until the node is deleted, since nobody can be granted before that.
     * Once the lock's client is closed (or before it was started) Curator refuses to build any
     * operation, and this method throws instead. The
     * transaction itself decides, at the moment it commits: a state read just before it
     * could already be stale. A re-entered view shares its node with the other views of its
     * hold, so its guard passes while any of them keeps the node.
     *
     * @return a check operation on this lease's node, for one transaction of a client on the
     *         same ensemble
     * @throws UnsupportedOperationException if the lease is carried by several nodes (a
     *         multi-lock's lease): use {@link #guards()}
     * @throws IllegalStateException if the lock's client is closed or not started: Curator's
     *         {@code transactionOp()} throws its {@code CuratorClosedException} (or an
     *         {@code IllegalStateException} naming the client's state), which this carries as
     *         its cause
     */
    CuratorOp guard();

    /**
     * One {@linkplain #guard() guard} per node that carries this lease, in a stable order: put
     * all of them first in the transaction, which then commits only while every node exists.
     * A lease on one node returns {@code List.of(guard())}.
     *
     * @return the checks, never empty
     */
    default List<CuratorOp> guards() {
        return List.of(guard());
    }

    /**
     * How long this lease is certainly still held even if the client hears nothing more from
     * ZooKeeper: zero once it is unsure. It counts down, on the monotonic clock, from the send
     * time of the last request of the lease's session that a server answered: ZooKeeper's server
     * keeps a session at least its negotiated timeout after it last received a request of it, so
     * no other client can be granted before then. From that the figure takes a margin for the
     * difference between the client's and the server's clock rates and for what an ensemble adds
     * (see {@link LeaseValidity}). It holds in every state: {@code HELD} counts down from the last
     * answer, {@code SUSPENDED} keeps counting down (nothing more is answered), {@code LOST} and
     * {@code RELEASED} are zero. The client keeps the figure fresh while it is read: once this is
     * called, and for one session timeout after the last call, the client sends a cheap request
     * (an {@code exists}, no watch) whenever none of its own was answered for a quarter of the
     * session timeout. A multi-lock's lease gives the least of its components'.
     *
     * <p><b>What it promises.</b> A holder that calls {@link #checkValidFor(Duration)} before
     * each action on the protected resource, with a bound on how long the action takes, and acts
     * only if the check passes, never acts while a later holder holds the lock, unless the process
     * pauses (a stop-the-world collection, a frozen virtual machine, a stopped process) for longer
     * than the margin between the check and the end of the action, or the clocks drift apart
     * faster than the margin allows. A lock built with a lock-delay (see {@link LockDelay}) makes
     * the next holder wait that much longer after a holder's session ended, which covers pauses up
     * to the delay as well. Nothing on the client can do more: a paused process cannot know it
     * paused until it runs again. <b>What fencing adds</b>: a resource that checks the
     * {@linkplain #fencingToken() fencing token} (or a ZooKeeper write {@linkplain #guard()
     * guarded} by the node) refuses a late writer whatever it believes and however long it
     * paused. Use this check where the resource cannot check a token; use both where it can.
     *
     * @return how long the lease is certainly held, never negative; {@link Duration#ZERO} once
     *         unsure
     */
    default Duration validFor() {
        return Duration.ZERO;
    }

    /**
     * Checks that this lease is certainly held for at least {@code needed} more (see
     * {@link #validFor()}), for a holder about to act on a resource that cannot check a fencing
     * token:
     * <pre>{@code
     * lease.checkValidFor(Duration.ofSeconds(2));   // throws unless 2 s are certainly left
     * uploadReport();                               // must finish within those 2 s
     * }</pre>
     *
     * @param needed how long the action about to start may take
     * @throws LockException naming the lease, what was needed and what was left, if less is left
     * @throws IllegalArgumentException if {@code needed} is null or negative
     */
    default void checkValidFor(Duration needed) {
        if (needed == null || needed.isNegative()) {
            throw new IllegalArgumentException("needed must be a duration of zero or more, was " + needed);
        }
        Duration left = validFor();
        if (left.compareTo(needed) < 0 || left.isZero()) {
            throw new LockException("lease " + nodePath() + " (" + state() + ") is certain for " + left.toMillis()
                    + " ms, less than the " + needed.toMillis() + " ms needed");
        }
    }

    /**
     * Releases the lease: its node is deleted (the last close of a re-entered lease deletes
     * it). Idempotent, callable from any thread, and a no-op on a {@code LOST} lease. If the
     * delete cannot reach ZooKeeper it is retried in the background until it succeeds or the
     * session ends; the lease keeps its state until then.
     */
    @Override
    void close();
}
