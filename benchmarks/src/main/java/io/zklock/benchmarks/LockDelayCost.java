package io.zklock.benchmarks;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.zklock.core.Lease;
import io.zklock.core.LockDelay;
import io.zklock.core.LockOptions;
import io.zklock.mutex.ZkMutex;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/**
 * What a lock-delay costs, zklock's mutex with {@link LockDelay} off against on, on one embedded
 * server in one JVM ({@code --scenario lockdelay}).
 *
 * <p><b>Without a failure.</b> Two sessions hand one mutex back and forth (each thread loops
 * acquire, release; every grant but a round's first is a hand-off from the other), and one
 * session acquires and releases alone. Rounds alternate between off and on (off first in even
 * pairs, on first in odd ones), after an unmeasured warm-up round of each. A hand-off is timed
 * from the holder starting its release to the other's acquire returning; requests are the
 * server's {@code PacketsReceived} over the rounds, per grant.
 *
 * <p><b>After a holder's session ended.</b> A holder's session is closed on the server by a
 * second handle attached to it (the server deletes its node at once, with no release's mark,
 * as an expiry does), while another session waits; timed from the close being sent to the
 * waiter's acquire completing (its future, on the thread that completes it). A real expiry adds the time the server takes to expire the
 * session (its timeout, rounded up to its tick) to both.
 *
 * <p>Arguments: {@code --delay-ms 1000} (the lock-delay when on), {@code --rounds 3},
 * {@code --seconds 3} (per hand-off round), {@code --expiries 5} (per setting).
 */
final class LockDelayCost {
    private static final int SESSION_MS = 10_000;

    private LockDelayCost() {
    }

    record Options(Duration delay, int rounds, int seconds, int expiries) {
        static Options parse(String... args) {
            Duration delay = Duration.ofSeconds(1);
            int rounds = 3;
            int seconds = 3;
            int expiries = 5;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--scenario" -> i++;
                    case "--delay-ms" -> delay = Duration.ofMillis(positive(args, i++));
                    case "--rounds" -> rounds = positive(args, i++);
                    case "--seconds" -> seconds = positive(args, i++);
                    case "--expiries" -> expiries = positive(args, i++);
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i]
                            + "'; usage: --scenario lockdelay [--delay-ms 1000] [--rounds 3] [--seconds 3] [--expiries 5]");
                }
            }
            return new Options(delay, rounds, seconds, expiries);
        }

        private static int positive(String[] args, int i) {
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            try {
                int v = Integer.parseInt(args[i + 1]);
                if (v > 0) {
                    return v;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(args[i] + " '" + args[i + 1] + "' is not a positive number");
        }
    }

    /** One setting's pooled figures. */
    private static final class Tally {
        final Samples handoffs = new Samples();
        long contendedGrants;
        long contendedPackets;
        long aloneOps;
        long alonePackets;
        long aloneNanos;
        final Samples afterEnd = new Samples();
    }

    /** Whether the arguments select this scenario. */
    static boolean selected(String... args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--scenario") && args[i + 1].equals("lockdelay")) {
                return true;
            }
        }
        return false;
    }

    static void run(Options options, PrintStream out) throws Exception {
        try (var server = new TestingServer(true)) {
            ServerCounters counters = new ServerCounters(server.getPort());
            String connect = server.getConnectString();
            LockDelay[] settings = {LockDelay.off(), LockDelay.of(options.delay())};
            Tally[] tallies = {new Tally(), new Tally()};
            for (int s = 0; s < 2; s++) {
                handOffRound(connect, settings[s], 1, counters, new Tally());       // warm-up
            }
            for (int r = 0; r < 2 * options.rounds(); r++) {
                int s = (r % 2 == 0) != (r / 2 % 2 == 1) ? 0 : 1;
                handOffRound(connect, settings[s], options.seconds(), counters, tallies[s]);
                aloneRound(connect, settings[s], options.seconds(), counters, tallies[s]);
                out.printf(Locale.ROOT, "# lockdelay hand-off round %d, %s done%n", r / 2 + 1, settings[s]);
            }
            for (int e = 0; e < 2 * options.expiries(); e++) {
                int s = e % 2;
                tallies[s].afterEnd.add(afterSessionEnd(connect, settings[s]));
            }
            print(options, settings, tallies, out);
        }
    }

    /** Two sessions hand the mutex back and forth for {@code seconds}. */
    private static void handOffRound(String connect, LockDelay delay, int seconds, ServerCounters counters, Tally tally)
            throws Exception {
        String path = "/bench/lockdelay/handoff-" + (delay.isOn() ? "on" : "off");
        CuratorFramework[] clients = {ZkTesting.client(connect, SESSION_MS), ZkTesting.client(connect, SESSION_MS)};
        try {
            AtomicLong releaseStarted = new AtomicLong();      // nanoTime, 0 before the first release
            AtomicLong grants = new AtomicLong();
            Samples samples = new Samples();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            CountDownLatch done = new CountDownLatch(2);
            long packets = counters.packetsReceived();
            for (CuratorFramework client : clients) {
                ZkMutex mutex = new ZkMutex(client, path, LockOptions.defaults().withLockDelay(delay));
                Thread worker = new Thread(() -> {
                    try {
                        while (System.nanoTime() - end < 0) {
                            Lease lease = mutex.acquire();
                            long released = releaseStarted.get();
                            if (released != 0) {
                                synchronized (samples) {
                                    samples.add(System.nanoTime() - released);
                                }
                            }
                            grants.incrementAndGet();
                            releaseStarted.set(System.nanoTime());
                            lease.close();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        done.countDown();
                    }
                });
                worker.start();
            }
            done.await();
            tally.contendedPackets += counters.packetsReceived() - packets;
            tally.contendedGrants += grants.get();
            tally.handoffs.addAll(samples);
        } finally {
            for (CuratorFramework c : clients) {
                c.close();
            }
        }
    }

    /** One session acquires and releases alone for {@code seconds}. */
    private static void aloneRound(String connect, LockDelay delay, int seconds, ServerCounters counters, Tally tally)
            throws Exception {
        try (CuratorFramework client = ZkTesting.client(connect, SESSION_MS)) {
            ZkMutex mutex = new ZkMutex(client, "/bench/lockdelay/alone-" + (delay.isOn() ? "on" : "off"),
                    LockOptions.defaults().withLockDelay(delay));
            mutex.acquire().close();                               // the directory exists
            long packets = counters.packetsReceived();
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long ops = 0;
            while (System.nanoTime() - end < 0) {
                mutex.acquire().close();
                ops++;
            }
            tally.aloneNanos += System.nanoTime() - start;
            tally.alonePackets += counters.packetsReceived() - packets;
            tally.aloneOps += ops;
        }
    }

    /** A holder's session is closed on the server while another waits: nanoseconds to the waiter's grant. */
    private static long afterSessionEnd(String connect, LockDelay delay) throws Exception {
        String path = "/bench/lockdelay/expiry-" + (delay.isOn() ? "on" : "off");
        LockOptions options = LockOptions.defaults().withLockDelay(delay);
        try (CuratorFramework holder = ZkTesting.client(connect, SESSION_MS);
                CuratorFramework waiter = ZkTesting.client(connect, SESSION_MS)) {
            new ZkMutex(holder, path, options).acquire();
            CompletableFuture<Lease> next = new ZkMutex(waiter, path, options).acquireAsync(Duration.ofSeconds(60));
            while (ZkTesting.lockNodesBelow(waiter, path).size() < 2) {
                Thread.sleep(5);
            }
            ZooKeeper zk = holder.getZookeeperClient().getZooKeeper();
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper twin = new ZooKeeper(connect, SESSION_MS, event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    connected.countDown();
                }
            }, zk.getSessionId(), zk.getSessionPasswd());
            if (!connected.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not attach to the holder's session");
            }
            AtomicLong grantedAt = new AtomicLong();
            CompletableFuture<Lease> timed = next.whenComplete((l, e) -> grantedAt.set(System.nanoTime()));
            long start = System.nanoTime();
            twin.close();                                          // returns only some 100 ms after the server ended the session
            timed.get(60, TimeUnit.SECONDS).close();
            return grantedAt.get() - start;
        }
    }

    private static void print(Options options, LockDelay[] settings, Tally[] tallies, PrintStream out) {
        out.printf(Locale.ROOT, "%nLock-delay cost: zklock mutex, %d rounds of %d s per setting, hand-offs between 2 sessions; "
                + "alone: 1 session; after a session's end: %d per setting (the holder's session closed on the server)%n",
                options.rounds(), options.seconds(), options.expiries());
        out.printf(Locale.ROOT, "%-16s %10s %12s %12s %12s %10s %12s %14s %14s%n", "lock-delay", "hand-offs", "med us",
                "p99 us", "req/grant", "alone ops", "alone us/op", "alone req/op", "next grant ms");
        for (int s = 0; s < 2; s++) {
            Tally t = tallies[s];
            out.printf(Locale.ROOT, "%-16s %10d %12.0f %12.0f %12.2f %10d %12.0f %14.2f %14s%n", settings[s], t.handoffs.size(),
                    t.handoffs.quantile(0.5) / 1_000, t.handoffs.quantile(0.99) / 1_000,
                    (double) t.contendedPackets / t.contendedGrants, t.aloneOps, t.aloneNanos / 1_000.0 / t.aloneOps,
                    (double) t.alonePackets / t.aloneOps, millis(t.afterEnd));
        }
    }

    private static String millis(Samples samples) {
        return String.format(Locale.ROOT, "%.0f (%.0f-%.0f)", samples.quantile(0.5) / 1e6, samples.quantile(0) / 1e6,
                samples.quantile(1) / 1e6);
    }
}
