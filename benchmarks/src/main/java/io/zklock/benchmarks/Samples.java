package io.zklock.benchmarks;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Latencies in nanoseconds, with the order statistics the table prints. It counts every
 * sample, and keeps at most {@link #KEPT} of them (a uniform reservoir past that): a cached
 * lease re-granted at memory speed gives millions of samples a second per thread.
 */
final class Samples {
    static final int KEPT = 1 << 20;

    private long[] values = new long[1024];
    private int size;                          // kept
    private long count;                        // seen
    private final SplittableRandom random = new SplittableRandom(42);

    void add(long nanos) {
        count++;
        if (size < KEPT) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = nanos;
        } else {
            long slot = random.nextLong(count);
            if (slot < KEPT) {
                values[(int) slot] = nanos;
            }
        }
    }

    void addAll(Samples other) {
        long before = count;
        for (int i = 0; i < other.size; i++) {
            add(other.values[i]);
        }
        count = before + other.count;          // every sample the other saw, kept or not
    }

    /** {@return how many samples were added, kept or not} */
    long size() {
        return count;
    }

    /** The q-quantile (nearest rank), in nanoseconds; NaN when empty. */
    double quantile(double q) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))];
    }
}
