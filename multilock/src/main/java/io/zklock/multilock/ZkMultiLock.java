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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.engine.Deadline;
import io.zklock.core.engine.JucLockView;
import io.zklock.core.engine.LockComponent;
import io.zklock.core.engine.LockComponents;
import io.zklock.core.engine.LockEngine;
import io.zklock.core.engine.MultiLockEngine;
import io.zklock.core.engine.MultiLockHolds;
import io.zklock.core.engine.Owners;
import org.apache.curator.framework.api.transaction.CuratorOp;

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
 * <p><b>Re-entry.</b> A thread that holds this multi-lock through a blocking call and calls
 * {@link #acquire()} or {@link #tryAcquire} on it again gets a new lease at once on the same
 * nodes (same components, node paths and fencing tokens); the nodes are deleted when the last of
 * those leases is closed, and a lease closed before the last is {@code RELEASED} at once (the
 * thread still holds through the others). A blocking acquisition by a thread that already holds
 * a reentrant component on its own (a mutex, or the same half of a read-write lock) counts that
 * component instead of queueing it; the component stays held until both leases are closed.
 *
 * <p>Nodes this multi-lock created are not thread holds of their components (that is what lets
 * one transaction release them), so nothing else can re-enter them. Any blocking acquisition
 * that would queue behind them is refused at once with an {@link IllegalStateException} naming
 * the lock path, instead of waiting for itself forever: while a thread holds this multi-lock, its
 * blocking acquisition of a reentrant component alone (either half of a read-write lock one half
 * of which the multi-lock holds included), or of another multi-lock over such a component (the
 * same components in another {@code ZkMultiLock} object included), is refused; it works again
 * once the multi-lease is closed. A semaphore permit is not reentrant: a second request for a
 * semaphore the thread holds through a multi-lock is a new permit request, as for a plain
 * semaphore lease, and waits while every permit is taken, by this thread or not (so a thread
 * holding every permit waits for itself, as it would with plain semaphore leases: use a timeout).
 * The per-thread bookkeeping is keyed by owner id, retains no {@code Thread}, and ends when the
 * last lease closes or is {@code LOST}; a lost grant is never re-entered. {@link #acquireAsync}
 * never re-enters and is never refused: it queues like any other request.
 *
 * <p><b>Release.</b> Closing the last lease of a grant deletes every node it created in one
 * transaction. The lease state is never optimistic: it stays {@code HELD} or {@code SUSPENDED}
 * until every node is gone (a delete that cannot reach ZooKeeper is retried), then turns
 * {@code RELEASED}, or {@code LOST} if the session ended; listeners are told at that moment.
 *
 * <pre>{@code
 * ZkMultiLock both = new ZkMultiLock(List.of(new ZkMutex(client, "/locks/a"), new ZkMutex(client, "/locks/b")));
 * try (ZkMultiLock.MultiLease lease = both.acquire()) {
 *     transfer(a, b, lease.components().get(0).fencingToken(), lease.components().get(1).fencingToken());
 * }
 * }</pre>
 */
public final class ZkMultiLock implements DistributedLock {
    private final List<DistributedLock> locks;
    private final List<LockComponent> components;
    private final MultiLockEngine engine;
    private final Map<Long, Grant> holds = new ConcurrentHashMap<>();
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
        List<LockComponent> queued = new ArrayList<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<LockEngine> engines = new ArrayList<>();
        for (DistributedLock lock : locks) {
            if (lock == null) {
                throw new IllegalArgumentException("null lock in the multi-lock");
            }
            LockComponent q = LockComponents.of(lock).orElse(null);
            if (q == null) {
                throw new IllegalArgumentException("lock " + lock + " (" + lock.getClass().getName()
                        + ") is not built on the zklock engine; a multi-lock cannot drive it");
            }
            if (!seen.add(lock)) {
                throw new IllegalArgumentException("lock " + lock.path() + " appears twice in the multi-lock");
            }
            queued.add(q);
            engines.add(q.engine());
        }
        this.locks = List.copyOf(locks);
        this.components = List.copyOf(queued);
        this.engine = new MultiLockEngine(engines);
    }

    /** The component locks' paths, in order, joined by commas. */
    @Override
    public String path() {
        return String.join(",", locks.stream().map(DistributedLock::path).toList());
    }

    /** {@return the component locks, in order} */
    public List<DistributedLock> locks() {
        return List.copyOf(locks);
    }

    /**
     * Acquires every component, waiting as long as it takes. One of these things happens:
     * the thread already holds this multi-lock through a blocking call, and a new lease on the
     * same nodes is returned at once (re-entry); every component is granted and the lease is
     * returned; the thread is interrupted and no component is held; ZooKeeper refuses the
     * request ({@link io.zklock.core.LockException}) or a component refuses it
     * ({@link IllegalStateException}: a semaphore whose maxLeases disagrees, the other half of
     * a read-write lock the thread holds, a reentrant lock the thread holds through another
     * multi-lock), and no component is held.
     */
    @Override
    public MultiLease acquire() throws InterruptedException {
        return blocking(Deadline.unbounded()).orElseThrow();
    }

    /** As {@link #acquire()}, but gives up after {@code timeout} with nothing held; ZERO is one attempt. */
    @Override
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        return blocking(Deadline.after(timeout)).map(l -> l);
    }

    /** Starts an acquisition of every component; {@code cancel()} withdraws it. Never re-enters. */
    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return engine.acquireAsync(timeout, leases -> new Grant(leases, leases, List.of(), null).firstLease());
    }

    /** Whether the current thread holds a valid lease of this multi-lock taken by a blocking call. */
    @Override
    public boolean isHeldByCurrentThread() {
        Grant grant = holds.get(Owners.current());
        return grant != null && grant.count.get() > 0 && grant.heldState() == LeaseState.HELD;
    }

    @Override
    public Lock asLock() {
        return view;
    }

    private Optional<MultiLease> blocking(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Long owner = Owners.current();
        MultiLease again = reenter(owner);
        if (again != null) {
            return Optional.of(again);
        }
        List<Lease> reentered = new ArrayList<>();
        List<LockEngine> queue = new ArrayList<>();
        List<Integer> queuedIndexes = new ArrayList<>();
        try {
            for (int i = 0; i < locks.size(); i++) {
                Optional<Lease> held = components.get(i).reenterIfHeld();   // refuses a lock held through another multi-lock
                if (held.isPresent()) {
                    reentered.add(held.get());
                } else {
                    reentered.add(null);
                    queue.add(components.get(i).engine());
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
                Optional<List<Lease>> got = part.acquire(deadline);
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
        Grant grant = new Grant(components, acquired, queue, owner);
        holds.put(owner, grant);
        for (LockEngine e : queue) {
            MultiLockHolds.register(owner, e, grant);
        }
        return Optional.of(grant.firstLease());
    }

    /** A new lease on the grant the thread holds, or null if it holds none that may be re-entered. */
    private MultiLease reenter(Long owner) {
        Grant grant = holds.get(owner);
        if (grant == null) {
            return null;
        }
        if (grant.heldState() == LeaseState.LOST) {
            grant.forget();
            return null;
        }
        int n;
        do {
            n = grant.count.get();
            if (n <= 0) {
                return null;                   // its last lease is being closed: take fresh nodes
            }
        } while (!grant.count.compareAndSet(n, n + 1));
        return grant.newLease();
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
     * One grant of every component, shared by the leases of a thread's re-entries (one lease
     * for an asynchronous grant). Closing its last lease releases every component; the grant
     * is forgotten by the thread's bookkeeping then, or as soon as a component is LOST.
     */
    private final class Grant implements MultiLockHolds.Holder {
        final List<Lease> components;
        final List<Lease> created;
        final List<LockEngine> createdEngines;
        final Long owner;                      // null: an asynchronous grant, bound to no thread
        final AtomicInteger count = new AtomicInteger(1);
        final List<MultiLease> leases = new CopyOnWriteArrayList<>();

        Grant(List<Lease> components, List<Lease> created, List<LockEngine> createdEngines, Long owner) {
            this.components = List.copyOf(components);
            this.created = List.copyOf(created);
            this.createdEngines = List.copyOf(createdEngines);
            this.owner = owner;
            for (Lease component : this.components) {
                component.addListener((l, s) -> changed());
            }
        }

        MultiLease firstLease() {
            return newLease();
        }

        MultiLease newLease() {
            MultiLease lease = new MultiLease(this);
            leases.add(lease);
            return lease;
        }

        private void changed() {
            if (heldState() == LeaseState.LOST) {
                forget();
            }
            leases.forEach(MultiLease::recompute);
        }

        /** While a lease is open: LOST over SUSPENDED over HELD; a component released behind our back counts as lost. */
        LeaseState heldState() {
            boolean suspended = false;
            for (Lease component : components) {
                LeaseState s = component.state();
                if (s == LeaseState.LOST || s == LeaseState.RELEASED) {
                    return LeaseState.LOST;
                }
                suspended |= s == LeaseState.SUSPENDED;
            }
            return suspended ? LeaseState.SUSPENDED : LeaseState.HELD;
        }

        /** Once the last lease is closed: LOST if a component is, RELEASED once every one is, else the worst of the rest. */
        LeaseState releasingState() {
            boolean released = true;
            boolean suspended = false;
            for (Lease component : components) {
                LeaseState s = component.state();
                if (s == LeaseState.LOST) {
                    return LeaseState.LOST;
                }
                released &= s == LeaseState.RELEASED;
                suspended |= s == LeaseState.SUSPENDED;
            }
            return released ? LeaseState.RELEASED : suspended ? LeaseState.SUSPENDED : LeaseState.HELD;
        }

        /** Releases every component: the created nodes in one transaction, re-entered ones by closing them. */
        void release() {
            forget();
            List<Lease> others = new ArrayList<>();
            for (Lease component : components) {
                if (created.stream().noneMatch(c -> c == component)) {
                    others.add(component);
                }
            }
            closeAll(others);
            if (!created.isEmpty()) {
                engine.releaseAll(created);
            }
        }

        /** Drops the thread's bookkeeping of this grant; its nodes are no longer the thread's to re-enter. */
        void forget() {
            if (owner == null) {
                return;
            }
            holds.remove(owner, this);
            for (LockEngine e : createdEngines) {
                MultiLockHolds.unregister(owner, e, this);
            }
        }

        @Override
        public boolean isLive() {
            return count.get() > 0 && heldState() != LeaseState.LOST;
        }

        @Override
        public String describe() {
            return "the multi-lock " + ZkMultiLock.this + " (its nodes " + createdNodes() + ")";
        }

        private String createdNodes() {
            return String.join(", ", created.stream().map(Lease::nodePath).toList());
        }
    }

    /**
     * The lease of a multi-lock: one component lease per lock, in the order the locks were
     * given, each with its own fencing token. Its state is the worst of theirs (LOST over
     * SUSPENDED over HELD). Closing the last lease of a grant (the first and only one unless the
     * thread re-entered) releases every component, the nodes it created with one ZooKeeper
     * transaction; that lease stays HELD or SUSPENDED until every node is gone (a delete that
     * cannot reach ZooKeeper is retried), then is RELEASED, or LOST if the session ended. A
     * lease closed while other leases of the same grant remain open is RELEASED at once: the
     * thread still holds the nodes through them.
     */
    public final class MultiLease implements Lease {
        private final Grant grant;
        private final AtomicBoolean closed = new AtomicBoolean();
        private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();
        private volatile boolean detached;     // closed, not the last: RELEASED whatever the grant does
        private volatile boolean last;         // closed, the last: the grant's releasing state
        private LeaseState told = LeaseState.HELD;   // guarded by listeners

        MultiLease(Grant grant) {
            this.grant = grant;
        }

        /** {@return the component leases, in the order of the locks} */
        public List<Lease> components() {
            return grant.components;
        }

        /** The first component's node; see {@link #components()} for the others. */
        @Override
        public String nodePath() {
            return grant.components.get(0).nodePath();
        }

        /**
         * The largest of the components' tokens. It fences no single resource: guard each
         * resource with its own component's token ({@link #components()}).
         */
        @Override
        public long fencingToken() {
            return grant.components.stream().mapToLong(Lease::fencingToken).max().orElseThrow();
        }

        @Override
        public LeaseState state() {
            if (detached) {
                return LeaseState.RELEASED;
            }
            return last ? grant.releasingState() : grant.heldState();
        }

        @Override
        public boolean isValid() {
            return state() == LeaseState.HELD;
        }

        /**
         * Refused: a multi-lease is carried by one node per lock, and one check covers one
         * node. Use {@link #guards()}.
         *
         * @throws UnsupportedOperationException always
         */
        @Override
        public CuratorOp guard() {
            throw new UnsupportedOperationException("a multi-lock lease has " + grant.components.size()
                    + " nodes and no single guard; put guards(), one check per node, first in the transaction");
        }

        /** The components' guards, in the order of the locks: the transaction commits only while every node exists. */
        @Override
        public List<CuratorOp> guards() {
            return grant.components.stream().flatMap(c -> c.guards().stream()).toList();
        }

        @Override
        public void addListener(LeaseListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener is null");
            }
            listeners.add(listener);
        }

        /**
         * Watches every component's node: the first request to any of them calls
         * {@code handler} once, with this lease; see {@link Lease#onRevocationRequested}.
         */
        @Override
        public void onRevocationRequested(Consumer<? super Lease> handler) {
            if (handler == null) {
                throw new IllegalArgumentException("handler is null");
            }
            AtomicBoolean told = new AtomicBoolean();
            for (Lease component : grant.components) {
                component.onRevocationRequested(c -> {
                    if (!closed.get() && told.compareAndSet(false, true)) {
                        handler.accept(this);
                    }
                });
            }
        }

        private void recompute() {
            LeaseState now;
            synchronized (listeners) {
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

        /**
         * Releases every component if this is the grant's last open lease (see the class
         * comment); otherwise only this lease ends. A no-op on a LOST lease.
         */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            if (grant.count.decrementAndGet() == 0) {
                last = true;                   // stays among the grant's leases: told of the components' release
                grant.release();
            } else {
                grant.leases.remove(this);
                if (grant.components.stream().noneMatch(c -> c.state() == LeaseState.LOST)) {
                    detached = true;           // a component RELEASED meanwhile is the last lease's clean release
                }
            }
            recompute();
        }

        @Override
        public String toString() {
            return "MultiLease" + grant.components;
        }
    }
}
