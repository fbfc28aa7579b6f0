package io.zklock.semaphore;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.LockCompatibility;
import io.zklock.core.LockException;
import io.zklock.core.LockOptions;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * A semaphore permit in LockCompatibility.CURATOR: one protocol that is safe beside Curator's
 * InterProcessSemaphoreV2 and beside zklock's default-mode semaphore on the same path, at once.
 *
 * Curator's V2 keeps its permits as lease nodes under <path>/leases and serialises their
 * creation with a guard mutex under <path>/locks: the guard holder creates its lease node, then
 * lists the leases and is granted once there are at most maxLeases of them, waiting (guard
 * held) for a change otherwise. zklock's default mode keeps its permits as nodes in <path>,
 * granted in queue order; it reads <path>/leases and <path>/locks only to refuse beside
 * Curator's own nodes (SemaphoreDriver.CURATOR_SEMAPHORE), and it counts the permits in
 * <path> alone. So a permit here takes a place in both, in this order, each under the one
 * deadline:
 *   1. PERMIT  a node of zklock's semaphore kind in <path>, granted by SemaphoreDriver as any
 *      default-mode permit: this is what default-mode clients count;
 *   2. GUARD   Curator's guard: a mutex node _c_<uuid>-lock-<seq> in <path>/locks (Curator's
 *      InterProcessMutex queues by the same rule);
 *   3. LEASE   a lease node _c_<uuid>-lease-<seq> in <path>/leases, granted while the leases
 *      directory holds at most maxLeases nodes (LEASES below), else after a change of it;
 *   4. the guard is released; the permit holds the PERMIT and LEASE nodes (CuratorLayoutLease).
 * Any step that times out, fails or is interrupted releases what the earlier steps took.
 * A session lost on the way (the PERMIT or the GUARD turns LOST) starts the whole protocol
 * again at 1, inside the deadline: the engine alone would re-queue the LEASE wait on the new
 * session without the guard, a second waiter in the leases directory, and two waiters there
 * can each count the other and wait forever (maxLeases 1: a holder, a guarded waiter of
 * Curator's and our unguarded one; the holder goes, two nodes are left, both wait). So the
 * LEASE wait is cancelled (its node deleted) as soon as the PERMIT or the GUARD is LOST, and a
 * grant that raced the loss is released.
 *
 * Why it is safe. Beside Curator's clients: the LEASE step is Curator's protocol; Curator's
 * clients count our lease nodes as theirs. Beside default-mode clients: the PERMIT step is
 * theirs. Curator's clients and default-mode clients do not see each other: that mix is the
 * one a migration must never run (see LockCompatibility).
 * Why it cannot deadlock. A client waits at step 1 only for permits, whose holders (default or
 * ours, past step 1) wait for nothing that waits at step 1; at step 2 for the guard, whose
 * holder waits at step 3 only for lease holders, which wait for nothing.
 *
 * What it gives up: Curator's waiters wake on every change of the leases directory, and the
 * acquisition costs the three steps' requests; asynchronous acquisitions run the blocking
 * protocol on a thread of their own; a multi-lock cannot take such a permit in its one
 * transaction.
 */
/** The permits of a {@link ZkSemaphore} in {@link LockCompatibility#CURATOR}. */
final class CuratorLayoutPermits {
    private static final Logger LOG = LoggerFactory.getLogger(CuratorLayoutPermits.class);
    /** Curator's directory of its guard mutex, under the semaphore's path. */
    static final String GUARD_DIRECTORY = "locks";
    /** Curator's directory of its lease nodes, under the semaphore's path. */
    static final String LEASES_DIRECTORY = "leases";
    /** The kind of Curator's lease nodes ({@code _c_<uuid>-lease-<seq>}). */
    static final String LEASE_KIND = "lease";
    /** The kind of Curator's guard mutex's nodes. */
    static final String GUARD_KIND = "lock";

    /** Curator's rule for a lease node: granted while the directory holds at most maxLeases nodes. */
    static final LockDriver LEASES = (sorted, ours, maxLeases) -> {
        LockDriver.indexOf(sorted, ours);
        return sorted.size() <= maxLeases ? Decision.granted() : Decision.watchDirectory();
    };

    private final LockEngine permits;
    private final LockEngine guard;
    private final LockEngine leases;

    /**
     * @param options the semaphore's: {@link LockCompatibility#CURATOR}, no caching, no lock-delay
     *        (the semaphore refuses the others), and its validity margin, which all three engines
     *        keep (a permit's {@code validFor()} is the least of its two nodes')
     */
    CuratorLayoutPermits(CuratorFramework client, String path, int maxLeases, LockOptions options) {
        if (options.compatibility() != LockCompatibility.CURATOR || options.caching().isOn() || options.lockDelay().isOn()) {
            throw new IllegalArgumentException("Curator's layout takes compatibility CURATOR, no caching, no lock-delay: " + options);
        }
        this.permits = new LockEngine(client, path, SemaphoreDriver.compatibilityRecipe(maxLeases), options);
        this.guard = new LockEngine(client, ZKPaths.makePath(path, GUARD_DIRECTORY),
                new RecipeDescriptor(GUARD_KIND, LockDriver.EXCLUSIVE, 1), options);
        this.leases = new LockEngine(client, ZKPaths.makePath(path, LEASES_DIRECTORY),
                new RecipeDescriptor(LEASE_KIND, LEASES, maxLeases), options);
    }

    /** The engine of step 1: the default-mode permits of the path. */
    LockEngine permits() {
        return permits;
    }

    /** Steps 1 to 4 before {@code deadline}: empty on timeout, with nothing left behind; a lost session starts over. */
    Optional<Lease> acquire(Deadline deadline) throws InterruptedException {
        while (true) {
            Optional<Lease> permit = permits.acquire(deadline);
            if (permit.isEmpty()) {
                return Optional.empty();
            }
            Optional<Lease> granted = afterPermit(permit.get(), deadline);
            if (granted != null) {
                return granted;
            }
            LOG.info("{}: a session was lost on the way; starting again with a new permit", permits.path());
        }
    }

    /** Steps 2 to 4 for {@code permit}: the lease, empty on timeout, or null if a session was lost (nothing held). */
    private Optional<Lease> afterPermit(Lease permit, Deadline deadline) throws InterruptedException {
        try {
            Optional<Lease> guardLease = guard.acquire(deadline);
            if (guardLease.isEmpty()) {
                permit.close();
                return Optional.empty();
            }
            try (Lease held = guardLease.get()) {
                Lease lease = lost(permit, held) ? null : leaseUnderGuard(permit, held, deadline);
                if (lease != null && !lost(permit, held)) {
                    return Optional.of(new CuratorLayoutLease(permit, lease));
                }
                if (lease != null) {
                    lease.close();             // granted as the session went
                }
                permit.close();
                return lost(permit, held) ? null : Optional.empty();
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            permit.close();
            throw e;
        }
    }

    /** Step 3: the lease node, or null on timeout or once {@code permit} or {@code held} (the guard) is lost. */
    private Lease leaseUnderGuard(Lease permit, Lease held, Deadline deadline) throws InterruptedException {
        CompletableFuture<Lease> lease = leases.acquireAsync(deadline);
        LeaseListener onLoss = (l, state) -> {
            if (state == LeaseState.LOST) {
                lease.cancel(false);           // withdraws the wait, deleting its node
            }
        };
        permit.addListener(onLoss);
        held.addListener(onLoss);
        if (lost(permit, held)) {
            lease.cancel(false);               // lost before the listeners were in place
        }
        try {
            return lease.get();
        } catch (CancellationException e) {
            return null;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TimeoutException) {
                return null;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new LockException("lease step of " + leases.path() + " failed", e.getCause());
        } catch (InterruptedException e) {
            lease.cancel(false);
            throw e;
        }
    }

    private static boolean lost(Lease permit, Lease held) {
        return permit.state() == LeaseState.LOST || held.state() == LeaseState.LOST;
    }

    /**
     * {@link #acquire} on a thread of its own: Curator's protocol waits holding its guard, step
     * after step. {@code cancel()} interrupts that thread, which releases what it took.
     */
    CompletableFuture<Lease> acquireAsync(Duration timeout, String what) {
        Deadline deadline = Deadline.after(timeout);
        CompletableFuture<Lease> future = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                Optional<Lease> lease = acquire(deadline);
                if (lease.isEmpty()) {
                    future.completeExceptionally(new TimeoutException("timed out waiting for " + what));
                } else if (!future.complete(lease.get())) {
                    lease.get().close();       // cancelled as it was granted
                }
            } catch (InterruptedException e) {
                future.cancel(false);
            } catch (RuntimeException | Error e) {
                future.completeExceptionally(e);
            }
        }, "zklock-curator-layout-permit " + what);
        thread.setDaemon(true);
        future.whenComplete((lease, error) -> {
            if (future.isCancelled()) {
                thread.interrupt();
            }
        });
        thread.start();
        return future;
    }

    /** The directories this protocol writes in, for status and tests: the path's two sub-directories. */
    static List<String> directories(String path) {
        return List.of(ZKPaths.makePath(path, GUARD_DIRECTORY), ZKPaths.makePath(path, LEASES_DIRECTORY));
    }
}
