package io.zklock.core;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A request that the holder of a lease let go, as written into the data of the lease's node
 * by {@link LockAdmin#requestRevocation(String)}: two {@code key=value} lines after the
 * {@linkplain OwnerInfo owner} lines, which stay as they were.
 *
 * <p>A request only asks. A holder that opted in with {@link Lease#onRevocationRequested}
 * hears of it and decides; any other holder keeps its lease.
 *
 * @param requestedBy who asked ({@code thread@host[pid N]} of the requesting process, or what
 *                    an operator gave)
 * @param requestedAt when the request was written
 */
public record RevocationRequest(String requestedBy, Instant requestedAt) {
    private static final String AT = "revoke-requested=";
    private static final String BY = "revoke-by=";

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

    /**
     * Reads the request recorded in a node's data.
     *
     * @param data a node's data, or null
     * @return the request, or empty if the data records none
     */
    public static Optional<RevocationRequest> parse(byte[] data) {
        if (data == null) {
            return Optional.empty();
        }
        String at = null;
        String by = "?";
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(AT)) {
                at = line.substring(AT.length());
            } else if (line.startsWith(BY)) {
                by = line.substring(BY.length());
            }
        }
        if (at == null) {
            return Optional.empty();
        }
        Instant when;
        try {
            when = Instant.parse(at);
        } catch (DateTimeParseException e) {
            when = Instant.EPOCH;              // a request is a request, whatever its time says
        }
        return Optional.of(new RevocationRequest(by, when));
    }

    /**
     * {@return {@code data} with this request's lines appended; the owner lines are kept}
     *
     * @param data a node's current data, or null
     */
    public byte[] appendTo(byte[] data) {
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        if (!text.isEmpty() && !text.endsWith("\n")) {
            text += "\n";
        }
        return (text + AT + requestedAt + "\n" + BY + requestedBy + "\n").getBytes(StandardCharsets.UTF_8);
    }
}
