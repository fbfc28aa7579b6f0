package io.zklock.core.internal.request;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import io.zklock.core.Lease;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.cache.Grant;
import io.zklock.core.internal.cache.ZkQueue;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.spi.queue.Deadline;

/**
 * An engine's requests that queue a node: each call starts one {@link Acquisition} on the
 * directory's context, blocked on or as the caller's future ({@link Blocking}). What the engine's
 * lease strategy falls back on when nothing is granted locally.
 */
public final class AcquisitionQueue implements ZkQueue {
    private final LockContext context;
    private final String participantId;        // null unless the requests name a participant

    /** Requests on {@code context}'s directory, each naming {@code participantId} (null for none) in its node's data. */
    public AcquisitionQueue(LockContext context, String participantId) {
        this.context = context;
        this.participantId = participantId;
    }

    @Override
    public Optional<Grant> await(Deadline deadline) throws InterruptedException {
        return Blocking.await(start(deadline), outcome -> ZkLease.releaseAll(List.of(grant(outcome).lease())),
                () -> "acquisition of lock " + context.path()).map(AcquisitionQueue::grant);
    }

    @Override
    public CompletableFuture<Lease> async(Deadline deadline, Function<Grant, Lease> handOut, Consumer<Grant> abandon) {
        return Blocking.userFuture(() -> start(deadline), outcome -> handOut.apply(grant(outcome)), outcome -> {
            if (outcome instanceof Acquisition.End.Leased) {
                abandon.accept(grant(outcome));
            }
        });
    }

    private Acquisition start(Deadline deadline) {
        AcquireTally tally = AcquireTally.begin(context);
        tally.checkBeforeStart(context.client(), () -> "lock " + context.path());
        return Acquisition.start(context, deadline, tally, participantId);
    }

    private static Grant grant(Acquisition.End outcome) {
        Acquisition.End.Leased leased = (Acquisition.End.Leased) outcome;   // a request that made its own node is never Lost
        return new Grant(leased.lease(), leased.granting());
    }
}
