package io.zklock.multilock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.JucLockView;
import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.LockEngine;
import io.zklock.core.Owners;
import io.zklock.core.MultiLockEngine;
import io.zklock.core.QueuedLock;

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
 * <p><b>Re-entry.</b> A blocking acquisition by a thread that already holds a reentrant
 * component (a mutex, or the same half of a read-write lock) counts that component instead of
 * queueing it; the component stays held until both leases are closed. Components the
 * multi-lock acquired are not thread holds (that is what lets one transaction release them):
 * a later single acquisition of one of them by the same thread queues behind the multi-lock's
 * node, and so does the thread's request for the other half of a read-write lock whose one
 * half the multi-lock holds (neither refused as an upgrade nor granted as a downgrade); close
 * the multi-lease first. {@link #acquireAsync} never re-enters.
 *
 * <pre>{@code
 * ZkMultiLock both = new ZkMultiLock(List.of(new ZkMutex(client, "/locks/a"), new ZkMutex(client, "/locks/b")));
 * try (ZkMultiLock.MultiLease lease = both.acquire()) {
 *     transfer(a, b, lease.components().get(0).fencingToken(), lease.components().get(1).fencingToken());
 * }
 * }</pre>
 */
public final class ZkMultiLock implements DistributedLock {
    private final List<QueuedLock> locks;
    private final MultiLockEngine engine;
    private final Map<Long, Set<MultiLease>> blockingLeases = new ConcurrentHashMap<>();
    private final Lock view = new JucLockView(this);

    /**
     * @param locks the component locks, each a zklock recipe on the same client
     * @throws IllegalArgumentException if the list is null or empty, holds the same lock or the
     *         same path twice, holds a lock that is not built on the zklock engine, or mixes
     *         clients
     */
    public ZkMultiLock(List<? extends DistributedLock> locks) {
        if (locks == null || locks.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock");
        }
        List<QueuedLock> queued = new ArrayList<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<LockEngine> engines = new ArrayList<>();
        for (DistributedLock lock : locks) {
            if (lock == null) {
                throw new IllegalArgumentException("null lock in the multi-lock");
            }
            if (!(lock instanceof QueuedLock q)) {
                throw new IllegalArgumentException("lock " + lock + " (" + lock.getClass().getName()
                        + ") is not built on the zklock engine; a multi-lock cannot drive it");
            }
            if (!seen.add(lock)) {
                throw new IllegalArgumentException("lock " + lock.path() + " appears twice in the multi-lock");
            }
            queued.add(q);
            engines.add(q.engine());
        }
        this.locks = List.copyOf(queued);
        this.engine = new MultiLockEngine(engines);
    }

    /** The component locks' paths, in order, joined by commas. */
    @Override
    public String path() {
        return String.join(",", locks.stream().map(DistributedLock::path).toList());
    }

    /** The component locks, in order. */
    public List<DistributedLock> locks() {
        return List.copyOf(locks);
    }

    /**
     * Acquires every component, waiting as long as it takes. One of these things happens:
     * every component is granted and the lease is returned; the thread is interrupted and no
     * component is held; ZooKeeper refuses the request ({@link io.zklock.core.LockException})
     * or a component refuses it ({@link IllegalStateException}, e.g. a semaphore whose
     * maxLeases disagrees), and no component is held.
     */
    @Override
    public MultiLease acquire() throws InterruptedException {
        return blocking(null).orElseThrow();
    }

    /** As {@link #acquire()}, but gives up after {@code timeout} with nothing held; ZERO is one attempt. */
    @Override
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        LockEngine.timeoutNanos(timeout);
        return blocking(timeout).map(l -> l);
    }

    /** Starts an acquisition of every component; {@code cancel()} withdraws it. Never re-enters. */
    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        CompletableFuture<List<Lease>> source = engine.acquireAsync(timeout);
        CompletableFuture<Lease> user = new CompletableFuture<>();
        source.whenComplete((leases, error) -> {
            if (leases == null) {
                user.completeExceptionally(error);
                return;
            }
            MultiLease lease = new MultiLease(leases, leases, null);
            if (!user.complete(lease)) {
                lease.close();                 // cancelled while the grant was on its way
            }
        });
        user.whenComplete((lease, error) -> {
            if (error != null) {
                source.cancel(true);           // withdraws the request: its nodes are deleted
            }
        });
        return user;
    }

    /** Whether the current thread holds a valid lease of this multi-lock taken by a blocking call. */
    @Override
    public boolean isHeldByCurrentThread() {
        Set<MultiLease> mine = blockingLeases.get(Owners.current());
        return mine != null && mine.stream().anyMatch(Lease::isValid);
    }

    @Override
    public Lock asLock() {
        return view;
    }

    private Optional<MultiLease> blocking(Duration timeout) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        List<Lease> reentered = new ArrayList<>();
        List<LockEngine> queue = new ArrayList<>();
        List<Integer> queuedIndexes = new ArrayList<>();
        try {
            for (int i = 0; i < locks.size(); i++) {
                Optional<Lease> again = locks.get(i).reenterIfHeld();
                if (again.isPresent()) {
                    reentered.add(again.get());
                } else {
                    reentered.add(null);
                    queue.add(locks.get(i).engine());
                    queuedIndexes.add(i);
                }
            }
        } catch (RuntimeException e) {
            closeAll(reentered);
            throw e;
        }
        List<Lease> acquired;
        if (queue.isEmpty()) {
            acquired = List.of();
        } else {
            MultiLockEngine part = queue.size() == locks.size() ? engine : new MultiLockEngine(queue);
            try {
                Optional<List<Lease>> got = timeout == null ? Optional.of(part.acquire()) : part.tryAcquire(timeout);
                if (got.isEmpty()) {
                    closeAll(reentered);
                    return Optional.empty();
                }
                acquired = got.get();
            } catch (InterruptedException | RuntimeException e) {
                closeAll(reentered);
                throw e;
            }
        }
        List<Lease> components = new ArrayList<>(reentered);
        for (int k = 0; k < queuedIndexes.size(); k++) {
            components.set(queuedIndexes.get(k), acquired.get(k));
        }
        MultiLease lease = new MultiLease(components, acquired, Owners.current());
        blockingLeases.computeIfAbsent(lease.owner, k -> ConcurrentHashMap.newKeySet()).add(lease);
        return Optional.of(lease);
    }

    private static void closeAll(List<Lease> leases) {
        for (Lease lease : leases) {
            if (lease != null) {
                lease.close();
            }
        }
    }


    @Override
    public String toString() {
        return "ZkMultiLock[" + path() + "]";
    }

    /**
     * The lease of a multi-lock: one component lease per lock, in the order the locks were
     * given, each with its own fencing token. Its state is the worst of theirs (LOST over
     * SUSPENDED over HELD); closing it releases every component, the nodes it created with one
     * ZooKeeper transaction.
     */
    public final class MultiLease implements Lease {
        private final List<Lease> components;
        private final List<Lease> created;
        private final Long owner;
        private final AtomicBoolean closed = new AtomicBoolean();
        private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();
        private volatile LeaseState told = LeaseState.HELD;

        MultiLease(List<Lease> components, List<Lease> created, Long owner) {
            this.components = List.copyOf(components);
            this.created = List.copyOf(created);
            this.owner = owner;
            for (Lease component : this.components) {
                component.addListener((l, s) -> recompute());
            }
        }

        /** The component leases, in the order of the locks. */
        public List<Lease> components() {
            return components;
        }

        /** The first component's node; see {@link #components()} for the others. */
        @Override
        public String nodePath() {
            return components.get(0).nodePath();
        }

        /**
         * The largest of the components' tokens. It fences no single resource: guard each
         * resource with its own component's token ({@link #components()}).
         */
        @Override
        public long fencingToken() {
            return components.stream().mapToLong(Lease::fencingToken).max().orElseThrow();
        }

        @Override
        public LeaseState state() {
            if (closed.get()) {
                return worst() == LeaseState.LOST ? LeaseState.LOST : LeaseState.RELEASED;
            }
            return worst();
        }

        /** LOST over RELEASED over SUSPENDED over HELD; a component closed behind our back counts as lost. */
        private LeaseState worst() {
            boolean released = false;
            boolean suspended = false;
            for (Lease component : components) {
                LeaseState s = component.state();
                if (s == LeaseState.LOST) {
                    return LeaseState.LOST;
                }
                released |= s == LeaseState.RELEASED;
                suspended |= s == LeaseState.SUSPENDED;
            }
            if (released) {
                return closed.get() ? LeaseState.RELEASED : LeaseState.LOST;
            }
            return suspended ? LeaseState.SUSPENDED : LeaseState.HELD;
        }

        @Override
        public boolean isValid() {
            return state() == LeaseState.HELD;
        }

        @Override
        public void addListener(LeaseListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener is null");
            }
            listeners.add(listener);
        }

        private void recompute() {
            LeaseState now;
            synchronized (this) {
                now = state();
                if (now == told || told == LeaseState.LOST || told == LeaseState.RELEASED) {
                    return;
                }
                told = now;
            }
            for (LeaseListener listener : listeners) {
                try {
                    listener.stateChanged(this, now);
                } catch (RuntimeException e) {
                    // a listener's failure must not stop the others
                }
            }
        }

        /** Releases every component: the created nodes in one transaction, re-entered ones by closing them. */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            if (owner != null) {
                blockingLeases.computeIfPresent(owner, (k, set) -> {
                    set.remove(this);
                    return set.isEmpty() ? null : set;
                });
            }
            List<Lease> others = new ArrayList<>(components);
            others.removeAll(created);
            closeAll(others);
            if (!created.isEmpty()) {
                engine.releaseAll(created);
            }
            recompute();
        }

        @Override
        public String toString() {
            return "MultiLease" + components;
        }
    }
}
