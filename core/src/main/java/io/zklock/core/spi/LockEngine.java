package io.zklock.core.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LockDelay;
import io.zklock.core.LockException;
import io.zklock.core.Participant;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.inspect.Inspection;
import io.zklock.core.internal.lease.LeaseCache;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.request.AcquireTally;
import io.zklock.core.internal.request.Acquisition;
import io.zklock.core.internal.request.Blocking;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import org.apache.curator.framework.CuratorFramework;

/**
 * The queueing engine every recipe runs on: one lock directory, and one
 * {@link RecipeDescriptor} (the node kind, its {@link LockDriver}, maxLeases). Recipes are thin
 * classes over an engine; how a request obtains a node and
 * waits for its grant is stated at the top of {@code Acquisition}, {@code NodeCreation} and
 * {@code GrantWait}. The engine's requests never re-enter: re-entry is
 * {@link ReentrantLockSupport}'s.
 *
 * <p>This class is the SPI between {@code core} and the recipe modules; applications use the
 * recipes. It keeps only what a recipe calls: the stages of a request take the directory's
 * internal context, never the engine.
 */
public final class LockEngine {
    private final LockContext context;
    private final LeaseCache cache;            // null unless caching is on

    /**
     * An engine whose nodes are never kept after use.
     *
     * @param client a Curator client; it may be shared by many locks
     * @param path the lock directory
     * @param recipe the kind of this engine's nodes, their driver and the lock's maxLeases
     * @throws IllegalArgumentException naming the bad argument
     */
    public LockEngine(CuratorFramework client, String path, RecipeDescriptor recipe) {
        this(client, path, recipe, LeaseCaching.off());
    }

    /**
     * An engine whose nodes may be kept cached after use (see {@link LeaseCaching}). Whether one
     * cached node serves many local leases at once or one at a time follows from the recipe
     * ({@link RecipeDescriptor#sharesLocally()}).
     *
     * @param client a Curator client; it may be shared by many locks
     * @param path the lock directory
     * @param recipe the kind of this engine's nodes, their driver and the lock's maxLeases
     * @param caching whether, and how long, a node is kept after its last local lease closes
     * @throws IllegalArgumentException naming the bad argument
     */
    public LockEngine(CuratorFramework client, String path, RecipeDescriptor recipe, LeaseCaching caching) {
        this(context(client, path, recipe, caching));
    }

    /**
     * An engine with cached leases and a lock-delay after a holder's session ended (see
     * {@link LockDelay}).
     *
     * @param client a Curator client; it may be shared by many locks
     * @param path the lock directory
     * @param recipe the kind of this engine's nodes, their driver and the lock's maxLeases
     * @param caching whether, and how long, a node is kept after its last local lease closes
     * @param lockDelay the lock-delay, or {@link LockDelay#off()}
     * @throws IllegalArgumentException naming the bad argument
     */
    public LockEngine(CuratorFramework client, String path, RecipeDescriptor recipe, LeaseCaching caching, LockDelay lockDelay) {
        this(context(client, path, recipe, caching).withLockDelay(lockDelay));
    }

    /** {@return the lock-delay of this engine's lock} */
    public LockDelay lockDelay() {
        return context.lockDelay();
    }

    private static LockContext context(CuratorFramework client, String path, RecipeDescriptor recipe, LeaseCaching caching) {
        if (recipe == null) {
            throw new IllegalArgumentException("recipe is null");
        }
        return LockContext.of(client, path, recipe.kind(), recipe.driver(), recipe.maxLeases())
                .withCaching(caching, recipe.sharesLocally());
    }

    LockEngine(LockContext context) {
        this.context = context;
        this.cache = context.caching().isOn() ? LeaseCache.of(context) : null;
    }

    /** {@return whether, and how long, this engine's nodes are kept after use} */
    public LeaseCaching caching() {
        return context.caching();
    }

    /**
     * Releases the nodes this engine's client keeps cached on this directory and kind: idle
     * ones now, those in use when their leases close. Leases in use stay valid. Nothing when
     * caching is off.
     */
    public void releaseCachedNodes() {
        if (cache != null) {
            cache.clear();
        }
    }

    /**
     * An engine on the same directory, of the same kind, whose nodes are anchored at
     * {@code anchorSequence} (see {@link LockNode}): they queue at that sequence number's place
     * instead of their own. A read lock's downgrade takes its read node through one.
     *
     * @param anchorSequence the sequence number of the node whose place the new nodes take
     * @param driver decides the new engine's grants
     * @return the anchored engine
     * @throws IllegalArgumentException if the driver is null
     */
    public LockEngine anchoredAt(long anchorSequence, LockDriver driver) {
        return new LockEngine(context.anchoredAt(anchorSequence, driver));
    }

    /** @return the lock directory, as given */
    public String path() {
        return context.path();
    }

    /** @return the kind written into this engine's node names */
    public String kind() {
        return context.kind();
    }

    /** @return holders admitted at once */
    public int maxLeases() {
        return context.maxLeases();
    }

    LockContext context() {
        return context;
    }

    // ---- requests ---------------------------------------------------------------------------

    /** See {@link io.zklock.core.DistributedLock#acquire()}; never re-enters. */
    public Lease acquire() throws InterruptedException {
        Optional<Lease> granted = acquire(Deadline.unbounded());
        return granted.isPresent() ? granted.get() : Deadline.grantOfUnbounded(granted, "lock " + path());
    }

    /** See {@link io.zklock.core.DistributedLock#tryAcquire(Duration)}; never re-enters. */
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        return acquire(Deadline.after(timeout));
    }

    /** Acquires before {@code deadline}: empty when it passes first; never re-enters. */
    public Optional<Lease> acquire(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Lease local = local();
        boolean leads = false;
        if (local == null && cache != null && !deadline.isSingleAttempt()) {
            if (cache.sharedLocally()) {       // wait for another local reader's node rather than queue one more
                LeaseCache.Miss miss = null;
                while (local == null && miss != LeaseCache.Miss.LEAD && miss != LeaseCache.Miss.ALONE) {
                    miss = cache.leadOrJoin(deadline);
                    if (miss instanceof LeaseCache.Miss.Join join) {
                        if (!cache.awaitLead(join.inFlight(), deadline)) {
                            return Optional.empty();
                        }
                        local = local();
                        if (local == null && deadline.hasExpired()) {
                            return Optional.empty();   // the lead ended at our deadline: lead nothing
                        }
                    }
                }
                leads = miss == LeaseCache.Miss.LEAD;
            } else {                           // a permit: wait for a local lease to close while every permit is taken
                local = cache.awaitLocal(context, context.caching().idle(), deadline);
                if (local == null && deadline.hasExpired()) {
                    return Optional.empty();
                }
            }
        }
        if (local != null) {
            return Optional.of(local);
        }
        try {
            return Blocking.await(start(deadline), outcome -> ZkLease.releaseAll(List.of(lease(outcome))),
                            () -> "acquisition of lock " + path())
                    .map(this::handOut);
        } finally {
            if (leads) {
                cache.leadEnded();
            }
        }
    }

    /** See {@link io.zklock.core.DistributedLock#acquireAsync(Duration)}. */
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        Deadline deadline = Deadline.after(timeout);
        Lease local = local();
        if (local != null) {
            return CompletableFuture.completedFuture(local);
        }
        return Blocking.userFuture(() -> start(deadline), this::handOut, LockEngine::release);
    }

    /** A local re-grant of a cached node, with no request; null if there is none to take. */
    private Lease local() {
        return cache == null ? null : cache.tryLocal(context.caching().idle());
    }

    /** The lease of a grant ZooKeeper made: kept in the cache when caching is on. */
    private Lease handOut(Acquisition.End outcome) {
        ZkLease lease = lease(outcome);
        return cache == null ? lease : cache.adopt(lease, context.caching().idle());
    }

    private Acquisition start(Deadline deadline) {
        AcquireTally tally = AcquireTally.begin(context);
        tally.checkBeforeStart(context.client(), () -> "lock " + path());
        return Acquisition.start(context, deadline, tally);
    }

    private static ZkLease lease(Acquisition.End outcome) {
        return ((Acquisition.End.Leased) outcome).lease();   // a request that made its own node is never Lost
    }

    private static void release(Acquisition.End outcome) {
        if (outcome instanceof Acquisition.End.Leased leased) {
            leased.lease().release();
        }
    }

    /**
     * The node right ahead of {@code lease}'s node, in queue order, in the listing on which the
     * driver granted it: what a recipe checks a grant against without a driver that records
     * state (a read lock's downgrade asks whether its anchor was still there).
     *
     * @param lease a lease this engine's {@code acquire} returned
     * @return that node; empty if none was ahead, or the grant was known without a listing
     * @throws IllegalArgumentException if the lease is not one the engine granted
     */
    public Optional<LockNode> predecessorAtGrant(Lease lease) {
        if (lease instanceof ZkLease granted && granted.nodePath().startsWith(path() + "/")) {
            return granted.predecessorAtGrant();
        }
        throw new IllegalArgumentException("lease " + lease + " was not granted by " + this);
    }

    /**
     * The node that carries {@code lease}, parsed once here so that no recipe reads node paths.
     *
     * @param lease a lease on a node of this engine's directory: one this engine or another
     *        engine on the directory granted, or a view over one (a re-entered hold)
     * @return its node
     * @throws IllegalArgumentException if the lease's node is not a lock node of this directory
     */
    public LockNode nodeOf(Lease lease) {
        String nodePath = lease.nodePath();
        int slash = nodePath.lastIndexOf('/');
        if (slash < 0 || !nodePath.substring(0, slash).equals(path())) {
            throw new IllegalArgumentException("lease node " + nodePath + " is not in " + path());
        }
        return LockNode.parse(nodePath.substring(slash + 1))
                .orElseThrow(() -> new IllegalArgumentException("lease node " + nodePath + " has an unexpected name"));
    }

    /**
     * Who holds and who waits on this lock now, in queue order, each judged by its own
     * recipe's driver (see {@link Inspection}). Foreign children are left out.
     *
     * @return the participants
     * @throws LockException if ZooKeeper cannot be read
     */
    public List<Participant> participants() {
        return new Inspection(context.port(), context).status(path(), null).participants();
    }

    @Override
    public String toString() {
        return "LockEngine[" + path() + ", " + kind() + ", maxLeases " + maxLeases() + "]";
    }
}
