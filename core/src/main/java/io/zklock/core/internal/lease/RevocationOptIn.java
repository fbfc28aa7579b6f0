package io.zklock.core.internal.lease;

import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.internal.LockContext;

/**
 * A lease's opt-in to revocation: its {@link RevocationWatch}, made by the first handler and
 * ended with the lease. Guarded by its own monitor (never taken under the lease's).
 */
final class RevocationOptIn {
    private final LockContext context;
    private final Lease lease;
    private final Runnable deletedUnderUs;
    private RevocationWatch watch;             // guarded by this; made by the first opt-in
    private boolean ended;                     // guarded by this

    RevocationOptIn(LockContext context, Lease lease, Runnable deletedUnderUs) {
        this.context = context;
        this.lease = lease;
        this.deletedUnderUs = deletedUnderUs;
    }

    /** Adds a handler; nothing once the lease ended. */
    void add(Consumer<? super Lease> handler) {
        if (handler == null) {
            throw new IllegalArgumentException("handler is null");
        }
        RevocationWatch w = watch();
        if (w != null) {
            w.add(handler);
        }
    }

    /** Tells {@code keeper} of writes into the node (see RevocationWatch); nothing once the lease ended. */
    void keep(Keeper keeper) {
        RevocationWatch w = watch();
        if (w != null) {
            w.keep(keeper);
        }
    }

    /** The watch, made by the first caller; null once the lease ended. */
    private synchronized RevocationWatch watch() {
        if (ended) {
            return null;
        }
        if (watch == null) {
            watch = new RevocationWatch(context, lease, deletedUnderUs);
        }
        return watch;
    }

    /** The same session reconnected: a failed read is made again. */
    void reconnected() {
        RevocationWatch w;
        synchronized (this) {
            w = watch;
        }
        if (w != null) {
            w.reconnected();
        }
    }

    /** The lease is final: the watch, if any, ends. */
    void end() {
        RevocationWatch w;
        synchronized (this) {
            ended = true;
            w = watch;
        }
        if (w != null) {
            w.end();
        }
    }
}
