package io.zklock.semaphore;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LockCompatibility;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;

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
 * granted in queue order; it does not read <path>/leases. So a permit here takes a place in
 * both, in this order, each under the one deadline:
 *   1. PERMIT  a node of zklock's semaphore kind in <path>, granted by SemaphoreDriver as any
 *      default-mode permit: this is what default-mode clients count;
 *   2. GUARD   Curator's guard: a mutex node _c_<uuid>-lock-<seq> in <path>/locks (Curator's
 *      InterProcessMutex queues by the same rule);
 *   3. LEASE   a lease node _c_<uuid>-lease-<seq> in <path>/leases, granted while the leases
 *      directory holds at most maxLeases nodes (LEASES below), else after a change of it;
 *   4. the guard is released; the permit holds the PERMIT and LEASE nodes (CuratorLayoutLease).
 * Any step that times out, fails or is interrupted releases what the earlier steps took.
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

    CuratorLayoutPermits(CuratorFramework client, String path, int maxLeases) {
        this.permits = new LockEngine(client, path, SemaphoreDriver.recipe(maxLeases), LeaseCaching.off(),
                LockCompatibility.CURATOR);
        this.guard = new LockEngine(client, ZKPaths.makePath(path, GUARD_DIRECTORY),
                new RecipeDescriptor(GUARD_KIND, LockDriver.EXCLUSIVE, 1), LeaseCaching.off(), LockCompatibility.CURATOR);
        this.leases = new LockEngine(client, ZKPaths.makePath(path, LEASES_DIRECTORY),
                new RecipeDescriptor(LEASE_KIND, LEASES, maxLeases), LeaseCaching.off(), LockCompatibility.CURATOR);
    }

    /** The engine of step 1: the default-mode permits of the path. */
    LockEngine permits() {
        return permits;
    }

    /** Steps 1 to 4 before {@code deadline}: empty on timeout, with nothing left behind. */
    Optional<Lease> acquire(Deadline deadline) throws InterruptedException {
        Optional<Lease> permit = permits.acquire(deadline);
        if (permit.isEmpty()) {
            return Optional.empty();
        }
        try {
            Optional<Lease> guardLease = guard.acquire(deadline);
            if (guardLease.isEmpty()) {
                permit.get().close();
                return Optional.empty();
            }
            try (Lease held = guardLease.get()) {
                Optional<Lease> lease = leases.acquire(deadline);
                if (lease.isEmpty()) {
                    permit.get().close();
                    return Optional.empty();
                }
                return Optional.of(new CuratorLayoutLease(permit.get(), lease.get()));
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            permit.get().close();
            throw e;
        }
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
