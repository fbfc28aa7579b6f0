package io.zklock.core.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.request.AcquireTally;
import io.zklock.core.internal.request.Blocking;
import io.zklock.core.internal.request.MultiAcquisition;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.Deadline;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.Op;

/**
 * The engine of a multi-lock: acquires one node in each of several locks' directories, all or
 * none, with one transaction (how: see {@code MultiAcquisition}). The SPI behind
 * {@code ZkMultiLock}.
 */
public final class MultiLockEngine {
    private final List<LockEngine> engines;
    private final List<LockContext> contexts;
    private final ZkPort port;
    private final String what;

    /**
     * @param engines the component locks' engines, in the caller's order
     * @throws IllegalArgumentException if the list is empty, holds one directory twice, or
     *         mixes Curator clients (one transaction needs one session)
     */
    public MultiLockEngine(List<LockEngine> engines) {
        if (engines == null || engines.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock");
        }
        Set<String> paths = new HashSet<>();
        if (engines.stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException("null lock in " + engines);
        }
        LockContext first = engines.get(0).context();
        for (LockEngine engine : engines) {
            LockContext e = engine.context();
            if (e.client().getZookeeperClient() != first.client().getZookeeperClient()) {
                throw new IllegalArgumentException("locks " + first.path() + " and " + e.path()
                        + " use different CuratorFramework clients; one transaction needs one session");
            }
            if (!namespaceOf(e).equals(namespaceOf(first))) {
                throw new IllegalArgumentException("locks " + first.path() + " and " + e.path()
                        + " use different namespaces of one client ('" + namespaceOf(first) + "', '"
                        + namespaceOf(e) + "'); give every lock of a multi-lock the same namespace");
            }
            if (!paths.add(e.port().serverPath(e.path()))) {
                throw new IllegalArgumentException("lock path " + e.path() + " appears twice in the multi-lock");
            }
        }
        this.engines = List.copyOf(engines);
        this.contexts = this.engines.stream().map(LockEngine::context).toList();
        this.port = first.port();
        this.what = "multi-lock " + String.join(",", engines.stream().map(LockEngine::path).toList());
    }

    /**
     * The components of a multi-lock's locks, checked: this and the constructor are where a
     * multi-lock's arguments are validated.
     *
     * @param locks the component locks, in the caller's order
     * @return their components, in the same order
     * @throws IllegalArgumentException if the list is null or empty, or holds a null lock or a
     *         lock that is not built on the zklock engine
     */
    public static List<LockComponent> components(List<? extends DistributedLock> locks) {
        if (locks == null || locks.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock");
        }
        List<LockComponent> components = new ArrayList<>();
        for (DistributedLock lock : locks) {
            if (lock == null) {
                throw new IllegalArgumentException("null lock in the multi-lock");
            }
            components.add(LockComponents.of(lock).orElseThrow(() -> new IllegalArgumentException("lock " + lock
                    + " (" + lock.getClass().getName() + ") is not built on the zklock engine; a multi-lock cannot drive it")));
        }
        return components;
    }

    /** @return the component locks' engines, in the caller's order */
    public List<LockEngine> engines() {
        return engines;
    }

    private static String namespaceOf(LockContext e) {
        String ns = e.client().getNamespace();
        return ns == null ? "" : ns;
    }

    /** Waits as long as it takes; the leases come in the order of {@link #engines()}. */
    public List<Lease> acquire() throws InterruptedException {
        return Deadline.grantOfUnbounded(acquire(Deadline.unbounded()), what);
    }

    /** Empty if not every lock is granted within {@code timeout}; then no node is left. */
    public Optional<List<Lease>> tryAcquire(Duration timeout) throws InterruptedException {
        return acquire(Deadline.after(timeout));
    }

    /** Empty if not every lock is granted before {@code deadline}; then no node is left. */
    public Optional<List<Lease>> acquire(Deadline deadline) throws InterruptedException {
        return Blocking.await(start(deadline), ZkLease::releaseAll, () -> "multi-lock acquisition").map(List::copyOf);
    }

    /** Completes with the leases, or with TimeoutException; {@code cancel()} withdraws the request. */
    public CompletableFuture<List<Lease>> acquireAsync(Duration timeout) {
        return acquireAsync(timeout, List::copyOf);
    }

    /**
     * As {@link #acquireAsync(Duration)}, completing with {@code grant} of the leases (a
     * multi-lease, say); {@code cancel()} withdraws the request, and leases granted after it
     * are released.
     */
    public <R> CompletableFuture<R> acquireAsync(Duration timeout, Function<List<Lease>, R> grant) {
        Deadline deadline = Deadline.after(timeout);
        return Blocking.userFuture(() -> start(deadline), leases -> grant.apply(List.copyOf(leases)), this::releaseAll);
    }

    private MultiAcquisition start(Deadline deadline) {
        AcquireTally tally = AcquireTally.beginMulti(contexts);
        tally.checkBeforeStart(contexts.get(0).client(), () -> what);
        return MultiAcquisition.start(contexts, deadline, what, tally);
    }

    /** The release of one component's node: its delete, and its lock's marker if the lock has a lock-delay. */
    private List<Op> releaseOps(String nodePath) {
        String dir = ZKPaths.getPathAndNode(nodePath).getPath();
        for (LockContext c : contexts) {
            if (c.path().equals(dir)) {
                return c.cleanup().releaseOps(nodePath);
            }
        }
        return List.of(Op.delete(port.serverPath(nodePath), -1));
    }

    /**
     * Releases leases this engine granted: one multi() deletes every node; if it cannot, each
     * lease releases itself (retried until it succeeds or the session ends). Waits for the
     * attempt as {@link Lease#close()} does.
     */
    public void releaseAll(List<? extends Lease> leases) {
        List<ZkLease> mine = new ArrayList<>();
        for (Lease lease : leases) {
            if (lease instanceof ZkLease z && z.claimRelease()) {
                mine.add(z);
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        List<Op> ops = mine.stream().flatMap(lease -> releaseOps(lease.nodePath()).stream()).toList();
        port.multi(ops, null).whenComplete((reply, error) -> {
            if (error == null && reply.ok()) {
                mine.forEach(ZkLease::deletedByCaller);
            } else {
                mine.forEach(ZkLease::retryDelete);   // one by one: NoNode for a lost one must not stop the rest
            }
        });
        for (int i = mine.size() - 1; i >= 0; i--) {
            mine.get(i).awaitFirstDeleteAttempt();   // the last first: the reply marks them in order, so one wake-up
        }
    }
}
