package io.zklock.leader;

import java.util.concurrent.CompletableFuture;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;

/**
 * What the leader of a {@link ZkLeaderElection} holds: a {@link Lease} on its candidate node,
 * with the election's words for it.
 *
 * <p>A participant leads while its leadership is {@link LeaseState#HELD}, and only then: a
 * leadership is {@code SUSPENDED} while its connection is down (it may still lead, it cannot
 * know), back to {@code HELD} when the same session reconnects, {@code LOST} once the session
 * ends (another candidate may lead now), and {@code RELEASED} once it stepped down. Listeners
 * ({@link #addListener}) are told of every change, and hear this leadership as the lease.
 *
 * <p><b>The epoch fences.</b> {@link #epoch()} is strictly larger for every later leader of
 * the same election path, across sessions and processes: a resource that refuses an epoch
 * lower than the highest it has seen refuses a deposed leader, even one frozen past its
 * session timeout that still believes it leads. Writes into ZooKeeper itself are fenced with
 * {@link #guard()}: put first in a transaction, it commits only while this leader's node exists.
 */
public interface Leadership extends Lease {

    /**
     * The leader's epoch: its node's czxid, the same number as {@link #fencingToken()}. Strictly
     * increasing across the leaders of one election path.
     *
     * @return the epoch
     */
    long epoch();

    /** {@return the id of the participant that leads with this leadership} */
    String participantId();

    /**
     * Steps down and stays a candidate: this leadership is closed (its node deleted, the next
     * candidate in the queue leads) and the participant joins again at the back of the queue.
     * The delete is sent before the new node's create, on the same connection, so every
     * candidate queued now leads before this participant leads again; if there is none, it leads
     * again, with a larger epoch.
     *
     * @return the participant's next leadership, as {@link ZkLeaderElection#leadershipAsync()}
     *         gives it (cancel it to leave the election)
     * @throws IllegalStateException if the election is closed
     */
    CompletableFuture<Leadership> requeue();
}
