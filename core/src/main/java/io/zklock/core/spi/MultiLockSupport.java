package io.zklock.core.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.MultiLease;
import io.zklock.core.internal.lease.MultiGrant;
import io.zklock.core.internal.lease.MultiLockHolds;
import io.zklock.core.spi.queue.Deadline;

/*
 * Overview.
 *
 * Per-thread re-entry of a multi-lock, beside ReentrantLockSupport. A blocking acquisition by a
 * thread that holds no live grant of this multi-lock:
 *   1. asks every component to re-enter (a reentrant component the thread holds on its own is
 *      counted, not queued; one it holds through another multi-lock refuses: MultiLockHolds);
 *   2. acquires the others with one MultiLockEngine transaction under the one deadline;
 *   3. records the grant (MultiGrant) under the thread's owner id, and in MultiLockHolds for
 *      every directory the transaction created a node in.
 * On a timeout, an interrupt or a failure at 2, the re-entered components of 1 are closed. A
 * thread that holds a live grant gets a new lease on it instead (MultiGrant.reenter). The
 * records go when the grant's last lease closes, when it is LOST, or when none of its open
 * leases is reachable any more (MultiGrant's comment). Asynchronous acquisitions never
 * re-enter and are recorded nowhere.
 */
/**
 * The shared implementation of a multi-lock over components registered in
 * {@link LockComponents}: validation (through {@link MultiLockEngine}), per-thread re-entry
 * and the multi-lease. Not for users.
 */
public final class MultiLockSupport {
    private final List<DistributedLock> locks;
    private final List<LockComponent> components;
    private final MultiLockEngine engine;
    private final String name;
    private final Map<Long, MultiGrant> holds = new ConcurrentHashMap<>();

    /**
     * @param locks the component locks, each a zklock recipe on the same client
     * @param name the multi-lock as its error messages name it
     * @throws IllegalArgumentException as {@link MultiLockEngine#components(List)} and
     *         {@link MultiLockEngine#MultiLockEngine(List)} do
     */
    public MultiLockSupport(List<? extends DistributedLock> locks, String name) {
        this.components = MultiLockEngine.components(locks);
        this.engine = new MultiLockEngine(components.stream().map(LockComponent::engine).toList());
        this.locks = List.copyOf(locks);
        this.name = name;
    }

    /** {@return the component locks, in order} */
    public List<DistributedLock> locks() {
        return locks;
    }

    /** {@return the component locks' paths, in order, joined by commas} */
    public String path() {
        return String.join(",", locks.stream().map(DistributedLock::path).toList());
    }

    /**
     * Re-enters the thread's grant, or acquires every component before {@code deadline}.
     *
     * @return the lease, or empty if the deadline passed first (then nothing is held)
     * @throws InterruptedException if interrupted (then nothing is held)
     */
    public Optional<MultiLease> acquire(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Long owner = Owners.current();
        MultiGrant held = holds.get(owner);
        Optional<MultiLease> again = held == null ? Optional.empty() : held.reenter();
        if (again.isPresent()) {
            return again;
        }
        List<Lease> reentered = reenterComponents();
        List<LockEngine> queue = new ArrayList<>();
        for (int i = 0; i < reentered.size(); i++) {
            if (reentered.get(i) == null) {
                queue.add(components.get(i).engine());
            }
        }
        Optional<List<Lease>> acquired = acquireQueued(queue, reentered, deadline);
        return acquired.map(created -> record(owner, merge(reentered, created), created, queue));
    }

    /** Starts an acquisition of every component; {@code cancel()} withdraws it. Never re-enters. */
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return engine.acquireAsync(timeout, leases -> new MultiGrant(leases, leases, engine::releaseAll, name).firstLease());
    }

    /** {@return whether the current thread holds a valid lease of this multi-lock taken by a blocking call} */
    public boolean isHeldByCurrentThread() {
        MultiGrant grant = holds.get(Owners.current());
        return grant != null && grant.isHeld();
    }

    /** Step 1: one entry per lock, the component's re-entered lease or null; closes them all if one refuses. */
    private List<Lease> reenterComponents() {
        List<Lease> reentered = new ArrayList<>();
        try {
            for (LockComponent component : components) {
                reentered.add(component.reenterIfHeld().orElse(null));
            }
        } catch (RuntimeException e) {
            closeAll(reentered);
            throw e;
        }
        return reentered;
    }

    /** Step 2: the leases of {@code queue}'s locks, in order; empty on timeout. Closes {@code reentered} on any abort. */
    private Optional<List<Lease>> acquireQueued(List<LockEngine> queue, List<Lease> reentered, Deadline deadline)
            throws InterruptedException {
        if (queue.isEmpty()) {
            return Optional.of(List.of());
        }
        MultiLockEngine part = queue.size() == components.size() ? engine : new MultiLockEngine(queue);
        try {
            Optional<List<Lease>> got = part.acquire(deadline);
            if (got.isEmpty()) {
                closeAll(reentered);
            }
            return got;
        } catch (InterruptedException | RuntimeException e) {
            closeAll(reentered);
            throw e;
        }
    }

    private static List<Lease> merge(List<Lease> reentered, List<Lease> created) {
        List<Lease> all = new ArrayList<>(reentered);
        int next = 0;
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i) == null) {
                all.set(i, created.get(next++));
            }
        }
        return all;
    }

    /** Step 3. */
    private MultiLease record(Long owner, List<Lease> all, List<Lease> created, List<LockEngine> queue) {
        MultiGrant grant = new MultiGrant(all, created, engine::releaseAll, name);
        grant.onForget(() -> {
            holds.remove(owner, grant);
            queue.forEach(e -> MultiLockHolds.unregister(owner, e.context(), grant));
        });
        MultiLease first = grant.firstLease();   // before the records: a grant with no lease is not live
        holds.put(owner, grant);
        MultiLockHolds.registerAll(owner, queue.stream().map(LockEngine::context).toList(), grant);
        return first;
    }

    private static void closeAll(List<Lease> leases) {
        for (Lease lease : leases) {
            if (lease != null) {
                lease.close();
            }
        }
    }
}
