package io.zklock.conformance.harness;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The resource a read-write lock protects, and the judge of its exclusion properties: any
 * number of readers, or one writer, inside at once. Writers are fenced: a write token lower
 * than the highest admitted is refused. A writer that downgrades turns into a reader without
 * leaving, as the lock lets it.
 */
public final class FencedReadWriteResource {
    private final Set<Long> writers = new HashSet<>();
    private int readers;
    private int peakReaders;
    private long highestWrite = Long.MIN_VALUE;
    private final List<String> overlaps = new ArrayList<>();
    private final List<Long> refused = new ArrayList<>();

    public synchronized void enterRead(String who) {
        if (!writers.isEmpty()) {
            overlaps.add("reader " + who + " entered beside writer " + writers);
        }
        readers++;
        peakReaders = Math.max(peakReaders, readers);
    }

    public synchronized void exitRead() {
        readers--;
    }

    /** Enters with a write token; false if the token is stale. */
    public synchronized boolean enterWrite(long token) {
        if (token < highestWrite) {
            refused.add(token);
            return false;
        }
        if (!writers.isEmpty() || readers > 0) {
            overlaps.add("writer " + token + " entered beside writers " + writers + " and " + readers + " readers");
        }
        writers.add(token);
        highestWrite = token;
        return true;
    }

    public synchronized void exitWrite(long token) {
        writers.remove(token);
    }

    /** The writer with {@code token} becomes a reader, never leaving the resource. */
    public synchronized void downgrade(long token) {
        writers.remove(token);
        readers++;
        peakReaders = Math.max(peakReaders, readers);
    }

    public synchronized List<String> overlaps() {
        return List.copyOf(overlaps);
    }

    public synchronized List<Long> refused() {
        return List.copyOf(refused);
    }

    public synchronized int peakReaders() {
        return peakReaders;
    }
}
