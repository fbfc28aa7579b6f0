package io.zklock.core.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LockCompatibility;
import io.zklock.core.LockDelay;
import io.zklock.core.LockException;
import io.zklock.core.LockOptions;
import io.zklock.core.Participant;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.cache.LeaseStrategy;
import io.zklock.core.internal.cache.ZkQueue;
import io.zklock.core.internal.inspect.Inspection;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.request.AcquisitionQueue;
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
    private final LeaseStrategy strategy;      // picked once: uncached, or how the cache grants locally
    private final ZkQueue queue;               // the requests that queue a node, naming the participant if any
    private final String participantId;        // null unless the engine's requests name a participant

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
        this(client, path, recipe, LockOptions.defaults().withCaching(caching));
    }

    /**
     * An engine built with {@code options}: its caching (see {@link LeaseCaching}; whether one
     * cached node serves many local leases at once follows from the recipe), the node layout it
     * writes (see {@link LockCompatibility}; its driver decides over both layouts) and its
     * lock-delay after a holder's session ended (see {@link LockDelay}).
     *
     * @param client a Curator client; it may be shared by many locks
     * @param path the lock directory
     * @param recipe the kind of this engine's nodes (named as Curator names that kind in
     *        {@link LockCompatibility#CURATOR}), their driver and the lock's maxLeases
     * @param options the lock's options
     * @throws IllegalArgumentException naming the bad argument
     */
    public LockEngine(CuratorFramework client, String path, RecipeDescriptor recipe, LockOptions options) {
        this(context(client, path, recipe, options), recipe, options.caching());
    }

    private LockEngine(LockContext context, RecipeDescriptor recipe, LeaseCaching caching) {
        this.context = caching.isOn() ? context.withCachingNodes(LeaseStrategy.hearsCreations(recipe)) : context;
        this.strategy = LeaseStrategy.of(this.context, recipe, caching);
        this.participantId = null;
        this.queue = new AcquisitionQueue(this.context, null);
    }

    private LockEngine(LockContext context, LeaseStrategy strategy, String participantId) {
        this.context = context;
        this.strategy = strategy;
        this.participantId = participantId;
        this.queue = new AcquisitionQueue(context, participantId);
    }

    /** {@return the lock-delay of this engine's lock} */
    public LockDelay lockDelay() {
        return context.lockDelay();
    }

    private static LockContext context(CuratorFramework client, String path, RecipeDescriptor recipe, LockOptions options) {
        if (recipe == null) {
            throw new IllegalArgumentException("recipe is null");
        }
        if (options == null) {
            throw new IllegalArgumentException("options is null; use LockOptions.defaults()");
        }
        return LockContext.of(client, path, recipe.kind(), recipe.driver(), recipe.maxLeases())
                .withCompatibility(options.compatibility()).withLockDelay(options.lockDelay())
                .withValidityMargin(options.validityMargin().orElse(null));
    }

    /**
     * An engine that writes the node layout of {@code compatibility} (see
     * {@link LockCompatibility}); its driver decides over both layouts.
     *
     * @param client a Curator client; it may be shared by many locks
     * @param path the lock directory
     * @param recipe the kind of this engine's nodes (named as Curator names that kind in
     *        {@link LockCompatibility#CURATOR}), their driver and the lock's maxLeases
     * @param caching whether, and how long, a node is kept after its last local lease closes
     * @param compatibility the layout written
     * @throws IllegalArgumentException naming the bad argument, or naming both caching and
     *         compatibility when caching is on in {@link LockCompatibility#CURATOR}
     */
    public LockEngine(CuratorFramework client, String path, RecipeDescriptor recipe, LeaseCaching caching,
            LockCompatibility compatibility) {
        this(client, path, recipe, LockOptions.defaults().withCaching(caching).withCompatibility(compatibility));
    }

    /**
     * An engine on the same directory, of the same kind, whose requests name a participant: its
     * id is written into each node's owner data (after the owner's lines), where
     * {@link Participant#participantId()} reads it back. A leader election's candidates are told
     * apart by it.
     *
     * @param participantId the participant's id: not blank, one line, at most 256 characters
     * @return the engine
     * @throws IllegalArgumentException naming the bad id
     * @throws IllegalStateException if this engine caches its nodes (a cached node may serve
     *         several local leases, so it names no one participant)
     */
    public LockEngine withParticipant(String participantId) {
        NodeData.checkParticipantId(participantId);
        if (context.cachingNodes()) {
            throw new IllegalStateException("an engine that caches its nodes names no participant: " + this);
        }
        return new LockEngine(context, strategy, participantId);
    }

    /**
     * The participant a node's data names (see {@link #withParticipant}), for a recipe that
     * reads a node itself (an observer's watch on it) rather than through {@link #participants()}.
     *
     * @param nodeData a node's data as read, or null; data other clients wrote is read safely
     * @return the participant's id, or empty if the data names none
     */
    public static Optional<String> participantIdIn(byte[] nodeData) {
        return NodeData.participantId(nodeData);
    }

    /** {@return the participant this engine's requests name, if any} */
    public Optional<String> participantId() {
        return Optional.ofNullable(participantId);
    }

    /** {@return whether, and how long, this engine's nodes are kept after use} */
    public LeaseCaching caching() {
        return strategy.caching();
    }

    /**
     * Releases the nodes this engine's client keeps cached on this directory and kind: idle
     * ones now, those in use when their leases close. Leases in use stay valid. Nothing when
     * caching is off.
     */
    public void releaseCachedNodes() {
        strategy.releaseCachedNodes();
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
        return new LockEngine(context.anchoredAt(anchorSequence, driver), new LeaseStrategy.Uncached(), null);
    }

    /** {@return the node layout this engine writes} */
    public LockCompatibility compatibility() {
        return context.compatibility();
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
        return strategy.acquire(deadline, queue);
    }

    /** See {@link io.zklock.core.DistributedLock#acquireAsync(Duration)}. */
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return acquireAsync(Deadline.after(timeout));
    }

    /** {@link #acquireAsync(Duration)} before {@code deadline}: a step of a recipe's own protocol under one deadline. */
    public CompletableFuture<Lease> acquireAsync(Deadline deadline) {
        return strategy.acquireAsync(deadline, queue);
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
