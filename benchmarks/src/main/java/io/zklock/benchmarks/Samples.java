package io.zklock.benchmarks;

import java.util.Arrays;

/** A growable list of latencies in nanoseconds, with the order statistics the table prints. */
final class Samples {
    private long[] values = new long[1024];
    private int size;

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    void addAll(Samples other) {
        for (int i = 0; i < other.size; i++) {
            add(other.values[i]);
        }
    }

    int size() {
        return size;
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
