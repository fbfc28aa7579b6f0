package io.zklock.semaphore;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.Participant;
import io.zklock.core.engine.JucLockView;
import io.zklock.core.engine.LockComponents;
import io.zklock.core.engine.LockEngine;
import io.zklock.core.engine.Owners;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * A distributed counting semaphore: at most {@code maxLeases} clients hold a lease on the path
 * at once. Every {@link Lease} is one permit; acquiring twice takes two permits (there is no
 * re-entry).
 *
 * <p><b>Fairness.</b> Permits go in arrival order (node sequence order). When a permit frees,
 * whichever holder released it, the earliest waiter is granted at once; a release wakes that
 * waiter and, through its grant, the one behind it: two clients, whatever the queue length.
 * An uncontended acquisition costs two ZooKeeper requests (create, list), a release one; a
 * grant to a waiter with someone queued behind it costs one more small write.
 *
 * <p><b>maxLeases.</b> Every client of one path must use the same {@code maxLeases}. A client
 * that asks with a different value than the clients already queued gets an
 * {@link IllegalStateException} naming both values, and takes no permit.
 *
 * <p><b>Session loss.</b> A holder whose session expires loses its permit (its lease turns
 * {@code LOST}) and the permit goes to the earliest waiter. Fencing tokens are exposed, but
 * with {@code maxLeases > 1} several holders are valid at once, so a token orders holders
 * only in the sense that a later grant has a larger one.
 *
 * <pre>{@code
 * ZkSemaphore pool = new ZkSemaphore(client, "/limits/db-connections", 10);
 * try (Lease permit = pool.acquire()) {
 *     runQuery();
 * }
 * }</pre>
 */
public final class ZkSemaphore implements DistributedLock {
    private final LockEngine engine;
    private final Map<Long, Set<Lease>> blockingLeases = new ConcurrentHashMap<>();
    private final Lock view = new JucLockView(this);

    /**
     * @param client a started Curator client; may be shared with other locks
     * @param path the semaphore's ZooKeeper path, absolute
     * @param maxLeases how many permits exist; at least 1, the same for every client of the path
     * @throws IllegalArgumentException if the client is null, the path invalid or maxLeases below 1
     */
    public ZkSemaphore(CuratorFramework client, String path, int maxLeases) {
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1, was " + maxLeases);
        }
        this.engine = new LockEngine(client, path, SemaphoreDriver.kind(maxLeases), new SemaphoreDriver(), maxLeases);
        LockEngine own = engine;
        LockComponents.register(this, () -> own);   // a permit taken through a multi-lock is one more permit
    }

    /** {@return how many permits this semaphore has} */
    public int maxLeases() {
        return engine.maxLeases();
    }

    @Override
    public String path() {
        return engine.path();
    }

    /**
     * Takes one permit, waiting as long as it takes; see {@link DistributedLock#acquire()}.
     *
     * @throws IllegalStateException if other clients use this path with a different maxLeases
     */
    @Override
    public Lease acquire() throws InterruptedException {
        return track(engine.acquire());
    }

    /**
     * Takes one permit if one is granted within {@code timeout}; see
     * {@link DistributedLock#tryAcquire(Duration)}.
     *
     * @throws IllegalStateException if other clients use this path with a different maxLeases
     */
    @Override
    public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
        return engine.tryAcquire(timeout).map(this::track);
    }

    /**
     * See {@link DistributedLock#acquireAsync(Duration)}; a maxLeases disagreement completes the
     * future with {@link IllegalStateException}.
     */
    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return engine.acquireAsync(timeout);
    }

    /** Whether the current thread holds at least one valid permit taken by a blocking call. */
    @Override
    public boolean isHeldByCurrentThread() {
        Set<Lease> mine = blockingLeases.get(Owners.current());
        return mine != null && mine.stream().anyMatch(Lease::isValid);
    }

    @Override
    public Lock asLock() {
        return view;
    }

    /** {@return the holders and waiters in queue order; each with its owner and whether it holds a permit} */
    public List<Participant> participants() {
        return engine.participants();
    }

    private Lease track(Lease lease) {
        Long owner = Owners.current();
        Set<Lease> mine = blockingLeases.computeIfAbsent(owner, k -> ConcurrentHashMap.newKeySet());
        Lease tracked = new TrackedLease(lease, owner);
        mine.add(tracked);
        return tracked;
    }

    private void untrack(Lease lease, Long owner) {
        blockingLeases.computeIfPresent(owner, (k, set) -> {
            set.remove(lease);
            return set.isEmpty() ? null : set;
        });
    }


    @Override
    public String toString() {
        return "ZkSemaphore[" + path() + ", maxLeases " + maxLeases() + "]";
    }

    /** A permit taken by a blocking call, remembered for its thread until it is closed. */
    private final class TrackedLease implements Lease {
        private final Lease lease;
        private final Long owner;
        private final AtomicBoolean closed = new AtomicBoolean();

        TrackedLease(Lease lease, Long owner) {
            this.lease = lease;
            this.owner = owner;
        }

        @Override
        public String nodePath() {
            return lease.nodePath();
        }

        @Override
        public long fencingToken() {
            return lease.fencingToken();
        }

        @Override
        public LeaseState state() {
            return lease.state();
        }

        @Override
        public boolean isValid() {
            return lease.isValid();
        }

        @Override
        public CuratorOp guard() {
            return lease.guard();
        }

        @Override
        public void addListener(LeaseListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener is null");
            }
            lease.addListener((l, s) -> listener.stateChanged(this, s));
        }

        @Override
        public void onRevocationRequested(Consumer<? super Lease> handler) {
            if (handler == null) {
                throw new IllegalArgumentException("handler is null");
            }
            lease.onRevocationRequested(l -> handler.accept(this));
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                untrack(this, owner);
            }
            lease.close();
        }

        @Override
        public String toString() {
            return lease.toString();
        }
    }
}
