package io.zklock.conformance.harness;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongUnaryOperator;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.zklock.conformance.harness.FaultJudge.Guard;
import io.zklock.conformance.harness.FaultJudge.Held;
import io.zklock.conformance.harness.FaultSchedule.Acquire;
import io.zklock.conformance.harness.FaultSchedule.Fault;
import io.zklock.conformance.harness.FaultSchedule.Inject;
import io.zklock.conformance.harness.FaultSchedule.Pause;
import io.zklock.conformance.harness.FaultSchedule.Step;
import io.zklock.conformance.harness.Recipe.Component;
import io.zklock.conformance.harness.Recipe.Sharing;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LeaseValidity;
import io.zklock.core.LockDelay;
import io.zklock.core.LockException;
import io.zklock.core.LockOptions;
import io.zklock.core.ValidityClock;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.mutex.ZkMutex;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * Runs one FaultSchedule against one Recipe and has a FaultJudge judge it. Each client is a
 * Curator client of its own whose traffic goes through its own FaultProxy; a "direct" client,
 * not proxied, reaps directories, reads the server's truth and is never faulted (except by
 * ensemble faults).
 *
 * What an acquire step requests, by its variant: the recipe or its rival (so a read lock's
 * schedules mix readers and writers); for a multi-lock, the multi-lock, its components in the
 * reverse order (two orders that would deadlock if taken one lock at a time), or one
 * component's rival alone (single-lock users queueing among the multi-locks). Each lock path a
 * lease stands on is one fenced resource of the judge, judged by the Sharing of the recipe on
 * that path.
 *
 * The schedule's steps run in order on the caller's thread: an acquire starts a worker thread
 * and returns; a fault with a duration (cut, freeze, deafen, server kill) blocks for it and
 * heals; an armed fault (lost reply, reaped directory) fires on the client's next matching
 * request. A worker, repeatedly while it holds and its lease says HELD, writes to the fenced
 * resources its lease protects; a write is atomic with respect to the judge.
 *
 * A runner made by checkingValidity() runs a mutex whose holders write WITHOUT fencing: before
 * each write the worker calls Lease.checkValidFor(NEEDED), then acts for up to NEEDED (the
 * write lands at the end), and tells the judge both times (its unfencedOverlaps()). A
 * PROCESS_PAUSE freezes a holder as a whole, as near as one JVM can: its client's proxy holds
 * every frame both ways (the server hears nothing, the client hears nothing) and its worker,
 * between its check and its write, sleeps for the same PAUSE_MS, shorter than the validity
 * margin. It does not stop the client's own threads: its timers run on, and its session clock
 * keeps counting, as the monotonic clock of a paused process would.
 *
 * Every client counts its leases' validity on a clock of its own (a SkewableClock, given with
 * ValidityClock.use): the monotonic clock until a CLOCK_SKEW makes a holder's (or, if none
 * holds, the client's) run slow or fast, by the margin's rate part or half of it in turn
 * (slow by all of it, fast by all of it, slow by half, fast by half), for the rest of the run.
 * A runner told the server's expiry (judgingValidityAgainst, single server) has each holder
 * read validFor() before each write and ValidityReadings judge the reading against it.
 *
 * The runner decides nothing: it tells the judge what it saw (each write, each lease closed,
 * each request that failed, was late or is stranded, each client not granted again, the
 * watches and nodes left, each session it expired by force), and the judge, whose Overview
 * lists the promises, decides which of it is a violation.
 */
public final class FaultScheduleRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultScheduleRunner.class);
    private static final int WRITE_EVERY_MS = 20;
    private static final int STEP_GAP_MS = 40;
    private static final int REAPS_PER_FAULT = 2;
    /** How long a LOST session's nodes may stay once its client has reconnected: its deletes are then in flight. */
    private static final int CLEANUP_GRACE_MS = 2_000;
    /** How long watches may stay once every request is over: their removals may still be in flight. */
    private static final int WATCHES_GRACE_MS = 10_000;
    /** What a validity-checking holder asks of its lease before each action: the action's longest time. */
    public static final Duration NEEDED = Duration.ofMillis(300);
    /** A process pause: shorter than the validity margin (1 s fixed by default, see LeaseValidity). */
    public static final int PAUSE_MS = 800;
    /** The margin the clients' locks keep: the client's, from the system properties or the defaults. */
    private static final LeaseValidity MARGIN = LeaseValidity.fromSystemProperties();

    private enum Phase { WAITING, HOLDING, DONE }

    /** What one run found. */
    public record Outcome(List<String> violations, Map<Fault, Integer> injected, Map<Fault, Integer> skipped,
            int granted, int timedOut, int failed, int writes, int lateNoticesAfterForcedExpiry,
            List<Long> recoveryMillis, Map<Fault, List<Long>> faultRecoveryMillis, int successorWroteBeforeLost,
            int lostNodeChecks, int unfencedWrites, List<String> unfencedOverlaps, Validity validity) {
    }

    /**
     * The validity readings judged (none unless judgingValidityAgainst was called), the clients
     * whose clock a CLOCK_SKEW hit, and the pairs of a skewed holder's readings that fell at its
     * clock's rate and at the monotonic clock's (see ValidityReadings).
     */
    public record Validity(int readings, int skewedClients, int skewedReadings, int pairsAtClockRate, int pairsAtMonotonicRate) {
    }

    /** What an acquire step requests: the lock, and one guard per node of its lease, in the lease's order. */
    private record Request(String what, DistributedLock lock, List<Guard> guards) {
    }

    private final Recipe recipe;
    private final boolean unguarded;
    private final LockDelay unfencedDelay;                               // null: holders write fenced
    private final int sessionMs;
    private final String serverConnect;
    private final TestingCluster cluster;
    private final String base = "/faults/" + UUID.randomUUID();
    private final Duration acquireBound;
    private final CuratorFramework direct;
    private final List<Client> clients = new ArrayList<>();
    private final FaultJudge judge;
    private final Map<Fault, AtomicInteger> injected = new EnumMap<>(Fault.class);
    private final Map<Fault, AtomicInteger> skipped = new EnumMap<>(Fault.class);
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private final List<Long> recovery = new CopyOnWriteArrayList<>();
    private final Map<Fault, List<Long>> faultRecovery = new ConcurrentHashMap<>();   // by the kind healed
    private volatile boolean probeAfterEachFault;
    private final AtomicInteger granted = new AtomicInteger();
    private final AtomicInteger timedOut = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger ids = new AtomicInteger();
    private int acquireSteps;                                            // the caller's thread only
    private volatile boolean armed = true;
    private ValidityReadings readings;                                  // null: readings not judged
    private double[] skews = {-MARGIN.rate(), MARGIN.rate(), -MARGIN.rate() / 2, MARGIN.rate() / 2};
    private final AtomicInteger skewsMade = new AtomicInteger();

    /**
     * @param recipe the recipe under test (its rival and, for a multi-lock, its components too)
     * @param serverConnect the servers' own connect string (the direct client and forced expiry use it)
     * @param cluster the ensemble, for ensemble faults; null on a single server
     */
    public FaultScheduleRunner(Recipe recipe, int clientCount, int sessionMs, String serverConnect, TestingCluster cluster) {
        this(recipe, false, null, clientCount, sessionMs, serverConnect, cluster);
    }

    /**
     * A mutex whose holders check their lease's validity and write without fencing (see the
     * Overview), with {@code delay} as its lock-delay, on a single server.
     */
    public static FaultScheduleRunner checkingValidity(LockDelay delay, int clientCount, int sessionMs, String serverConnect) {
        return new FaultScheduleRunner(Recipe.MUTEX, false, delay, clientCount, sessionMs, serverConnect, null);
    }

    /**
     * Not a recipe: each client locks a mutex on a path of its own, so nothing excludes; what the
     * judge's self-test runs against, on a single server.
     */
    public static FaultScheduleRunner unguarded(int clientCount, int sessionMs, String serverConnect) {
        return new FaultScheduleRunner(Recipe.MUTEX, true, null, clientCount, sessionMs, serverConnect, null);
    }

    private FaultScheduleRunner(Recipe recipe, boolean unguarded, LockDelay unfencedDelay, int clientCount, int sessionMs,
            String serverConnect, TestingCluster cluster) {
        this.recipe = recipe;
        this.unguarded = unguarded;
        this.unfencedDelay = unfencedDelay;
        this.sessionMs = sessionMs;
        this.serverConnect = serverConnect;
        this.cluster = cluster;
        this.acquireBound = Duration.ofMillis(5L * sessionMs);
        this.judge = new FaultJudge(unguarded ? "unguarded" : String.valueOf(recipe), sessionMs);
        for (Fault f : Fault.values()) {
            injected.put(f, new AtomicInteger());
            skipped.put(f, new AtomicInteger());
        }
        this.direct = ZkTesting.client(serverConnect, Math.max(sessionMs, 10_000));
        for (int i = 0; i < clientCount; i++) {
            clients.add(new Client(i));
        }
    }

    /**
     * After each fault that heals (all but the armed ones), the faulted client requests the lock
     * at once and the time until it is granted is recorded: the recovery time the soak reports.
     */
    public FaultScheduleRunner probeAfterEachFault() {
        probeAfterEachFault = true;
        return this;
    }

    /**
     * Each holder reads validFor() before each write, judged against the server's own expiry of
     * its session, {@code serverExpiryMillis} (session to ms on {@code System.nanoTime() / 1e6},
     * -1 if unknown): see ValidityReadings.
     */
    public FaultScheduleRunner judgingValidityAgainst(LongUnaryOperator serverExpiryMillis) {
        readings = new ValidityReadings(serverExpiryMillis, judge::forcedExpiryOf, MARGIN.fixed());
        return this;
    }

    /** The rates a CLOCK_SKEW makes clocks run off by, in turn (fractions; negative: slow); the margin's rate part and half of it by default. */
    public FaultScheduleRunner skewingBy(double... fractions) {
        skews = fractions.clone();
        return this;
    }

    // ---- running a schedule -------------------------------------------------------------------

    public Outcome run(FaultSchedule schedule) {
        try {
            for (Step step : schedule.steps()) {
                if (step instanceof Acquire a) {
                    startWorker(clients.get(a.client() % clients.size()), a);
                } else if (step instanceof Pause p) {
                    sleep(p.millis());
                } else if (step instanceof Inject f) {
                    inject(f.fault(), f.client());
                }
                sleep(STEP_GAP_MS);
            }
        } finally {
            finish();
        }
        Map<Fault, Integer> inj = new EnumMap<>(Fault.class);
        Map<Fault, Integer> skip = new EnumMap<>(Fault.class);
        injected.forEach((k, v) -> {
            if (v.get() > 0) {
                inj.put(k, v.get());
            }
        });
        skipped.forEach((k, v) -> {
            if (v.get() > 0) {
                skip.put(k, v.get());
            }
        });
        List<String> violations = new ArrayList<>(judge.violations());
        Validity validity = new Validity(0, (int) clients.stream().filter(c -> c.skewed).count(), 0, 0, 0);
        if (readings != null) {
            violations.addAll(readings.violations());
            validity = new Validity(readings.judged(), validity.skewedClients(), readings.skewed(), readings.pairsAtClockRate(),
                    readings.pairsAtMonotonicRate());
        }
        return new Outcome(violations, inj, skip, granted.get(), timedOut.get(), failed.get(),
                judge.writes(), judge.lateNoticesAfterForcedExpiry(), List.copyOf(recovery), recoveryByKind(),
                judge.successorWroteBeforeLost(), judge.lostNodeChecks(), judge.unfencedWrites(), judge.unfencedOverlaps(),
                validity);
    }

    private Map<Fault, List<Long>> recoveryByKind() {
        Map<Fault, List<Long>> byKind = new EnumMap<>(Fault.class);
        faultRecovery.forEach((k, v) -> byKind.put(k, List.copyOf(v)));
        return byKind;
    }

    /** Heals everything, waits for the workers, probes liveness, judges, closes, and checks for orphans. */
    private void finish() {
        for (Client c : clients) {
            c.proxy.heal();
        }
        long slack = 3L * sessionMs + 5_000;
        for (Worker w : workers) {
            long left = w.deadlineNanos + TimeUnit.MILLISECONDS.toNanos(slack) - System.nanoTime();
            try {
                w.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (w.thread.isAlive()) {
                judge.stranded(w.client.index, w.step, w.phase, slack);
                w.thread.interrupt();
            }
        }
        probe();          // armed faults (lost reply, reaped directory) may still fire here: one-shot, transient
        if (recipe.cached()) {
            for (Client c : clients) {   // cached nodes stay (with their watch) until their lock objects close
                Recipe.closeLock(c.lock.lock());
                Recipe.closeLock(c.rival.lock());
            }
        }
        checkWatches();
        armed = false;
        for (Client c : clients) {
            c.settleDrops();
            if (c.armedKind != null && !c.fired) {
                skipped.get(c.armedKind).incrementAndGet();
            }
            if (c.reap.getAndSet(0) == REAPS_PER_FAULT) {
                skipped.get(Fault.REAPED_DIRECTORY).incrementAndGet();
            }
        }
        judge.resolve();
        for (Client c : clients) {
            c.curator.close();
            c.proxy.close();
        }
        checkOrphans();
    }

    /** Once every fault is healed, each client in turn is granted the lock again. */
    private void probe() {
        for (Client c : clients) {
            probeOnce(c, "every fault was healed", recovery);
        }
    }

    /** One request by {@code c}, which must be granted within the bound; its wait goes to {@code times}. */
    private void probeOnce(Client c, String after, List<Long> times) {
        Request r = c.lock;
        long t0 = System.nanoTime();
        Duration bound = Duration.ofMillis(6L * sessionMs + 6_000);
        try {
            Optional<Lease> got = r.lock.tryAcquire(bound);
            if (got.isEmpty()) {
                judge.notGrantedAgain(c.index, bound, after);
            } else {
                times.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                granted.incrementAndGet();
                got.get().close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            judge.grantAgainFailed(c.index, after, e);
        }
    }

    /**
     * On a single server (whose counters this JVM can read), once every request is over and
     * every fault healed, no watch is left on the server while the clients are still open.
     */
    private void checkWatches() {
        if (cluster != null) {
            return;
        }
        ZkProbe probe = new ZkProbe(Integer.parseInt(serverConnect.substring(serverConnect.lastIndexOf(':') + 1)));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WATCHES_GRACE_MS);
        int left;
        while ((left = probe.watchCount()) != 0 && System.nanoTime() - deadline < 0) {
            sleep(20);
        }
        judge.watchesLeft(left, WATCHES_GRACE_MS);
    }

    private void checkOrphans() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3L * sessionMs + 5_000);
        List<String> left = List.of();
        while (System.nanoTime() - deadline < 0) {
            try {
                left = ZkTesting.lockNodesBelow(direct, base);
            } catch (RuntimeException e) {
                left = List.of("(cannot list: " + e + ")");
            }
            if (left.isEmpty()) {
                return;
            }
            sleep(50);
        }
        judge.orphans(left);
    }

    // ---- clients and workers ------------------------------------------------------------------

    /** One client: its proxy, its Curator client and its lock objects. */
    private final class Client {
        final int index;
        final FaultProxy proxy;
        final CuratorFramework curator;
        final AtomicInteger reap = new AtomicInteger();      // directory deletions still to make
        volatile Fault armedKind;
        volatile long pausedUntilNanos;         // a process pause: the worker sleeps until then before its next write
        final SkewableClock clock = new SkewableClock();   // what its leases count validity on
        volatile boolean skewed;                // a CLOCK_SKEW hit its clock
        int dropsSeen;
        boolean fired;
        final Request lock;                     // the recipe (the probe's request too)
        final Request rival;                    // its rival; a multi-lock's components in reverse order
        final List<Request> alone;              // a multi-lock's components' rivals, each alone; empty otherwise

        Client(int index) {
            this.index = index;
            this.proxy = FaultProxy.to(serverConnect);
            this.curator = ZkTesting.client(proxy.connectString(), sessionMs);
            ValidityClock.use(curator, clock);  // before its locks send anything
            if (unfencedDelay != null) {
                this.lock = new Request("a mutex checked for validity", new ZkMutex(curator, base + "/unfenced",
                        LockOptions.defaults().withLockDelay(unfencedDelay)), List.of(new Guard("r", Sharing.EXCLUSIVE, 1)));
                this.rival = lock;
                this.alone = List.of();
            } else if (unguarded) {
                Guard shared = new Guard("r", Sharing.EXCLUSIVE, 1);      // one resource, guarded by a lock per client
                this.lock = new Request("a mutex of its own", new ZkMutex(curator, base + "/own-" + index), List.of(shared));
                this.rival = lock;
                this.alone = List.of();
            } else if (recipe.components().isEmpty()) {
                this.lock = new Request(recipe.name(), recipe.create(curator, base), guards(recipe.parts()));
                this.rival = new Request(recipe.name() + "'s rival", recipe.rival(curator, base),
                        List.of(new Guard("r", recipe.rivalSharing(), recipe.permits())));
                this.alone = List.of();
            } else {
                List<Component> reversed = new ArrayList<>(recipe.components());
                Collections.reverse(reversed);
                this.lock = new Request(recipe.name(), recipe.create(curator, base), guards(recipe.components()));
                this.rival = new Request(recipe.name() + " reversed", Recipe.multiLock(reversed, curator, base), guards(reversed));
                this.alone = recipe.components().stream()
                        .map(k -> new Request(k.recipe().name() + "'s rival alone on " + k.subPath(),
                                k.recipe().rival(curator, base + k.subPath()),
                                List.of(new Guard("r" + k.subPath(), k.recipe().rivalSharing(), k.recipe().permits()))))
                        .toList();
            }
            proxy.beforeRequest(this::maybeReap);
        }

        public long session() {
            try {
                return curator.getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception e) {
                return 0;
            }
        }

        /**
         * The armed "reaped directory" fault: the empty directory goes just before our create
         * reaches it, and once more just before the create that follows its re-creation (the
         * window between making the directory and creating a node in it).
         */
        private void maybeReap(int opcode, String path) {
            if (reap.get() == 0 || path == null || !path.startsWith(base)
                    || (opcode != OpCode.create && opcode != OpCode.create2 && opcode != OpCode.multi)) {
                return;
            }
            String last = path.substring(path.lastIndexOf('/') + 1);
            String dir = last.startsWith("_c_") ? path.substring(0, path.lastIndexOf('/')) : path;
            try {
                direct.delete().forPath(dir);
                if (reap.getAndDecrement() == REAPS_PER_FAULT) {
                    injected.get(Fault.REAPED_DIRECTORY).incrementAndGet();
                }
                LOG.debug("reaped {} before c{}'s opcode {}", dir, index, opcode);
            } catch (KeeperException.NotEmptyException | KeeperException.NoNodeException e) {
                // not empty (or not there) now: stays armed for the next create
            } catch (Exception e) {
                LOG.warn("reaping {} failed: {}", dir, e.toString());
            }
        }

        public void arm(Fault kind, int opcode) {
            settleDrops();
            if (armedKind != null && !fired) {
                skipped.get(armedKind).incrementAndGet();       // replaced before it fired
            }
            armedKind = kind;
            fired = false;
            proxy.dropReplyTo(opcode, p -> armed && p != null && p.startsWith(base));
        }

        /** Attributes the replies dropped since the last look to the kind armed then. */
        public synchronized void settleDrops() {
            int now = proxy.repliesDropped();
            if (now > dropsSeen && armedKind != null) {
                injected.get(armedKind).addAndGet(now - dropsSeen);
                fired = true;
            }
            dropsSeen = now;
        }
    }

    /** One guard per part, each part's path its resource, judged by the Sharing of the part's recipe. */
    private static List<Guard> guards(List<Component> parts) {
        return parts.stream().map(k -> new Guard("r" + k.subPath(), k.recipe().sharing(), k.recipe().permits())).toList();
    }

    /**
     * What the {@code ordinal}-th acquire step of the schedule requests, by its variant: the
     * recipe or its rival; for a multi-lock, the multi-lock, its reverse, or one component's rival
     * alone, the component taken in turn by the step's ordinal.
     */
    private Request request(Client c, int variant, int ordinal) {
        if (c.alone.isEmpty()) {
            return variant % 2 == 0 ? c.lock : c.rival;
        }
        return switch (variant % 3) {
            case 0 -> c.lock;
            case 1 -> c.rival;
            default -> c.alone.get(ordinal % c.alone.size());
        };
    }

    private final class Worker {
        final Client client;
        final Acquire step;
        final Request request;
        final Thread thread;
        volatile Phase phase = Phase.WAITING;
        final long deadlineNanos;

        Worker(Client client, Acquire step, int ordinal) {
            this.client = client;
            this.step = step;
            this.request = request(client, step.variant(), ordinal);
            this.deadlineNanos = System.nanoTime() + acquireBound.toNanos() + TimeUnit.MILLISECONDS.toNanos(step.holdMs());
            this.thread = new Thread(this::run, "fault-c" + client.index + "-w" + ids.incrementAndGet());
            this.thread.setDaemon(true);
        }

        private void run() {
            Request r = request;
            long t0 = System.nanoTime();
            Optional<Lease> got;
            try {
                got = r.lock.tryAcquire(acquireBound);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                failed.incrementAndGet();
                judge.acquireFailed(client.index, step, r.what, e);
                return;
            } finally {
                long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) - acquireBound.toMillis();
                judge.returned(client.index, step, r.what, late, acquireBound);
            }
            if (got.isEmpty()) {
                timedOut.incrementAndGet();
                phase = Phase.DONE;
                return;
            }
            granted.incrementAndGet();
            Lease lease = got.get();
            // the judge reads the lease's session (its node's owner) before a HOLDER_EXPIRY can pick this holder:
            // a node already gone would leave it the client's session of the moment, perhaps a new one
            Held h = judge.granted(client.index, r.what, r.guards, lease, FaultScheduleRunner.this::ownerOf, client::session);
            phase = Phase.HOLDING;
            try {
                hold(h);
            } finally {
                phase = Phase.DONE;
            }
        }

        private void hold(Held h) {
            judge.holding(h);
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.holdMs());
            while (unfencedDelay != null && System.nanoTime() - end < 0) {
                long checked = System.nanoTime();
                readValidity(h);
                try {
                    h.lease.checkValidFor(NEEDED);
                } catch (LockException e) {
                    break;                       // no longer sure: a careful holder stops here
                }
                long paused = client.pausedUntilNanos - System.nanoTime();
                if (paused > 0) {
                    sleep(TimeUnit.NANOSECONDS.toMillis(paused) + 1);   // frozen between its check and its action
                }
                sleep(NEEDED.toMillis() / 2 + (int) (Math.random() * NEEDED.toMillis() / 2));   // the action, landing within NEEDED
                judge.unfencedWrite(h, checked);
            }
            while (unfencedDelay == null && System.nanoTime() - end < 0) {
                LeaseState s = h.lease.state();
                if (s == LeaseState.LOST || s == LeaseState.RELEASED) {
                    break;
                }
                long paused = client.pausedUntilNanos - System.nanoTime();
                if (paused > 0) {
                    sleep(TimeUnit.NANOSECONDS.toMillis(paused) + 1);
                }
                readValidity(h);
                judge.write(h);
                sleep(WRITE_EVERY_MS);
            }
            judge.stoppedWriting(h);
            LeaseState before = h.lease.state();
            judge.beforeClose(h, before, nodesPresent(h));
            h.lease.close();
            if (readings != null) {
                readings.closed(h);
            }
            // a cached recipe's closed lease may leave its node to its cache, if the node is a caching one (the
            // orphan check sees it go with the lock objects); any other node must be gone before RELEASED
            boolean keptByCache = recipe.cached() && h.nodes.stream().allMatch(n -> LockNode.parse(n.substring(n.lastIndexOf('/') + 1))
                    .map(LockNode::caches).orElse(false));
            judge.afterClose(h, keptByCache, () -> nodesPresent(h));
            if (h.toldLost()) {
                checkLostNodeCleanedUp(h);
            }
        }

        private void readValidity(Held h) {
            if (readings != null) {
                readings.read(h, client.clock.rate());
            }
        }

        /**
         * Once a session is LOST, the client deletes that session's nodes as soon as it
         * reconnects (DESIGN §2), so waiters need not wait for the server to expire the old
         * session (which a deafened client's pings kept alive).
         */
        private void checkLostNodeCleanedUp(Held h) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4L * sessionMs);
            long now;
            while (((now = client.session()) == 0 || now == h.session || !client.curator.getZookeeperClient().isConnected())
                    && System.nanoTime() - deadline < 0) {
                sleep(10);
            }
            if (now == 0 || now == h.session) {
                return;                          // not reconnected yet: the probe and the orphan check cover it
            }
            long graceEnds = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLEANUP_GRACE_MS);
            Boolean present;
            while (Boolean.TRUE.equals(present = nodesPresent(h)) && System.nanoTime() - graceEnds < 0) {
                sleep(50);
            }
            judge.lostNodeChecked(h, now, CLEANUP_GRACE_MS, present);
        }
    }

    private void startWorker(Client c, Acquire step) {
        Worker w = new Worker(c, step, acquireSteps++);
        workers.add(w);
        w.thread.start();
    }

    // ---- faults -------------------------------------------------------------------------------

    private void inject(Fault fault, int index) {
        Client c = clients.get(index % clients.size());
        if (fault.needsCluster() && cluster == null) {
            skipped.get(fault).incrementAndGet();
            return;
        }
        try {
            switch (fault) {
                case HOLDER_EXPIRY -> {
                    Client holder = pick(index, Phase.HOLDING);
                    if (holder == null) {
                        skipped.get(fault).incrementAndGet();
                        return;
                    }
                    if (!expire(holder)) {
                        skipped.get(fault).incrementAndGet();
                        return;
                    }
                }
                case WAITER_EXPIRY -> {
                    Client waiter = pick(index, Phase.WAITING);
                    if (waiter == null) {
                        skipped.get(fault).incrementAndGet();
                        return;
                    }
                    if (!expire(waiter)) {
                        skipped.get(fault).incrementAndGet();
                        return;
                    }
                }
                case SHORT_CUT -> {
                    c.proxy.cut();
                    sleep(sessionMs / 4);
                    c.proxy.heal();
                }
                case LONG_CUT -> {
                    c.proxy.cut();
                    sleep(sessionMs * 3 / 2);
                    c.proxy.heal();
                }
                case FREEZE_PAST_TIMEOUT -> {
                    c.proxy.freeze();
                    sleep(sessionMs * 3 / 2);
                    c.proxy.heal();
                }
                case DEAFEN -> {
                    c.proxy.deafen();
                    sleep(sessionMs * 2L);       // past Curator's LOST (a session timeout after SUSPENDED)
                    c.proxy.heal();
                }
                case LOST_CREATE_REPLY -> c.arm(fault, OpCode.create2);
                case LOST_DELETE_REPLY -> c.arm(fault, OpCode.delete);
                case LOST_MULTI_REPLY -> c.arm(fault, OpCode.multi);
                case REAPED_DIRECTORY -> c.reap.set(REAPS_PER_FAULT);
                case PROCESS_PAUSE -> {
                    Client holder = pick(index, Phase.HOLDING);
                    Client paused = holder != null ? holder : c;
                    paused.pausedUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PAUSE_MS);
                    paused.proxy.freeze();
                    sleep(PAUSE_MS);
                    paused.proxy.heal();
                }
                case CLOCK_SKEW -> {
                    Client holder = pick(index, Phase.HOLDING);
                    Client skewed = holder != null ? holder : c;
                    skewed.clock.runAt(1 + skews[skewsMade.getAndIncrement() % skews.length]);
                    skewed.skewed = true;
                }
                case SERVER_RESTART -> {
                    InstanceSpec victim = List.copyOf(cluster.getInstances()).get(index % 3);
                    bounce(List.of(victim), 1_000);
                }
                case LEADER_KILL -> bounce(List.of(leader()), 1_000);
                case QUORUM_LOSS -> {
                    List<InstanceSpec> all = List.copyOf(cluster.getInstances());
                    bounce(List.of(all.get(index % 3), all.get((index + 1) % 3)), sessionMs);
                }
            }
        } catch (Exception e) {
            judge.injectionFailed(fault, c.index, e);
            return;
        }
        if (!fault.armed()) {
            injected.get(fault).incrementAndGet();    // the armed kinds count when they fire
            if (probeAfterEachFault) {
                probeOnce(c, fault + " healed", faultRecovery.computeIfAbsent(fault, k -> new CopyOnWriteArrayList<>()));
            }
        }
    }

    /** The client, from {@code index} on, with a worker in {@code phase} (a waiter: holding nothing); waits up to 2 s for one. */
    private Client pick(int index, Phase phase) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        do {
            for (int k = 0; k < clients.size(); k++) {
                Client c = clients.get((index + k) % clients.size());
                boolean has = false;
                boolean holds = false;
                for (Worker w : workers) {
                    if (w.client == c) {
                        has |= w.phase == phase;
                        holds |= w.phase == Phase.HOLDING;
                    }
                }
                if (has && (phase == Phase.HOLDING || !holds)) {
                    return c;
                }
            }
            sleep(20);
        } while (System.nanoTime() - deadline < 0);
        return null;
    }

    /**
     * Expires {@code c}'s session on the server, as {@link io.zklock.testing.Sessions#expire}
     * does (a twin handle attaches to it and closes it), but gives up after a few seconds and
     * tells whether it did: the session may already be dead, or mid-reconnection, when a
     * schedule aims at it. A session this schedule expired by force already (the client has not
     * yet heard of it, so its handle still names it) stays so for the judge: the twin is then
     * told Expired and this attempt is skipped, but the earlier expiry happened.
     */
    private boolean expire(Client c) throws Exception {
        ZooKeeper zk = c.curator.getZookeeperClient().getZooKeeper();
        long session = zk.getSessionId();
        byte[] password = zk.getSessionPasswd();
        if (session == 0) {
            return false;
        }
        boolean first = judge.expiringByForce(session);      // before the server acts on it
        java.util.concurrent.CompletableFuture<KeeperState> answer = new java.util.concurrent.CompletableFuture<>();
        ZooKeeper twin = new ZooKeeper(serverConnect, sessionMs, event -> {
            if (event.getState() == KeeperState.SyncConnected || event.getState() == KeeperState.Expired) {
                answer.complete(event.getState());
            }
        }, session, password);
        boolean attached = false;
        try {
            attached = answer.get(5, TimeUnit.SECONDS) == KeeperState.SyncConnected;
        } catch (java.util.concurrent.TimeoutException e) {
            // not attached: the session is not ours to expire now
        } finally {
            twin.close();                        // if attached, closing the twin ends the session
            if (attached) {
                judge.expiredByForce(session);
            } else if (first) {
                judge.notExpired(session);       // not expired by us: no excuse for late notices
            }
        }
        return attached;
    }

    /** Kills {@code victims} for {@code downMs}, then restarts every one of them, even when one fails to restart. */
    private void bounce(List<InstanceSpec> victims, long downMs) throws Exception {
        for (InstanceSpec v : victims) {
            cluster.killServer(v);
        }
        sleep(downMs);
        Exception failed = null;
        for (InstanceSpec v : victims) {
            try {
                cluster.restartServer(v);
            } catch (Exception e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    private InstanceSpec leader() throws Exception {
        return leaderOf(cluster);
    }

    /** The instance that leads {@code cluster} now, read from the servers' JMX beans; waits up to 10 s for an election. */
    public static InstanceSpec leaderOf(TestingCluster cluster) throws Exception {
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0) {
            for (ObjectName name : mbeans.queryNames(new ObjectName("org.apache.ZooKeeperService:name2=Leader,*"), null)) {
                String replica = name.getKeyProperty("name1");           // "replica.<id>"
                int id = Integer.parseInt(replica.substring(replica.indexOf('.') + 1));
                for (InstanceSpec spec : cluster.getInstances()) {
                    if (spec.getServerId() == id) {
                        return spec;
                    }
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("no leader elected within 10 s");
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** The session that owns {@code node} on the server; 0 if it cannot be read (the ensemble may be down). */
    private long ownerOf(String node) {
        try {
            Stat stat = direct.checkExists().forPath(node);
            return stat == null ? 0 : stat.getEphemeralOwner();
        } catch (Exception e) {
            return 0;
        }
    }

    /** Whether every node of {@code h} is on the server; null if the server cannot be asked now. */
    private Boolean nodesPresent(Held h) {
        try {
            boolean all = true;
            boolean any = false;
            for (String node : h.nodes) {
                sync(node);
                boolean there = direct.checkExists().forPath(node) != null;
                all &= there;
                any |= there;
            }
            return all ? Boolean.TRUE : any ? null : Boolean.FALSE;
        } catch (Exception e) {
            return null;
        }
    }

    /** Brings the direct client's server up to date with the leader, so a read after it sees every write before it. */
    private void sync(String path) throws Exception {
        if (cluster == null) {
            return;
        }
        java.util.concurrent.CompletableFuture<Integer> done = new java.util.concurrent.CompletableFuture<>();
        direct.getZookeeperClient().getZooKeeper().sync(path, (rc, p, ctx) -> done.complete(rc), null);
        done.get(10, TimeUnit.SECONDS);
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        for (Client c : clients) {
            c.proxy.close();
        }
        direct.close();
    }
}
