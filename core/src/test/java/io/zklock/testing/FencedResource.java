package io.zklock.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A stand-in for the resource a lock protects, and the judge of the exclusion properties. It
 * admits a holder by fencing token, refuses a token lower than the highest it has admitted
 * (so a holder whose lease was lost cannot write after its successor), and records every time
 * more than {@code capacity} distinct tokens are inside at once.
 */
public final class FencedResource {
    private final int capacity;
    private final boolean fenced;
    private final Map<Long, Integer> inside = new HashMap<>();
    private final List<String> overlaps = new ArrayList<>();
    private final List<Long> admitted = new ArrayList<>();
    private long highest = Long.MIN_VALUE;
    private int peak;
    private int refused;

    /**
     * @param capacity how many distinct holders may be inside at once
     * @param fenced whether tokens lower than the highest admitted are refused (exclusive locks)
     */
    public FencedResource(int capacity, boolean fenced) {
        this.capacity = capacity;
        this.fenced = fenced;
    }

    /** Enters with {@code token}; false if the token is refused as stale. */
    public synchronized boolean enter(long token) {
        if (fenced && token < highest) {
            refused++;
            return false;
        }
        inside.merge(token, 1, Integer::sum);
        if (inside.size() > capacity) {
            overlaps.add("tokens " + inside.keySet() + " inside at once, capacity " + capacity);
        }
        peak = Math.max(peak, inside.size());
        if (token != highest) {
            admitted.add(token);
        }
        highest = Math.max(highest, token);
        return true;
    }

    /** Leaves; every successful {@link #enter} is matched by one exit. */
    public synchronized void exit(long token) {
        inside.computeIfPresent(token, (k, n) -> n == 1 ? null : n - 1);
    }

    /** Descriptions of every moment more than {@code capacity} holders were inside. */
    public synchronized List<String> overlaps() {
        return List.copyOf(overlaps);
    }

    /** The most distinct holders ever inside at once. */
    public synchronized int peak() {
        return peak;
    }

    /** How many entries were refused as stale. */
    public synchronized int refused() {
        return refused;
    }

    /** Tokens in the order they were first admitted. */
    public synchronized List<Long> admitted() {
        return List.copyOf(admitted);
    }
}
