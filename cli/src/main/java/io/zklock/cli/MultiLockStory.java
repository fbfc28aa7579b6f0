package io.zklock.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import io.zklock.core.Lease;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;

/**
 * The multi-lock story: sessions move money between accounts kept in ZooKeeper nodes. Each
 * transfer locks its two accounts' {@link ZkMutex}es through one {@link ZkMultiLock}, listed in
 * random order: taking two locks one after the other in random order is the textbook deadlock,
 * and the multi-lock's single transaction avoids it. Every transfer finishes within a bound and
 * the total balance is what it was.
 */
final class MultiLockStory implements Story {
    static final int ACCOUNTS = 5;
    static final int SESSIONS = 4;
    private static final long OPENING = 100;
    private static final Duration TRANSFER_BOUND = Duration.ofSeconds(5);

    @Override
    public Result run(Stage stage) throws Exception {
        stage.print("");
        stage.print("== multi-lock: " + SESSIONS + " sessions transfer between " + ACCOUNTS
                + " accounts, locking both accounts in random order ==");
        String base = stage.root + "/multilock";
        CuratorFramework setup = stage.session();
        for (int a = 0; a < ACCOUNTS; a++) {
            setup.create().creatingParentsIfNeeded().forPath(base + "/accounts/a" + a, Long.toString(OPENING).getBytes());
        }
        Gauge gauge = new Gauge(Integer.MAX_VALUE);
        AtomicIntegerArray busy = new AtomicIntegerArray(ACCOUNTS);
        AtomicInteger clashes = new AtomicInteger();
        AtomicLong timedOut = new AtomicLong();
        List<Stage.Worker> workers = new ArrayList<>();
        for (int i = 0; i < SESSIONS; i++) {
            CuratorFramework client = stage.session();
            List<ZkMutex> locks = new ArrayList<>();
            for (int a = 0; a < ACCOUNTS; a++) {
                locks.add(new ZkMutex(client, base + "/locks/a" + a));
            }
            String lane = "t" + (i + 1);
            stage.timeline.lane(lane, "multi-lock");
            workers.add(() -> {
                long deadline = stage.deadline();
                var random = ThreadLocalRandom.current();
                while (System.nanoTime() < deadline) {
                    int from = random.nextInt(ACCOUNTS);
                    int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                    List<ZkMutex> order = random.nextBoolean() ? List.of(locks.get(from), locks.get(to))
                            : List.of(locks.get(to), locks.get(from));
                    long asked = stage.timeline.now();
                    gauge.asking();
                    Optional<Lease> lease = new ZkMultiLock(order).tryAcquire(TRANSFER_BOUND);
                    if (lease.isEmpty()) {
                        gauge.gaveUp();
                        timedOut.incrementAndGet();
                        continue;
                    }
                    long granted = stage.timeline.now();
                    gauge.granted();
                    if (!busy.compareAndSet(from, 0, 1) | !busy.compareAndSet(to, 0, 1)) {
                        clashes.incrementAndGet();
                    }
                    long amount = transfer(client, base, from, to, random.nextInt(1, 21));
                    busy.set(from, 0);
                    busy.set(to, 0);
                    gauge.releasing();
                    stage.timeline.bar(lane, Timeline.Kind.MULTI, asked, granted, stage.timeline.now(),
                            "a" + from + " -> a" + to + ": " + amount);
                    lease.get().close();
                }
            });
        }
        long began = System.nanoTime();
        stage.say("running for " + Durations.format(stage.duration) + " ...");
        stage.runWorkers(workers, () -> gauge.grants() + " transfers, " + gauge.holding() + " in progress, "
                + gauge.waiting() + " waiting");
        long elapsed = System.nanoTime() - began;
        long total = 0;
        for (int a = 0; a < ACCOUNTS; a++) {
            total += Stage.readLong(setup, base + "/accounts/a" + a);
        }
        long expected = OPENING * ACCOUNTS;
        stage.say(gauge.grants() + " transfers (up to " + gauge.peakHolding() + " at once); total balance " + total
                + " (was " + expected + ")");
        return new Result("multi-lock", SESSIONS, gauge.grants(), elapsed, gauge.peakHolding(), List.of(
                Check.of("no deadlock: every transfer granted within " + Durations.format(TRANSFER_BOUND),
                        timedOut.get() == 0 && gauge.grants() > 0, timedOut.get() + " timed out"),
                Check.of("total balance conserved", total == expected, total + " of " + expected),
                Check.of("no account in two transfers at once", clashes.get() == 0, clashes.get() + " clashes")));
    }

    /** Moves up to {@code wanted} from one account to the other (never below zero); returns the amount moved. */
    private static long transfer(CuratorFramework client, String base, int from, int to, long wanted) throws Exception {
        String fromPath = base + "/accounts/a" + from;
        String toPath = base + "/accounts/a" + to;
        long fromBalance = Stage.readLong(client, fromPath);
        long toBalance = Stage.readLong(client, toPath);
        long amount = Math.min(wanted, fromBalance);
        Thread.sleep(1);    // as a slower store would, widening the window a missing lock would expose
        Stage.writeLong(client, fromPath, fromBalance - amount);
        Stage.writeLong(client, toPath, toBalance + amount);
        return amount;
    }
}
