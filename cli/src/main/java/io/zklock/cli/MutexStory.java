package io.zklock.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.zklock.core.Lease;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;

/**
 * The mutex story: sessions increment a counter kept in a ZooKeeper node by reading it, pausing
 * a moment and writing it back. Without a lock, increments made at the same time overwrite each
 * other (lost updates); under a {@link ZkMutex} none is lost. Then {@link FencingStory} shows
 * what the mutex cannot do alone and the fencing token can.
 */
final class MutexStory implements Story {
    static final int SESSIONS = 4;

    @Override
    public Result run(Stage stage) throws Exception {
        stage.print("");
        stage.print("== mutex: " + SESSIONS + " sessions increment a counter node (read, pause 1 ms, write) ==");
        String counter = stage.root + "/mutex/counter";
        String lockPath = stage.root + "/mutex/lock";
        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i < SESSIONS; i++) {
            clients.add(stage.session());
            stage.timeline.lane("m" + (i + 1), "mutex");
        }
        clients.get(0).create().creatingParentsIfNeeded().forPath(counter, "0".getBytes());

        stage.say("without a lock, for " + Durations.format(stage.duration) + " ...");
        long unlocked = increment(stage, clients, counter, null, new Gauge(1));
        long lost = unlocked - Stage.readLong(clients.get(0), counter);
        stage.say("without a lock: " + unlocked + " increments, the counter reads " + (unlocked - lost)
                + ": " + lost + " updates lost");

        Stage.writeLong(clients.get(0), counter, 0);
        stage.say("with ZkMutex " + lockPath.substring(stage.root.length()) + ", for " + Durations.format(stage.duration) + " ...");
        Gauge gauge = new Gauge(1);
        long began = System.nanoTime();
        long locked = increment(stage, clients, counter, lockPath, gauge);
        long elapsed = System.nanoTime() - began;
        long lockedLost = locked - Stage.readLong(clients.get(0), counter);
        stage.say("with ZkMutex: " + locked + " increments, the counter reads " + (locked - lockedLost)
                + ": " + lockedLost + " updates lost");

        List<Check> checks = new ArrayList<>();
        checks.add(Check.of("no update lost under ZkMutex", lockedLost == 0 && locked > 0,
                locked + " increments, counter " + (locked - lockedLost)));
        checks.add(Check.of("one holder at a time", gauge.peakHolding() == 1,
                "peak " + gauge.peakHolding() + " holders"));
        checks.addAll(new FencingStory().run(stage));
        return new Result("mutex", SESSIONS + 2, gauge.grants(), elapsed, gauge.peakHolding(), checks);
    }

    /** Every session increments until the story's time is up; returns the increments made. */
    private static long increment(Stage stage, List<CuratorFramework> clients, String counter, String lockPath,
            Gauge gauge) throws Exception {
        AtomicLong done = new AtomicLong();
        long deadline = stage.deadline();
        List<Stage.Worker> workers = new ArrayList<>();
        for (int i = 0; i < clients.size(); i++) {
            CuratorFramework client = clients.get(i);
            String lane = "m" + (i + 1);
            ZkMutex mutex = lockPath == null ? null : new ZkMutex(client, lockPath);
            workers.add(() -> {
                while (System.nanoTime() < deadline) {
                    long asked = stage.timeline.now();
                    gauge.asking();
                    Lease lease = mutex == null ? null : mutex.acquire();
                    gauge.granted();
                    long granted = mutex == null ? asked : stage.timeline.now();    // nothing to wait for
                    try {
                        long value = Stage.readLong(client, counter);
                        Thread.sleep(1);    // the pause that lets another session read the same value
                        Stage.writeLong(client, counter, value + 1);
                        done.incrementAndGet();
                    } finally {
                        gauge.releasing();
                        if (lease != null) {
                            stage.timeline.bar(lane, Timeline.Kind.MUTEX, asked, granted, stage.timeline.now(),
                                    "token 0x" + Long.toHexString(lease.fencingToken()));
                            lease.close();
                        } else {
                            // drawn too, so the timeline shows unlocked increments overlapping and locked ones not
                            stage.timeline.bar(lane, Timeline.Kind.UNLOCKED, asked, granted, stage.timeline.now(),
                                    "read-modify-write without a lock");
                        }
                    }
                    Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                }
            });
        }
        stage.runWorkers(workers, () -> done.get() + " increments, " + gauge.holding() + " in the critical section, "
                + gauge.waiting() + " waiting");
        return done.get();
    }
}
