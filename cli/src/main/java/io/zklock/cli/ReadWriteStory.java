package io.zklock.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.readwrite.ZkReadWriteLock;

/**
 * The read-write story: readers come back-to-back on a {@link ZkReadWriteLock}, so that there
 * is almost always a reader holding, while writers ask now and then. Readers overlap, a writer
 * holds alone, and a writer is not starved: it is granted as soon as the readers queued before
 * it leave, because readers that come after it queue behind it.
 */
final class ReadWriteStory implements Story {
    static final int READERS = 4;
    static final int WRITERS = 2;
    private static final Duration WRITER_BOUND = Duration.ofSeconds(2);

    @Override
    public Result run(Stage stage) throws Exception {
        stage.print("");
        stage.print("== read-write: " + READERS + " readers back to back (hold 15-40 ms), " + WRITERS
                + " writers now and then (hold 10 ms) ==");
        String path = stage.root + "/readwrite/catalog";
        Gauge readers = new Gauge(Integer.MAX_VALUE);
        Gauge writers = new Gauge(1);
        AtomicLong overlaps = new AtomicLong();
        AtomicLong longestWriterWait = new AtomicLong();
        List<Stage.Worker> workers = new ArrayList<>();
        for (int i = 0; i < READERS + WRITERS; i++) {
            boolean writer = i >= READERS;
            String lane = writer ? "w" + (i - READERS + 1) : "r" + (i + 1);
            stage.timeline.lane(lane, "read-write");
            ZkReadWriteLock rw = new ZkReadWriteLock(stage.session(), path);
            DistributedLock lock = writer ? rw.writeLock() : rw.readLock();
            Gauge mine = writer ? writers : readers;
            workers.add(() -> {
                long deadline = stage.deadline();
                var random = ThreadLocalRandom.current();
                while (System.nanoTime() < deadline) {
                    if (writer) {
                        Thread.sleep(40 + random.nextInt(41));
                    }
                    long asked = stage.timeline.now();
                    mine.asking();
                    Lease lease = lock.acquire();
                    long granted = stage.timeline.now();
                    mine.granted();
                    // a reader beside a writer, or two writers: the lock's promise broken
                    if (writers.holding() > (writer ? 1 : 0) || writer && readers.holding() > 0) {
                        overlaps.incrementAndGet();
                    }
                    if (writer) {
                        longestWriterWait.accumulateAndGet(granted - asked, Math::max);
                    }
                    Thread.sleep(writer ? 10 : 15 + random.nextInt(26));
                    mine.releasing();
                    stage.timeline.bar(lane, writer ? Timeline.Kind.WRITE : Timeline.Kind.READ, asked, granted,
                            stage.timeline.now(), writer ? "write" : "read");
                    lease.close();
                    if (!writer) {
                        Thread.sleep(random.nextInt(6));
                    }
                }
            });
        }
        long began = System.nanoTime();
        stage.say("running for " + Durations.format(stage.duration) + " ...");
        stage.runWorkers(workers, () -> readers.grants() + " reads, " + writers.grants() + " writes; now "
                + readers.holding() + " reading, " + writers.holding() + " writing, "
                + (readers.waiting() + writers.waiting()) + " waiting");
        long elapsed = System.nanoTime() - began;
        long writerWait = longestWriterWait.get();
        stage.say(readers.grants() + " reads (up to " + readers.peakHolding() + " at once), " + writers.grants()
                + " writes; the longest a writer waited: " + Durations.formatNanos(writerWait));
        return new Result("read-write", READERS + WRITERS, readers.grants() + writers.grants(), elapsed,
                Math.max(readers.peakHolding(), writers.peakHolding()), List.of(
                        Check.of("readers overlap", readers.peakHolding() > 1, "peak " + readers.peakHolding() + " readers"),
                        Check.of("a writer holds alone", overlaps.get() == 0 && writers.peakHolding() == 1,
                                overlaps.get() + " overlaps"),
                        Check.of("writers not starved", writers.grants() >= WRITERS && writerWait <= WRITER_BOUND.toNanos(),
                                writers.grants() + " writes, longest wait " + Durations.formatNanos(writerWait)
                                        + ", bound " + Durations.format(WRITER_BOUND))));
    }
}
