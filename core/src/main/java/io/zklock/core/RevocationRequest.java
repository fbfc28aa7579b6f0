package io.zklock.core;

import java.time.Instant;

/**
 * A request that the holder of a lease let go, as written into the data of the lease's node
 * by {@link LockAdmin#requestRevocation(String)}, after the {@linkplain OwnerInfo owner}'s,
 * which stay as they were.
 *
 * <p>A request only asks. A holder that opted in with {@link Lease#onRevocationRequested}
 * hears of it and decides; any other holder keeps its lease.
 *
 * @param requestedBy who asked ({@code thread@host[pid N]} of the requesting process, or what
 *                    an operator gave)
 * @param requestedAt when the request was written
 */
public record RevocationRequest(String requestedBy, Instant requestedAt) {
    /**
     * Checks and keeps the components; each is described above.
     *
     * @param requestedBy the {@link #requestedBy()}
     * @param requestedAt the {@link #requestedAt()}
     * @throws IllegalArgumentException if an argument is null
     */
    public RevocationRequest {
        if (requestedBy == null || requestedAt == null) {
            throw new IllegalArgumentException("requestedBy and requestedAt must not be null");
        }
        requestedBy = requestedBy.replace('\n', ' ').replace('\r', ' ');
    }

    /** {@return a request by the current process and thread, now} */
    public static RevocationRequest now() {
        OwnerInfo me = OwnerInfo.current();
        return new RevocationRequest(me.thread() + "@" + me.host() + "[pid " + me.pid() + "]", Instant.now());
    }
}
