package io.zklock.shedlock;

import java.nio.charset.StandardCharsets;

/**
 * The data of a job's marker node, written by each lock and extension of the job: one line
 * {@code "<atLeastMs> <gateMs>"}. Read with the node's mtime (the server's clock at that write),
 * it says when the job may run again:
 * <ul>
 *   <li>{@code mtime >= gateMs}: the write was a grant, and the job may not run again before
 *       {@code mtime + atLeastMs};
 *   <li>{@code mtime < gateMs}: the write was a refused attempt (it came before the previous
 *       run's lockAtLeastFor ended), which leaves that bound, {@code gateMs}, in place.
 * </ul>
 * Every number is the servers' (an mtime, or an mtime plus a duration). Data that does not
 * parse (written by something else) bounds nothing beyond its own mtime: it is overwritten by
 * the next lock, and a run is never refused forever on garbage.
 */
record JobMarker(long atLeastMs, long gateMs) {
    /** What a new marker holds: a grant of zero length, as if written at its creation. */
    static final JobMarker NONE = new JobMarker(0, 0);

    /** The server time before which the job may not run again, given the write's mtime. */
    long notBefore(long mtime) {
        return mtime >= gateMs ? saturatedAdd(mtime, atLeastMs) : gateMs;
    }

    /** Whether a write of this marker at {@code mtime} was a grant. */
    boolean granted(long mtime) {
        return mtime >= gateMs;
    }

    byte[] encode() {
        return (atLeastMs + " " + gateMs).getBytes(StandardCharsets.UTF_8);
    }

    /** Parses marker data; null when it is not a marker's. */
    static JobMarker parse(byte[] data) {
        if (data == null || data.length == 0 || data.length > 64) {
            return null;
        }
        String[] parts = new String(data, StandardCharsets.UTF_8).split(" ", -1);
        if (parts.length != 2) {
            return null;
        }
        try {
            long atLeast = Long.parseLong(parts[0]);
            long gate = Long.parseLong(parts[1]);
            return atLeast < 0 ? null : new JobMarker(atLeast, gate);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
