package io.zklock.leader;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockException;
import io.zklock.core.LockOptions;
import io.zklock.core.Participant;
import io.zklock.core.spi.JucLockView;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.QueueHeadWatch;
import io.zklock.core.spi.ThreadPermits;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/*
 * Overview.
 *
 * An election is a fair mutex with a richer life around it, on the same engine as the locks:
 * each candidacy is one request of a LockEngine of kind "leader" with the exclusive driver, whose
 * nodes carry the participant's id in their owner data. The first node in queue order leads;
 * every other candidate watches only the node right ahead of it, so a leader's end wakes exactly
 * its successor and an idle standby sends nothing. The lease of the grant is the leadership: its
 * states (HELD, SUSPENDED, LOST, RELEASED) and listeners are the engine's, its fencing token (the
 * node's czxid) is the epoch, and its guard fences ZooKeeper writes. Nothing is granted from what
 * a client remembers: every grant is the driver's verdict on the server's queue (a listing, the
 * queue a tree watch of its client tells exactly, or a listing less the one candidate it showed
 * ahead, once the server tells this session that candidate's node is gone; each lists again
 * after any connection news), so a client that reconnects, or comes back on a new session, leads
 * only if the server says so now.
 *
 * Observers read the queue as it is: currentLeader() lists the path and reads the first node;
 * onLeaderChange() shares one watch per client and path (core's QueueHeadWatch), on the leader's node
 * (or on the path while nobody leads), so standby observers are woken once per leader change.
 */
/**
 * A leader election on one ZooKeeper path: at most one participant leads at a time, and each
 * leader holds an epoch that fences.
 *
 * <p>Each candidate joins a queue (one ephemeral-sequential node, whose owner data names the
 * participant); the first in the queue leads. {@link #awaitLeadership()} waits to lead and
 * returns a {@link Leadership}: a lease whose state says whether this participant leads
 * ({@link LeaseState#HELD}), with listeners, a {@linkplain Leadership#guard() guard} for
 * ZooKeeper writes and an {@linkplain Leadership#epoch() epoch} for any other resource.
 * {@link Leadership#close()} steps down and leaves the election; {@link Leadership#requeue()}
 * steps down and joins again at the back. {@link #run(Consumer)} is the callback style: the
 * task runs while this participant leads, and is interrupted when leadership is no longer held.
 *
 * <p><b>Fairness.</b> Candidates lead in the order they joined (node sequence order). A
 * participant that leaves and joins again goes to the back.
 *
 * <p><b>Session loss.</b> A leadership is {@code SUSPENDED} while the connection is down and
 * {@code LOST} if the session expires; another candidate may lead from then on. A participant
 * that believes it leads only while its leadership is {@code HELD} never believes so beside
 * another leader that does; a process frozen past its session timeout may not have heard yet, so
 * guard what the leader writes with its epoch. A candidate whose session expires while it waits
 * joins again on the new session.
 *
 * <p><b>As a lock.</b> The election is also a {@link DistributedLock} (each acquisition is a
 * candidacy; not reentrant, as a semaphore of one permit), so code written against the lock
 * interface, and the conformance suite, can drive it.
 *
 * <pre>{@code
 * ZkLeaderElection election = new ZkLeaderElection(client, "/elections/billing", "billing-1");
 * try (Leadership leadership = election.awaitLeadership()) {
 *     while (leadership.isValid()) {
 *         ledger.append(entry, leadership.epoch());   // the ledger refuses an older epoch
 *     }
 * }
 * }</pre>
 */
public final class ZkLeaderElection implements DistributedLock, AutoCloseable {
    /** The kind written into an election's node names. */
    public static final String KIND = "leader";
    /** The election's facts, stated once: its nodes, the exclusive driver, one leader. */
    static final RecipeDescriptor RECIPE = new RecipeDescriptor(KIND, LockDriver.EXCLUSIVE, 1);
    private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();
    private static final int MAX_READS = 10;

    private final CuratorFramework client;
    private final LockEngine engine;
    private final String participantId;
    private final ThreadPermits permits = new ThreadPermits();
    private final Lock view = new JucLockView(this);
    private final Set<ElectedLeadership> held = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
    private final Set<LeaderSubscription> subscriptions = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param client a started Curator client; may be shared with other locks and elections
     * @param path the election's ZooKeeper path, absolute, e.g. {@code /elections/billing}
     * @param participantId who this participant is, as observers will see it (a host name, a
     *        pod name): not blank, one line, at most 256 characters. Ids are not checked for
     *        uniqueness; each candidacy is told apart by its node
     * @throws IllegalArgumentException naming the bad argument
     */
    public ZkLeaderElection(CuratorFramework client, String path, String participantId) {
        this(client, path, participantId, LockOptions.defaults());
    }

    /**
     * An election whose leaderships keep {@code options}' validity margin in
     * {@link Lease#validFor()} (see {@link LockOptions#withValidityMargin(java.time.Duration, double)});
     * the other options do not apply to an election and must be left at their defaults.
     *
     * @param client a started Curator client; may be shared with other locks and elections
     * @param path the election's ZooKeeper path, absolute
     * @param participantId who this participant is, as for {@link #ZkLeaderElection(CuratorFramework, String, String)}
     * @param options {@link LockOptions#defaults()}, with a validity margin or not
     * @throws IllegalArgumentException naming the bad argument, or an option an election does not take
     */
    public ZkLeaderElection(CuratorFramework client, String path, String participantId, LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options is null; use LockOptions.defaults()");
        }
        LockOptions marginOnly = options.validityMargin().map(LockOptions.defaults()::withValidityMargin).orElse(LockOptions.defaults());
        if (!options.equals(marginOnly)) {
            throw new IllegalArgumentException("an election takes a validity margin only (no caching, compatibility or "
                    + "lock-delay), was " + options);
        }
        this.engine = new LockEngine(client, path, RECIPE, options).withParticipant(participantId);
        this.client = client;
        this.participantId = participantId;
    }

    /** {@return this participant's id} */
    public String participantId() {
        return participantId;
    }

    @Override
    public String path() {
        return engine.path();
    }

    // ---- leading ----------------------------------------------------------------------------

    /**
     * Joins the election and waits as long as it takes to lead. One of these things happens:
     * <ul>
     *   <li>this participant leads: its leadership is returned, {@code HELD};</li>
     *   <li>the thread is interrupted: the candidacy is withdrawn (its node deleted) and
     *       {@link InterruptedException} is thrown;</li>
     *   <li>ZooKeeper refuses the request, or the client is closed: {@link LockException}.</li>
     * </ul>
     *
     * @return the leadership, to be closed to step down
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if this election is closed (also if it was closed while the
     *         call waited: a leadership granted then is stepped down at once)
     */
    public Leadership awaitLeadership() throws InterruptedException {
        checkOpen();
        return adopt(permits.track(engine.acquire()));
    }

    /**
     * Joins the election and waits at most {@code timeout} to lead; as {@link #awaitLeadership()},
     * and when the timeout elapses first the candidacy is withdrawn and the result is empty.
     *
     * @param timeout how long to wait; {@code ZERO} means one attempt
     * @return the leadership, or empty on timeout
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if the timeout is null or negative
     * @throws IllegalStateException if this election is closed
     */
    public Optional<Leadership> awaitLeadership(Duration timeout) throws InterruptedException {
        checkOpen();
        Optional<Lease> lease = engine.tryAcquire(timeout);
        return lease.isEmpty() ? Optional.empty() : Optional.of(adopt(permits.track(lease.get())));
    }

    /**
     * Joins the election without blocking; the future completes with the leadership when this
     * participant leads, or exceptionally with {@link LockException}. {@code cancel()} withdraws
     * the candidacy (a leadership granted meanwhile is stepped down), as does closing the
     * election.
     *
     * @return a future of the leadership
     * @throws IllegalStateException if this election is closed
     */
    public CompletableFuture<Leadership> leadershipAsync() {
        return leadershipAsync(FOREVER);
    }

    /**
     * As {@link #leadershipAsync()}, waiting at most {@code timeout}: the future then completes
     * exceptionally with {@link java.util.concurrent.TimeoutException}.
     *
     * @param timeout how long to wait; {@code ZERO} means one attempt
     * @return a future of the leadership
     * @throws IllegalArgumentException if the timeout is null or negative
     * @throws IllegalStateException if this election is closed
     */
    public CompletableFuture<Leadership> leadershipAsync(Duration timeout) {
        checkOpen();
        CompletableFuture<Lease> request = engine.acquireAsync(timeout);
        pending.add(request);
        CompletableFuture<Leadership> user = new CompletableFuture<>();
        request.whenComplete((lease, error) -> {
            pending.remove(request);
            if (error != null) {
                user.completeExceptionally(error);
                return;
            }
            ElectedLeadership leadership;
            try {
                leadership = adopt(lease);
            } catch (RuntimeException closedMeanwhile) {   // closed meanwhile, or the adoption failed: never a silent wait
                lease.close();
                user.completeExceptionally(closedMeanwhile);
                return;
            }
            if (!user.complete(leadership)) {
                leadership.close();            // cancelled while the grant was on its way
            }
        });
        user.whenComplete((leadership, error) -> {
            if (error != null) {
                request.cancel(false);         // withdraws the candidacy; a no-op once granted
            }
        });
        if (closed) {
            request.cancel(false);
        }
        return user;
    }

    /**
     * Leads, then runs {@code task} on the calling thread while leading: waits as
     * {@link #awaitLeadership()}, runs the task with the leadership, and steps down when the task
     * returns or throws. If the leadership stops being {@code HELD} while the task runs
     * (connection lost, session expired, node deleted), the calling thread is interrupted: the
     * task should end promptly; it no longer leads. Call it in a loop to stay a candidate.
     *
     * @param task what the leader does; it leads while it runs and the leadership is {@code HELD}
     * @return true if the task ended while still leading, false if the leadership was lost
     *         (or suspended) while it ran or before it started (the task then did not run); the
     *         interrupt this method caused is cleared before it returns
     * @throws InterruptedException if interrupted while waiting to lead
     * @throws IllegalArgumentException if the task is null
     * @throws IllegalStateException if this election is closed
     */
    public boolean run(Consumer<? super Leadership> task) throws InterruptedException {
        if (task == null) {
            throw new IllegalArgumentException("task is null");
        }
        Leadership leadership = awaitLeadership();
        TaskInterrupt interrupt = new TaskInterrupt(Thread.currentThread());
        try {
            leadership.addListener((l, state) -> {
                if (state != LeaseState.HELD) {
                    interrupt.fire();
                }
            });
            if (!leadership.isValid()) {       // changed before the listener was added, which hears only later changes
                return false;
            }
            task.accept(leadership);
            return !interrupt.end();
        } finally {
            interrupt.end();
            leadership.close();
        }
    }

    /** Interrupts the task's thread at most once, and only while the task may be running. */
    private static final class TaskInterrupt {
        private final Thread runner;
        private boolean running = true;
        private boolean fired;

        TaskInterrupt(Thread runner) {
            this.runner = runner;
        }

        synchronized void fire() {
            if (running && !fired) {
                fired = true;
                runner.interrupt();
            }
        }

        /** Stops further interrupts; clears the one it made. {@return whether it made one} */
        synchronized boolean end() {
            if (running && fired) {
                Thread.interrupted();
            }
            running = false;
            return fired;
        }
    }

    /** {@return whether this participant leads now: one of its leaderships is {@code HELD}} */
    public boolean isLeader() {
        return held.stream().anyMatch(Leadership::isValid);
    }

    // ---- observing --------------------------------------------------------------------------

    /**
     * Who leads now, as the server says: one listing of the path and one read of the first
     * node. Any client may ask, candidate or not.
     *
     * @return the leader, or empty if nobody leads (no candidate, or no such path)
     * @throws LockException if ZooKeeper cannot be read
     */
    public Optional<LeaderInfo> currentLeader() {
        for (int read = 0; read < MAX_READS; read++) {
            List<LockNode> sorted;
            try {
                sorted = LockNode.sorted(client.getChildren().forPath(path()));
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty();       // no such path: nobody leads
            } catch (Exception e) {
                throw new LockException("reading the leader of " + path() + " failed: " + e, e);
            }
            if (sorted.isEmpty() || !sorted.get(0).is(KIND)) {
                return Optional.empty();
            }
            Optional<LeaderInfo> leader = read(ZKPaths.makePath(path(), sorted.get(0).name()));
            if (leader.isPresent()) {
                return leader;
            }
        }
        throw new LockException("the leader of " + path() + " changed on each of " + MAX_READS + " reads");
    }

    /** The leader the node at {@code nodePath} is; empty if the node went since it was listed. */
    private Optional<LeaderInfo> read(String nodePath) {
        try {
            Stat stat = new Stat();
            byte[] data = client.getData().storingStatIn(stat).forPath(nodePath);
            return Optional.of(info(nodePath, stat, data));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();           // the leader's node went between the two reads: read again
        } catch (Exception e) {
            throw new LockException("reading the leader of " + path() + " failed: " + e, e);
        }
    }

    /** The leader that the node at {@code nodePath}, read with {@code stat} and {@code data}, is. */
    private static LeaderInfo info(String nodePath, Stat stat, byte[] data) {
        return new LeaderInfo(LockEngine.participantIdIn(data).orElse("?"), stat.getCzxid(), Instant.ofEpochMilli(stat.getCtime()),
                nodePath);
    }

    /** The leader a queue's head is: none when the head is not a candidate (another recipe's node on the path). */
    private static Optional<LeaderInfo> leader(QueueHeadWatch.Head head) {
        return head.node().is(KIND)
                ? Optional.of(new LeaderInfo(head.participantId().orElse("?"), head.czxid(), head.createdAt(), head.nodePath()))
                : Optional.empty();
    }

    /**
     * The candidates in queue order, the leader first, by participant id ({@code "?"} for a
     * node whose data names none). One listing and one read per candidate.
     *
     * @return the participant ids
     * @throws LockException if ZooKeeper cannot be read
     */
    public List<String> participants() {
        return engine.participants().stream().map(p -> p.participantId().orElse("?")).toList();
    }

    /**
     * The candidates in queue order with everything status knows of their nodes (owner, node,
     * epoch-to-be, whether it leads).
     *
     * @return the candidates' nodes
     * @throws LockException if ZooKeeper cannot be read
     */
    public List<Participant> candidates() {
        return engine.participants();
    }

    /**
     * Tells {@code listener} each time the leader changes, until the returned subscription (or
     * this election) is closed. Every listener of one client on one path shares one watch (see
     * {@link QueueHeadWatch}): on the leader's node, or on the path while nobody leads; nothing
     * is polled. An observer is woken once per leader change (a data change of the leader's
     * node, such as a revocation request, costs one more read and is not told). The listener
     * first hears the leader as it is once known, then each change; calls come on a ZooKeeper
     * event thread, one at a time, and must not block. After a reconnection the leader is read
     * again, and a change that happened meanwhile is told.
     *
     * @param listener told of the new leader
     * @return the subscription, to be closed to stop listening (its watch goes with the last one)
     * @throws IllegalArgumentException if the listener is null
     * @throws IllegalStateException if this election is closed
     */
    public LeaderSubscription onLeaderChange(LeaderListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        checkOpen();
        LeaderSubscription[] own = new LeaderSubscription[1];
        Runnable shared = QueueHeadWatch.subscribe(client, path(), head -> listener.leaderChanged(head.flatMap(ZkLeaderElection::leader)));
        own[0] = () -> {
            subscriptions.remove(own[0]);
            shared.run();
        };
        subscriptions.add(own[0]);
        if (closed) {
            own[0].close();
        }
        return own[0];
    }

    // ---- as a lock --------------------------------------------------------------------------

    /** {@link #awaitLeadership()}, as the lock interface calls it. */
    @Override
    public Leadership acquire() throws InterruptedException {
        return awaitLeadership();
    }

    /** {@link #awaitLeadership(Duration)}, as the lock interface calls it. */
    @Override
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        return awaitLeadership(timeout).map(Lease.class::cast);
    }

    /** {@link #leadershipAsync(Duration)}, as the lock interface calls it; {@code cancel()} withdraws. */
    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return (CompletableFuture) leadershipAsync(timeout);   // the same future: its cancel withdraws
    }

    /** Whether the current thread leads through a blocking call whose leadership is {@code HELD}. */
    @Override
    public boolean isHeldByCurrentThread() {
        return permits.heldByCurrentThread();
    }

    @Override
    public Lock asLock() {
        return view;
    }

    // ---- closing ----------------------------------------------------------------------------

    /**
     * Leaves the election: steps down from every leadership this object holds, withdraws its
     * asynchronous candidacies and ends its leader-change subscriptions. A thread blocked in
     * {@link #awaitLeadership()} keeps waiting until it is interrupted or its timeout passes; a
     * leadership it is granted after this call is stepped down at once and the call throws
     * {@link IllegalStateException}. Idempotent; the election cannot be used afterwards.
     */
    @Override
    public void close() {
        closed = true;
        pending.forEach(f -> f.cancel(false));
        held.forEach(ElectedLeadership::close);
        subscriptions.forEach(LeaderSubscription::close);
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the leader election " + this + " is closed");
        }
    }

    /** A granted lease as a leadership of this election; stepped down at once if the election closed meanwhile. */
    private ElectedLeadership adopt(Lease lease) {
        ElectedLeadership leadership = new ElectedLeadership(lease, this);
        held.add(leadership);
        leadership.addListener((l, state) -> {
            if (state == LeaseState.LOST || state == LeaseState.RELEASED) {
                held.remove(leadership);
            }
        });
        if (closed) {
            leadership.close();
            throw new IllegalStateException("the leader election " + this + " was closed while " + participantId
                    + " waited to lead");
        }
        return leadership;
    }

    void forget(ElectedLeadership leadership) {
        held.remove(leadership);
    }

    @Override
    public String toString() {
        return "ZkLeaderElection[" + path() + ", " + participantId + "]";
    }
}
