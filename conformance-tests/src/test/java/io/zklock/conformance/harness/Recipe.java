package io.zklock.conformance.harness;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.MultiLease;
import io.zklock.leader.ZkLeaderElection;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;

/**
 * A recipe as the conformance suite drives it, and what it promises. {@link #all()} is the one
 * list of recipes: every property, fault test and other library's known bug that applies to
 * every recipe takes its recipes from there.
 *
 * <p>Besides the lock under test ({@link #create}), a recipe names its <em>rival</em>: the
 * lock whose holders and the recipe's holders exclude each other. For an exclusive or bounded
 * recipe it is the recipe itself; for the read lock it is the write lock of the same path (a
 * reader waits for a writer and a writer for readers, but readers share).
 *
 * <p>A multi-lock recipe names its {@link Component}s: which recipes of the list it takes
 * together, on which paths below its own. A judge that fences what a lease protects (the fault
 * schedules) keeps one resource per lock path a lease holds, judged by the {@link Sharing} of
 * the recipe on that path ({@link #parts()}).
 *
 * @param name short name, used in lock paths and test names
 * @param sharing how many holders of the recipe may hold at once
 * @param permits the semaphore's maxLeases (1 for the other recipes)
 * @param reentrant whether a holding thread's blocking acquisitions re-enter
 * @param lock makes the lock under test on a path
 * @param rival makes a lock on the same path whose holders exclude the recipe's holders
 * @param components a multi-lock's components, in the order it lists them; empty for a single lock
 * @param inspected where status finds the recipe's nodes below the path, and how it names them
 * @param cached whether the lock keeps its nodes after use ({@link LeaseCaching}, idle period
 *        {@link #CACHE_IDLE}): a released lease's node may stay until the idle period ends,
 *        a conflicting waiter asks for it, or the lock object is closed
 */
public record Recipe(String name, Sharing sharing, int permits, boolean reentrant, LockFactory lock, LockFactory rival,
        List<Component> components, Inspected inspected, boolean cached) {

    /** How many holders of one recipe may hold at once. */
    public enum Sharing {
        /** One holder at a time (mutex, write lock, multi-lock). */
        EXCLUSIVE,
        /** Up to {@link Recipe#permits()} holders (semaphore). */
        BOUNDED,
        /** Any number of holders among themselves, none beside a rival's holder (read lock). */
        SHARED
    }

    /** Makes a lock for a client on a path. */
    @FunctionalInterface
    public interface LockFactory {
        /** A new lock object on {@code path} for {@code client}. */
        DistributedLock make(CuratorFramework client, String path);
    }

    /**
     * Where {@code LockAdmin.status} sees the recipe's nodes (the path itself, or for a
     * multi-lock its first component's path) and how it names them there.
     *
     * @param subPath the lock path below the recipe's path ("" for the path itself)
     * @param recipe the recipe status names at that path
     * @param kind the kind status gives the recipe's nodes
     * @param maxLeases the maxLeases status reports there
     */
    public record Inspected(String subPath, String recipe, String kind, int maxLeases) {
    }

    /**
     * One lock a multi-lock takes: a recipe of the list, on a path below the multi-lock's.
     *
     * @param subPath the component's lock path below the recipe's path, e.g. {@code "/mutex"}
     * @param recipe the component's recipe
     */
    public record Component(String subPath, Recipe recipe) {
    }

    /** The semaphore's permits in the list of recipes. */
    public static final int SEMAPHORE_PERMITS = 3;

    /** How long the cached recipes keep an idle node: longer than any property's pauses, so re-grants come from the cache. */
    public static final Duration CACHE_IDLE = Duration.ofSeconds(30);
    private static final LeaseCaching CACHING = LeaseCaching.keepIdleFor(CACHE_IDLE);

    public static final Recipe MUTEX = new Recipe("mutex", Sharing.EXCLUSIVE, 1, true, ZkMutex::new, ZkMutex::new, List.of(),
            new Inspected("", "mutex", "mutex", 1), false);
    /** The mutex with cached leases. */
    public static final Recipe CACHED_MUTEX = new Recipe("cached-mutex", Sharing.EXCLUSIVE, 1, true,
            (c, p) -> new ZkMutex(c, p, CACHING), (c, p) -> new ZkMutex(c, p, CACHING), List.of(),
            new Inspected("", "mutex", "mutex", 1), true);
    /** The read lock with cached leases; its rival, the write lock, never caches. */
    public static final Recipe CACHED_READ_LOCK = new Recipe("cached-read-lock", Sharing.SHARED, 1, true,
            (c, p) -> new ZkReadWriteLock(c, p, CACHING).readLock(), (c, p) -> new ZkReadWriteLock(c, p, CACHING).writeLock(), List.of(),
            new Inspected("", "readwrite", "read", 1), true);
    public static final Recipe SEMAPHORE = semaphore(SEMAPHORE_PERMITS);
    public static final Recipe READ_LOCK = new Recipe("read-lock", Sharing.SHARED, 1, true,
            (c, p) -> new ZkReadWriteLock(c, p).readLock(), (c, p) -> new ZkReadWriteLock(c, p).writeLock(), List.of(),
            new Inspected("", "readwrite", "read", 1), false);
    public static final Recipe WRITE_LOCK = new Recipe("write-lock", Sharing.EXCLUSIVE, 1, true,
            (c, p) -> new ZkReadWriteLock(c, p).writeLock(), (c, p) -> new ZkReadWriteLock(c, p).writeLock(), List.of(),
            new Inspected("", "readwrite", "write", 1), false);
    /** A multi-lock over a mutex, a read lock, a write lock and a semaphore permit, each the list's own recipe. */
    public static final Recipe MULTI_LOCK = new Recipe("multi-lock", Sharing.EXCLUSIVE, 1, true,
            (c, p) -> multiLock(Recipe.MULTI_LOCK.components(), c, p), (c, p) -> multiLock(Recipe.MULTI_LOCK.components(), c, p),
            List.of(new Component("/mutex", MUTEX), new Component("/read", READ_LOCK), new Component("/write", WRITE_LOCK),
                    new Component("/semaphore", SEMAPHORE)),
            new Inspected("/mutex", "mutex", "multi", 1), false);

    private static final AtomicInteger PARTICIPANTS = new AtomicInteger();
    /**
     * The leader election as a lock: each acquisition is a candidacy, a lease a leadership; one
     * participant id per election object. Exclusive, not reentrant.
     */
    public static final Recipe LEADER = new Recipe("leader", Sharing.EXCLUSIVE, 1, false, Recipe::election, Recipe::election,
            List.of(), new Inspected("", "leader", "candidate", 1), false);

    /** An election on {@code path} for {@code client}, with a participant id of its own. */
    public static ZkLeaderElection election(CuratorFramework client, String path) {
        return new ZkLeaderElection(client, path, "participant-" + PARTICIPANTS.incrementAndGet());
    }

    /** A multi-lock over {@code components}, in that order, below {@code path}, for {@code client}. */
    public static ZkMultiLock multiLock(List<Component> components, CuratorFramework client, String path) {
        return new ZkMultiLock(components.stream().map(k -> k.recipe().create(client, path + k.subPath())).toList());
    }

    /** Every recipe: mutex, semaphore, read lock, write lock, multi-lock, leader election. */
    public static List<Recipe> all() {
        return List.of(MUTEX, SEMAPHORE, READ_LOCK, WRITE_LOCK, MULTI_LOCK, LEADER);
    }

    /** Every recipe that can cache, with caching on: mutex, semaphore, read lock. */
    public static List<Recipe> allCached() {
        return List.of(CACHED_MUTEX, cachedSemaphore(SEMAPHORE_PERMITS), CACHED_READ_LOCK);
    }

    /** A semaphore of {@code permits} (the list's has {@link #SEMAPHORE_PERMITS}). */
    public static Recipe semaphore(int permits) {
        return new Recipe("semaphore", Sharing.BOUNDED, permits, false, (c, p) -> new ZkSemaphore(c, p, permits),
                (c, p) -> new ZkSemaphore(c, p, permits), List.of(), new Inspected("", "semaphore", "permit", permits), false);
    }

    /** A semaphore of {@code permits} with cached leases. */
    public static Recipe cachedSemaphore(int permits) {
        return new Recipe("cached-semaphore", Sharing.BOUNDED, permits, false, (c, p) -> new ZkSemaphore(c, p, permits, CACHING),
                (c, p) -> new ZkSemaphore(c, p, permits, CACHING), List.of(), new Inspected("", "semaphore", "permit", permits), true);
    }

    /** Closes a lock object that keeps cached nodes (releasing them); nothing for one that does not. */
    public static void closeLock(DistributedLock lock) {
        if (lock instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing " + lock + " failed", e);
            }
        }
    }

    /** A new lock of this recipe on {@code path} for {@code client}. */
    public DistributedLock create(CuratorFramework client, String path) {
        return lock.make(client, path);
    }

    /** A new lock on {@code path} for {@code client} whose holders exclude this recipe's holders. */
    public DistributedLock rival(CuratorFramework client, String path) {
        return rival.make(client, path);
    }

    /** How many holders of the recipe may hold at once ({@link Integer#MAX_VALUE} when shared). */
    public int capacity() {
        return switch (sharing) {
            case EXCLUSIVE -> 1;
            case BOUNDED -> permits;
            case SHARED -> Integer.MAX_VALUE;
        };
    }

    /** Whether one holder shuts every other holder of the recipe out. */
    public boolean exclusive() {
        return sharing == Sharing.EXCLUSIVE;
    }

    /** Whether holders of the recipe share without bound (they exclude only the rival). */
    public boolean shared() {
        return sharing == Sharing.SHARED;
    }

    /** How the rival's holders share: exclusively for a shared recipe's rival (the write lock), else as the recipe's. */
    public Sharing rivalSharing() {
        return shared() ? Sharing.EXCLUSIVE : sharing;
    }

    /**
     * What one lease stands on, lock path by lock path: a multi-lock's components, or the
     * recipe itself on its own path (sub-path {@code ""}).
     */
    public List<Component> parts() {
        return components.isEmpty() ? List.of(new Component("", this)) : components;
    }

    /** How many nodes one lease stands on (one per component for a multi-lock). */
    public int nodesPerLease() {
        return parts().size();
    }

    /** How many leases of the recipe make a rival wait: every permit, or one holder of a shared lock. */
    public int holds() {
        return shared() ? 1 : capacity();
    }

    /** How many leases of the rival make the recipe wait. */
    public int rivalHolds() {
        return shared() ? 1 : capacity();
    }

    /** Every node a lease stands on (a multi-lease stands on one per component). */
    public static List<String> nodesOf(Lease lease) {
        if (lease instanceof MultiLease multi) {
            return multi.components().stream().map(Lease::nodePath).toList();
        }
        return List.of(lease.nodePath());
    }

    /** How many nodes {@code leases} stand on together. */
    public static int nodeCount(List<Lease> leases) {
        return leases.stream().mapToInt(l -> nodesOf(l).size()).sum();
    }

    /** The lease on the node status shows at {@link Inspected#subPath()}: the lease itself, or its first component. */
    public static Lease inspectedLease(Lease lease) {
        return lease instanceof MultiLease multi ? multi.components().get(0) : lease;
    }

    @Override
    public String toString() {
        return name;
    }
}
