package io.zklock.conformance;

import java.util.List;
import java.util.function.BiFunction;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.MultiLease;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;

/**
 * One recipe as the fault tests drive it: a holder's lock, the lock of a client that must wait
 * while the holder holds (for a read lock, a writer), and how many leases the holder takes to
 * shut the waiter out. Every lock lives below the given path, so a leak check of that path
 * covers all of its nodes.
 */
record FaultCase(String name, int holds, BiFunction<CuratorFramework, String, DistributedLock> holder,
        BiFunction<CuratorFramework, String, DistributedLock> waiter) {

    static final int SEMAPHORE_PERMITS = 2;

    /** Every recipe: mutex, semaphore, read lock, write lock, multi-lock. */
    static List<FaultCase> all() {
        BiFunction<CuratorFramework, String, DistributedLock> mutex = ZkMutex::new;
        BiFunction<CuratorFramework, String, DistributedLock> semaphore =
                (c, p) -> new ZkSemaphore(c, p, SEMAPHORE_PERMITS);
        BiFunction<CuratorFramework, String, DistributedLock> write = (c, p) -> new ZkReadWriteLock(c, p).writeLock();
        BiFunction<CuratorFramework, String, DistributedLock> read = (c, p) -> new ZkReadWriteLock(c, p).readLock();
        BiFunction<CuratorFramework, String, DistributedLock> multi = (c, p) -> new ZkMultiLock(List.of(
                new ZkMutex(c, p + "/a"), new ZkReadWriteLock(c, p + "/b").writeLock(), new ZkSemaphore(c, p + "/c", 1)));
        return List.of(
                new FaultCase("mutex", 1, mutex, mutex),
                new FaultCase("semaphore", SEMAPHORE_PERMITS, semaphore, semaphore),
                new FaultCase("read lock", 1, read, write),
                new FaultCase("write lock", 1, write, write),
                new FaultCase("multi-lock", 1, multi, multi));
    }

    /** Every node a lease stands on (a multi-lease stands on one per component). */
    static List<String> nodesOf(Lease lease) {
        if (lease instanceof MultiLease multi) {
            return multi.components().stream().map(Lease::nodePath).toList();
        }
        return List.of(lease.nodePath());
    }

    /** How many nodes {@code leases} stand on together. */
    static int nodeCount(List<Lease> leases) {
        return leases.stream().mapToInt(l -> nodesOf(l).size()).sum();
    }

    @Override
    public String toString() {
        return name;
    }
}
