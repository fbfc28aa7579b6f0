package io.zklock.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;

import io.zklock.core.Lease;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;

/**
 * The semaphore story: more sessions than permits take turns on a {@link ZkSemaphore}. Never
 * more holders than permits, and no permit sits idle while a session waits (the longest such
 * stretch is the slowest hand-off, milliseconds, not a waiter that nobody woke).
 */
final class SemaphoreStory implements Story {
    static final int PERMITS = 3;
    static final int SESSIONS = 6;
    /** Far above a hand-off (a few ms) and far below a missed wake-up (until the story ends). */
    private static final Duration IDLE_BOUND = Duration.ofMillis(500);

    @Override
    public Result run(Stage stage) throws Exception {
        stage.print("");
        stage.print("== semaphore: " + SESSIONS + " sessions share " + PERMITS + " permits (hold 10-30 ms each) ==");
        String path = stage.root + "/semaphore/pool";
        Gauge gauge = new Gauge(PERMITS);
        AtomicLongArray perSession = new AtomicLongArray(SESSIONS);
        List<Stage.Worker> workers = new ArrayList<>();
        for (int i = 0; i < SESSIONS; i++) {
            CuratorFramework client = stage.session();
            ZkSemaphore semaphore = new ZkSemaphore(client, path, PERMITS);
            String lane = "s" + (i + 1);
            stage.timeline.lane(lane, "semaphore");
            int index = i;
            workers.add(() -> {
                long deadline = stage.deadline();
                while (System.nanoTime() < deadline) {
                    long asked = stage.timeline.now();
                    gauge.asking();
                    Lease lease = semaphore.acquire();
                    long granted = stage.timeline.now();
                    int now = gauge.granted();
                    perSession.incrementAndGet(index);
                    Thread.sleep(10 + ThreadLocalRandom.current().nextInt(21));
                    gauge.releasing();
                    stage.timeline.bar(lane, Timeline.Kind.PERMIT, asked, granted, stage.timeline.now(),
                            now + " of " + PERMITS + " permits taken");
                    lease.close();
                    Thread.sleep(ThreadLocalRandom.current().nextInt(5));
                }
            });
        }
        long began = System.nanoTime();
        stage.say("running for " + Durations.format(stage.duration) + " ...");
        stage.runWorkers(workers, () -> gauge.grants() + " grants, " + gauge.holding() + " holding, "
                + gauge.waiting() + " waiting");
        long elapsed = System.nanoTime() - began;
        long idle = gauge.longestIdleWhileWaiting();
        long starved = 0;
        for (int i = 0; i < SESSIONS; i++) {
            starved += perSession.get(i) == 0 ? 1 : 0;
        }
        stage.say(gauge.grants() + " grants; at most " + gauge.peakHolding() + " holders at once; the longest a session"
                + " waited while a permit was free: " + Durations.formatNanos(idle));
        return new Result("semaphore", SESSIONS, gauge.grants(), elapsed, gauge.peakHolding(), List.of(
                Check.of("never more holders than permits", gauge.peakHolding() <= PERMITS,
                        "peak " + gauge.peakHolding() + " of " + PERMITS),
                Check.of("no permit idle while a session waits", idle <= IDLE_BOUND.toNanos(),
                        "longest " + Durations.formatNanos(idle) + ", bound " + Durations.format(IDLE_BOUND)),
                Check.of("every session got a permit", starved == 0, starved + " sessions never granted")));
    }
}
