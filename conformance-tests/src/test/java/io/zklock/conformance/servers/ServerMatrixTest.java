package io.zklock.conformance.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.zklock.conformance.harness.FencedReadWriteResource;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LeaseState;
import io.zklock.core.MultiLease;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.FencedResource;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.function.Executable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server compatibility: a slice of the conformance suite run with today's client against a
 * real server process of every supported ZooKeeper line. Enabled by {@code -Pmatrix}, which
 * fetches each server's jars into {@code target/zk-servers/<version>/} and names the versions.
 *
 * <p>Per version, one server and, for every recipe (mutex, semaphore, the read and the write
 * half of a read-write lock, a multi-lock over three locks of different recipes):
 * <ul>
 * <li>uncontended acquire and release;
 * <li>re-acquire: one client takes and releases the same lock five times, nobody else touching
 *     it (the second and later go through the one-{@code multi()} path that infers the grant
 *     from the sequence number);
 * <li>{@code tryAcquire(Duration.ZERO)} on a lock another session holds is empty, quickly;
 * <li>(mutex only) the re-acquire with the blocking {@code acquire()}, which has no deadline of
 *     its own: a path that never completes fails here as a hang;
 * <li>contention: three sessions (two for the multi-lock) take turns on a fenced resource, which
 *     judges exclusion and that exclusive holders' fencing tokens strictly increase;
 * </ul>
 * and, for the cached mutex, semaphore and read lock: a session keeps nodes of many locks after
 * use (one server watch in all on 3.6+, a watch per node on 3.5, read with {@code wchs}),
 * grants one again with no new node and the same token, gives one up to a conflicting waiter of
 * another session (its ask is heard), and hears a kept node deleted by another session (its
 * lease in use turns LOST); a session's first kept node is given up to a conflicting waiter of a
 * session that never kept one, whose connection is never lost on the way (on 3.5 a waiter that
 * added a tree watch would lose it);
 * and after every check no lock node is left, and every lease's fencing token is its node's
 * czxid, above zero. Every wait is bounded: a hang fails its check instead of the build.
 *
 * <p>Run it with (one version: add {@code -Dzklock.matrix.versions=3.8.4}):
 * <pre>
 * mvn -B -pl conformance-tests -am verify -Pmatrix -Dtest=ServerMatrixTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * The table of results is logged at the end and written to
 * {@code conformance-tests/target/zk-servers/matrix-summary.txt}; each server's log is
 * {@code target/zk-servers/<version>.log}.
 */
@EnabledIfSystemProperty(named = "zklock.matrix.versions", matches = ".+")
class ServerMatrixTest {
    /**
     * How long one acquisition may take before the check fails: generous for a loopback server
     * (they take milliseconds), and short because it is what a version with a broken path pays
     * per failing check.
     */
    private static final Duration WAIT = Await.scaled(Duration.ofSeconds(2));
    /** How long one whole check may take; beyond it the check fails as hung. */
    private static final Duration CHECK_LIMIT = Await.scaled(Duration.ofSeconds(20));
    /** How long {@code tryAcquire(ZERO)} may take to say no: one attempt, a few round trips. */
    private static final Duration ONE_ATTEMPT = Await.scaled(Duration.ofSeconds(2));
    /**
     * The bound on five blocking acquisitions of a free mutex: {@code acquire()} has no deadline
     * of its own, so a path that never completes shows here as a hang, failed preemptively.
     */
    private static final Duration BLOCKING_LIMIT = Await.scaled(Duration.ofSeconds(5));
    /**
     * How long a client may take to get its connection back after a server closed it: ZooKeeper's
     * client waits up to a second at random before it reconnects, and a second more once it has
     * tried every server it knows (a single one here), so two seconds is not enough on a busy
     * machine; well within the session timeout.
     */
    private static final Duration RECONNECT = Await.scaled(Duration.ofSeconds(8));
    private static final int SESSION_TIMEOUT_MS = 10_000;
    private static final int ROUNDS = 3;
    /** How many locks the cached checks keep a node of at once. */
    private static final int CACHED_LOCKS = 20;
    private static final Logger LOG = LoggerFactory.getLogger(ServerMatrixTest.class);
    /** One line per check and version, logged and written next to the server jars at the end. */
    private static final Queue<String> SUMMARY = new ConcurrentLinkedQueue<>();

    @AfterAll
    static void summarize() throws Exception {
        String table = String.join("\n", SUMMARY);
        Path dir = Path.of(System.getProperty("zklock.matrix.dir", "target/zk-servers"));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("matrix-summary.txt"), table + "\n");
        LOG.warn("server compatibility matrix:\n{}", table);
    }

    /** One slice per version named by the profile, in the order given. */
    @TestFactory
    Stream<DynamicNode> matrix() {
        Path dir = Path.of(System.getProperty("zklock.matrix.dir", "target/zk-servers"));
        return Arrays.stream(System.getProperty("zklock.matrix.versions").split(","))
                .map(String::trim)
                .filter(v -> !v.isEmpty())
                .map(v -> slice(new Run(v, dir.resolve(v), dir.resolve(v + ".log"))));
    }

    private DynamicNode slice(Run run) {
        List<DynamicNode> nodes = new ArrayList<>();
        nodes.add(dynamicTest("[" + run.version + "] server starts", run::start));
        for (Subject subject : subjects()) {
            nodes.add(dynamicContainer(subject.name, Stream.of(
                    run.check(subject.name + ": uncontended acquire and release", () -> uncontended(run, subject)),
                    run.check(subject.name + ": re-acquire x5 by one client", () -> reacquire(run, subject)),
                    run.check(subject.name + ": tryAcquire(ZERO) on a held lock", () -> tryZeroWhenHeld(run, subject)),
                    run.check(subject.name + ": contended by " + subject.contenders + " sessions", () -> contended(run, subject)))));
        }
        nodes.add(run.check("mutex: re-acquire x5 by blocking acquire()", BLOCKING_LIMIT, () -> blockingReacquire(run)));
        for (CachedSubject subject : cachedSubjects()) {
            nodes.add(run.check(subject.name + ": kept, re-granted, asked back, deleted", () -> cached(run, subject)));
            nodes.add(run.check(subject.name + ": a client's first node; a waiter of a client that never cached keeps its connection",
                    () -> firstNodeWaiter(run, subject)));
        }
        nodes.add(dynamicTest("[" + run.version + "] server stops", run::stop));
        return dynamicContainer("ZooKeeper " + run.version, nodes);
    }

    // ---- the recipes ---------------------------------------------------------------------------

    /** A recipe as the slice drives it. */
    private record Subject(
            String name,
            BiFunction<CuratorFramework, String, DistributedLock> lock,
            /* locks that, held by another session, leave {@code lock} unavailable */
            BiFunction<CuratorFramework, String, List<DistributedLock>> blockers,
            int contenders,
            /* the lock contender {@code i} uses */
            ContenderLock contender,
            Supplier<Judge> judge) {
    }

    @FunctionalInterface
    private interface ContenderLock {
        DistributedLock lock(int contender, CuratorFramework client, String path);
    }

    private static List<Subject> subjects() {
        Subject mutex = exclusive("mutex", ZkMutex::new);
        Subject semaphore = new Subject("semaphore(2)",
                (c, p) -> new ZkSemaphore(c, p, 2),
                (c, p) -> List.of(new ZkSemaphore(c, p, 2), new ZkSemaphore(c, p, 2)),
                3, (i, c, p) -> new ZkSemaphore(c, p, 2),
                () -> Judge.shared(new FencedResource(2, false)));
        Subject write = exclusive("write lock", (c, p) -> new ZkReadWriteLock(c, p).writeLock());
        Subject read = new Subject("read lock",
                (c, p) -> new ZkReadWriteLock(c, p).readLock(),
                (c, p) -> List.of(new ZkReadWriteLock(c, p).writeLock()),
                3, (i, c, p) -> i == 0 ? new ZkReadWriteLock(c, p).writeLock() : new ZkReadWriteLock(c, p).readLock(),
                Judge::readWrite);
        Subject multi = new Subject("multi-lock(mutex, write, semaphore(1))",
                ServerMatrixTest::multiLock,
                (c, p) -> List.of(multiLock(c, p)),
                2, (i, c, p) -> multiLock(c, p),
                () -> Judge.components(3));
        return List.of(mutex, semaphore, read, write, multi);
    }

    private static Subject exclusive(String name, BiFunction<CuratorFramework, String, DistributedLock> lock) {
        return new Subject(name, lock, (c, p) -> List.of(lock.apply(c, p)), 3, (i, c, p) -> lock.apply(c, p),
                () -> Judge.shared(new FencedResource(1, true)));
    }

    private static ZkMultiLock multiLock(CuratorFramework client, String path) {
        return new ZkMultiLock(List.of(
                new ZkMutex(client, path + "/a"),
                new ZkReadWriteLock(client, path + "/b").writeLock(),
                new ZkSemaphore(client, path + "/c", 1)));
    }

    /** A recipe with cached leases, and what conflicts with its kept node (taken by another session). */
    private record CachedSubject(String name, BiFunction<CuratorFramework, String, DistributedLock> lock,
            BiFunction<CuratorFramework, String, List<DistributedLock>> conflicting) {
    }

    private static List<CachedSubject> cachedSubjects() {
        LeaseCaching hour = LeaseCaching.keepIdleFor(Duration.ofHours(1));
        return List.of(
                new CachedSubject("cached mutex", (c, p) -> new ZkMutex(c, p, hour), (c, p) -> List.of(new ZkMutex(c, p))),
                new CachedSubject("cached semaphore(2)", (c, p) -> new ZkSemaphore(c, p, 2, hour),
                        (c, p) -> List.of(new ZkSemaphore(c, p, 2), new ZkSemaphore(c, p, 2))),
                new CachedSubject("cached read lock", (c, p) -> new ZkReadWriteLock(c, p, hour).readLock(),
                        (c, p) -> List.of(new ZkReadWriteLock(c, p).writeLock())));
    }

    // ---- the checks ----------------------------------------------------------------------------

    private void cached(Run run, CachedSubject subject) throws Exception {
        String root = "/matrix/" + subject.name.replaceAll("[^a-z0-9]+", "-");
        CuratorFramework keeper = run.session();
        Queue<String> keeperStates = connectionStates(keeper);
        // the first cached node probes the server's watches; a 3.5 server closes the connection
        // on a request it does not know (addWatch), which the leases ride out: wait for it here
        take(run, root, subject.lock.apply(keeper, root + "/warm-up")).close();
        if (run.version.startsWith("3.5.")) {
            Await.until("the keeper's connection back after its probe", RECONNECT, () -> keeperStates.contains("RECONNECTED"));
        }
        Thread.sleep(200);
        take(run, root, subject.lock.apply(keeper, root + "/warm-up-2")).close();
        List<DistributedLock> locks = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < CACHED_LOCKS; i++) {
            DistributedLock lock = subject.lock.apply(keeper, root + "/n" + i);
            locks.add(lock);
            Lease lease = take(run, root, lock);
            tokens.add(lease.fencingToken());
            lease.close();
        }
        int kept = ZkTesting.lockNodesBelow(run.observer, root).size();
        assertTrue(kept >= CACHED_LOCKS, "every lock's node kept: " + kept);
        int expected = run.version.startsWith("3.5.") ? kept : 1;   // a data watch per kept node, or one for the root
        long until = System.nanoTime() + WAIT.toNanos();
        while (run.server.watchCount() != expected && System.nanoTime() - until < 0) {
            Thread.sleep(10);
        }
        assertEquals(expected, run.server.watchCount(), () -> "server watches of " + CACHED_LOCKS + " kept nodes; watched: "
                + run.server.watchedPaths() + "; kept: " + ZkTesting.lockNodesBelow(run.observer, root));
        Lease again = take(run, root, locks.get(0), "re-grant from the cache");
        assertEquals(tokens.get(0), again.fencingToken(), "a local re-grant keeps the node and its token");
        again.close();
        List<Lease> taken = new ArrayList<>();
        for (DistributedLock other : subject.conflicting.apply(run.session(), root + "/n0")) {
            taken.add(take(run, root, other, "a conflicting waiter behind the kept node"));
        }
        assertTrue(taken.get(taken.size() - 1).fencingToken() > tokens.get(0), "the waiter's node comes after the kept one");
        taken.forEach(Lease::close);
        Lease held = take(run, root, locks.get(1), "re-grant of another kept node");
        run.observer.delete().forPath(held.nodePath());
        Await.equal("the kept node's deletion reaches its lease", LeaseState.LOST, WAIT, held::state);
        run.closeSessions();
        Await.equal("server watches once the sessions are closed", 0, WAIT, run.server::watchCount);
        LOG.info("ZooKeeper {}: {} kept nodes cost {} server watch(es)", run.version, kept, expected);
        assertNoLockNodes(run, root);
    }

    /**
     * A keeper's first cached node, made before a tree watch was added on its client, is not
     * marked as hearing creations; conflicting waiters of a client that has never kept a node
     * queue behind it while it is in use and are granted once it closes, and the waiters'
     * connection is never lost (a waiter that took the node for one whose holder hears
     * creations would add a tree watch, and a 3.5 server would close its connection).
     */
    private void firstNodeWaiter(Run run, CachedSubject subject) throws Exception {
        String root = "/matrix/first-" + subject.name.replaceAll("[^a-z0-9]+", "-");
        CuratorFramework keeper = run.session();
        Queue<String> keeperStates = connectionStates(keeper);
        Lease first = take(run, root, subject.lock.apply(keeper, root + "/n"));
        if (run.version.startsWith("3.5.")) {           // its client's first addWatch: the server closes the connection
            Await.until("the keeper's connection back after its probe", RECONNECT, () -> keeperStates.contains("RECONNECTED"));
        }
        Await.equal("the keeper's first lease, through its probe", LeaseState.HELD, RECONNECT, first::state);
        assertFalse(LockNode.parse(ZKPaths.getNodeFromPath(first.nodePath())).orElseThrow().hearsCreations(),
                "a client's first cached node says its holder hears creations: " + first.nodePath());
        CuratorFramework waiter = run.session();
        Queue<String> states = connectionStates(waiter);
        List<DistributedLock> others = subject.conflicting.apply(waiter, root + "/n");
        List<CompletableFuture<Lease>> waits = new ArrayList<>();
        for (DistributedLock other : others) {
            waits.add(other.acquireAsync(WAIT.multipliedBy(2)));
        }
        Await.until("the waiters queued behind the keeper's node", WAIT,
                () -> ZkTesting.lockNodesBelow(run.observer, root).size() == 1 + others.size());
        first.close();
        for (CompletableFuture<Lease> w : waits) {
            w.get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS).close();
        }
        assertEquals(List.of(), List.copyOf(states), "the waiter's connection states while it waited");
        run.closeSessions();
        assertNoLockNodes(run, root);
    }

    /**
     * The connection states {@code client} goes through from now on, but CONNECTED (its first
     * may be delivered after the listener is added; a lost connection shows as SUSPENDED).
     */
    private static Queue<String> connectionStates(CuratorFramework client) {
        Queue<String> states = new ConcurrentLinkedQueue<>();
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state != ConnectionState.CONNECTED) {
                states.add(state.name());
            }
        });
        return states;
    }

    private void uncontended(Run run, Subject subject) throws Exception {
        String path = run.path(subject, "uncontended");
        DistributedLock lock = subject.lock.apply(run.session(), path);
        Lease lease = take(run, path, lock);
        assertTrue(lease.isValid(), "lease valid after acquire");
        assertTokensAreCzxids(run, lease);
        lease.close();
        assertEquals(LeaseState.RELEASED, lease.state(), "state after close");
        assertNoLockNodes(run, path);
    }

    private void reacquire(Run run, Subject subject) throws Exception {
        String path = run.path(subject, "reacquire");
        DistributedLock lock = subject.lock.apply(run.session(), path);
        List<Long> previous = null;
        for (int i = 1; i <= 5; i++) {
            Lease lease = take(run, path, lock, "acquisition " + i + " of 5");
            List<Long> tokens = assertTokensAreCzxids(run, lease);
            if (previous != null) {
                for (int c = 0; c < tokens.size(); c++) {
                    assertTrue(tokens.get(c) > previous.get(c),
                            "acquisition " + i + ": token " + tokens + " not above the previous " + previous);
                }
            }
            previous = tokens;
            lease.close();
            assertEquals(LeaseState.RELEASED, lease.state(), "acquisition " + i + ": state after close");
        }
        assertNoLockNodes(run, path);
    }

    private void blockingReacquire(Run run) throws Exception {
        String path = "/matrix/mutex/blocking";
        DistributedLock lock = new ZkMutex(run.session(), path);
        for (int i = 1; i <= 5; i++) {
            try (Lease lease = lock.acquire()) {
                assertTokensAreCzxids(run, lease);
            }
        }
        assertNoLockNodes(run, path);
    }

    private void tryZeroWhenHeld(Run run, Subject subject) throws Exception {
        String path = run.path(subject, "tryzero");
        List<Lease> held = new ArrayList<>();
        for (DistributedLock blocker : subject.blockers.apply(run.session(), path)) {
            held.add(take(run, path, blocker));
        }
        DistributedLock lock = subject.lock.apply(run.session(), path);
        long start = System.nanoTime();
        Optional<Lease> none = lock.tryAcquire(Duration.ZERO);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        none.ifPresent(Lease::close);
        assertTrue(none.isEmpty(), "tryAcquire(ZERO) granted a lock another session holds");
        assertTrue(took.compareTo(ONE_ATTEMPT) < 0, "tryAcquire(ZERO) took " + took);
        held.forEach(Lease::close);
        Lease after = take(run, path, lock, "acquisition once the holder released");
        assertTokensAreCzxids(run, after);
        after.close();
        assertNoLockNodes(run, path);
    }

    private void contended(Run run, Subject subject) throws Exception {
        String path = run.path(subject, "contended");
        Judge judge = subject.judge.get();
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < subject.contenders; i++) {
            locks.add(subject.contender.lock(i, run.session(), path));
        }
        ExecutorService pool = Executors.newFixedThreadPool(subject.contenders);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < subject.contenders; i++) {
                int who = i;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        Lease lease = take(run, path, locks.get(who), "contender " + who + " round " + round);
                        try {
                            assertTokensAreCzxids(run, lease);
                            assertTrue(judge.enter(who, lease), "contender " + who + " refused as stale: " + lease);
                            Thread.sleep(5);
                            judge.exit(who, lease);
                        } finally {
                            lease.close();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(CHECK_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), judge.problems(), "exclusion and fencing");
        assertNoLockNodes(run, path);
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static Lease take(Run run, String path, DistributedLock lock) throws InterruptedException {
        return take(run, path, lock, "acquisition");
    }

    /** Acquires {@code lock}, which nobody else holds, failing with the lock nodes left below {@code path} if not granted in time. */
    private static Lease take(Run run, String path, DistributedLock lock, String what) throws InterruptedException {
        return lock.tryAcquire(WAIT).orElseThrow(() -> new AssertionError(what + " of " + path
                + " not granted within " + WAIT + " though nobody else held it; lock nodes there: "
                + ZkTesting.lockNodesBelow(run.observer, path)));
    }

    /** Every token of {@code lease} (one per component) is above zero and its node's czxid. */
    private static List<Long> assertTokensAreCzxids(Run run, Lease lease) throws Exception {
        List<Lease> parts = lease instanceof MultiLease multi ? multi.components() : List.of(lease);
        List<Long> tokens = new ArrayList<>();
        for (Lease part : parts) {
            Stat stat = run.observer.checkExists().forPath(part.nodePath());
            assertNotNull(stat, "no node at " + part.nodePath() + " for a valid lease");
            assertTrue(part.fencingToken() > 0, "fencing token " + part.fencingToken() + " of " + part.nodePath());
            assertEquals(stat.getCzxid(), part.fencingToken(), "fencing token of " + part.nodePath() + " is not its czxid");
            tokens.add(part.fencingToken());
        }
        return tokens;
    }

    private static void assertNoLockNodes(Run run, String path) {
        Await.equal("lock nodes below " + path, List.of(), Duration.ofSeconds(5),
                () -> ZkTesting.lockNodesBelow(run.observer, path));
    }

    /** Judges a contended run: exclusion, and for exclusive holders strictly increasing tokens. */
    private interface Judge {
        boolean enter(int who, Lease lease);

        void exit(int who, Lease lease);

        List<String> problems();

        static Judge shared(FencedResource resource) {
            return new Judge() {
                @Override
                public boolean enter(int who, Lease lease) {
                    return resource.enter(lease.fencingToken());
                }

                @Override
                public void exit(int who, Lease lease) {
                    resource.exit(lease.fencingToken());
                }

                @Override
                public List<String> problems() {
                    List<String> problems = new ArrayList<>(resource.overlaps());
                    if (resource.refused() > 0) {
                        problems.add(resource.refused() + " stale tokens refused");
                    }
                    return problems;
                }
            };
        }

        /** Contender 0 writes, the others read. */
        static Judge readWrite() {
            FencedReadWriteResource resource = new FencedReadWriteResource();
            return new Judge() {
                @Override
                public boolean enter(int who, Lease lease) {
                    if (who == 0) {
                        return resource.enterWrite(lease.fencingToken());
                    }
                    resource.enterRead("contender " + who);
                    return true;
                }

                @Override
                public void exit(int who, Lease lease) {
                    if (who == 0) {
                        resource.exitWrite(lease.fencingToken());
                    } else {
                        resource.exitRead();
                    }
                }

                @Override
                public List<String> problems() {
                    List<String> problems = new ArrayList<>(resource.overlaps());
                    resource.refused().forEach(t -> problems.add("stale write token " + t + " refused"));
                    return problems;
                }
            };
        }

        /** One exclusive resource per component of a multi-lease, fenced by that component's token. */
        static Judge components(int count) {
            List<FencedResource> resources = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                resources.add(new FencedResource(1, true));
            }
            return new Judge() {
                @Override
                public boolean enter(int who, Lease lease) {
                    List<Lease> parts = ((MultiLease) lease).components();
                    boolean all = true;
                    for (int i = 0; i < count; i++) {
                        all &= resources.get(i).enter(parts.get(i).fencingToken());
                    }
                    return all;
                }

                @Override
                public void exit(int who, Lease lease) {
                    List<Lease> parts = ((MultiLease) lease).components();
                    for (int i = 0; i < count; i++) {
                        resources.get(i).exit(parts.get(i).fencingToken());
                    }
                }

                @Override
                public List<String> problems() {
                    List<String> problems = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        FencedResource r = resources.get(i);
                        r.overlaps().forEach(o -> problems.add("component " + o));
                        if (r.refused() > 0) {
                            problems.add("component " + r.refused() + " stale tokens refused");
                        }
                    }
                    return problems;
                }
            };
        }
    }

    /** One server version's run: the process, an observer session, and the sessions the checks open. */
    private static final class Run {
        final String version;
        final Path jars;
        final Path log;
        final List<CuratorFramework> sessions = new CopyOnWriteArrayList<>();
        ServerProcess server;
        CuratorFramework observer;

        Run(String version, Path jars, Path log) {
            this.version = version;
            this.jars = jars;
            this.log = log;
        }

        void start() throws Exception {
            assertTrue(Files.isDirectory(jars), "no server jars at " + jars + ": run with -Pmatrix");
            server = ServerProcess.start(version, jars, log, Await.scaled(Duration.ofSeconds(30)));
            observer = ZkTesting.client(server.connectString(), SESSION_TIMEOUT_MS);
        }

        /** A check that fails, instead of hanging, when it runs past {@link #CHECK_LIMIT}. */
        DynamicTest check(String name, ThrowingCheck body) {
            return check(name, CHECK_LIMIT, body);
        }

        /** A check that fails, instead of hanging, when it runs past {@code limit}. */
        DynamicTest check(String name, Duration limit, ThrowingCheck body) {
            return dynamicTest("[" + version + "] " + name, () -> {
                long start = System.nanoTime();
                try {
                    if (observer == null) {
                        fail("ZooKeeper " + version + " did not start");
                    }
                    assertTimeoutPreemptively(limit, (Executable) body::run,
                            () -> name + " on ZooKeeper " + version + " hung");
                    record("pass", name, start, "");
                } catch (Throwable e) {
                    record("FAIL", name, start, e.toString().lines().findFirst().orElse(""));
                    throw e;
                } finally {
                    closeSessions();
                }
            });
        }

        private void record(String outcome, String name, long start, String why) {
            SUMMARY.add(String.format("%-7s %-4s %5.1fs  %-62s %s", version, outcome,
                    (System.nanoTime() - start) / 1e9, name, why));
        }

        CuratorFramework session() {
            CuratorFramework client = ZkTesting.client(server.connectString(), SESSION_TIMEOUT_MS);
            sessions.add(client);
            return client;
        }

        String path(Subject subject, String check) {
            return "/matrix/" + subject.name.replaceAll("[^a-z0-9]+", "-") + "/" + check;
        }

        void closeSessions() {
            sessions.forEach(CuratorFramework::close);
            sessions.clear();
        }

        void stop() {
            closeSessions();
            if (observer != null) {
                observer.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }

    @FunctionalInterface
    private interface ThrowingCheck {
        void run() throws Exception;
    }
}
