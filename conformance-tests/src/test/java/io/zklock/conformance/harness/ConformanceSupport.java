package io.zklock.conformance.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockStatus;
import io.zklock.core.Participant;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.testing.Await;
import io.zklock.testing.LocalWaits;
import io.zklock.testing.QuietPorts;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;

/**
 * What every conformance class shares: one embedded server, a fresh lock path per try, clients
 * closed after each try, and the helpers that queue waiters, run threads and check for leaks.
 */
public abstract class ConformanceSupport implements PropertyTry {
    public static final Duration LONG = Duration.ofSeconds(60);
    public static final int SESSION_TIMEOUT_MS = 15_000;
    /** Session timeout of clients whose packets a test counts: their pings are then far outside the measured window. */
    public static final int QUIET_SESSION_TIMEOUT_MS = 60_000;
    /** How long a holder that opted in may take to let go once asked (its handler acts at once). */
    public static final Duration REVOCATION_BOUND = Duration.ofSeconds(5);

    /** How long a session must send nothing to count as asleep. */
    public static final Duration QUIET = Duration.ofMillis(300);

    protected final SharedServer zk = SharedServer.get();
    protected final List<CuratorFramework> clients = new CopyOnWriteArrayList<>();
    protected final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    protected String path;

    /** The recipe under test. */
    protected abstract Recipe recipe();

    @Override
    public String path() {
        return path;
    }

    @Override
    public List<CuratorFramework> clients() {
        return clients;
    }

    @Override
    public SharedServer zk() {
        return zk;
    }

    @BeforeTry
    protected void freshPath() {
        path = "/conformance/" + recipe().name() + "-" + UUID.randomUUID();
        errors.clear();
    }

    @AfterTry
    protected void closeClients() {
        clients.forEach(CuratorFramework::close);
        clients.clear();
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** One new session each, with one lock object on the try's path. */
    @Override
    public List<DistributedLock> locksOnNewSessions(int sessions) {
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            CuratorFramework client = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
            clients.add(client);
            locks.add(recipe().create(client, path));
        }
        return locks;
    }

    /**
     * Takes every lease the recipe admits at once, from separate threads' view of one session
     * (for a shared recipe, which admits any number, one lease).
     */
    protected List<Lease> fillToCapacity(DistributedLock lock) throws Exception {
        return holdOnThreads(lock, recipe().holds());
    }

    /**
     * Makes the recipe's requests wait: as many leases of its rival as shut it out, taken on
     * {@code client} from separate threads (every permit of a semaphore, one writer for a read
     * lock, one holder of an exclusive recipe).
     */
    @Override
    public List<Lease> shutOut(CuratorFramework client) throws Exception {
        return holdOnThreads(recipe().rival(client, path), recipe().rivalHolds());
    }

    private List<Lease> holdOnThreads(DistributedLock lock, int count) throws Exception {
        List<Lease> leases = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            threads.add(start("holder-" + i, () -> leases.add(lock.acquire())));
        }
        joinAll(threads);
        assertEquals(count, leases.size());
        return leases;
    }

    /**
     * Queues {@code waiters} requests of the recipe, one after another on {@code sessions}
     * sessions, behind rival holders that shut them out; releases the holders and waits until
     * every waiter has been granted and has let go.
     */
    @Override
    public Granted queueBehindHoldersAndRelease(int sessions, int waiters) throws Exception {
        locksOnNewSessions(sessions);
        List<Lease> holders = shutOut(clients.get(0));
        List<Integer> grantOrder = Collections.synchronizedList(new ArrayList<>());
        List<Long> sequences = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int index = i;
            DistributedLock lock = recipe().create(clients.get(i % sessions), path);
            int before = lockNodes();
            threads.add(start("waiter-" + i, () -> {
                try (Lease lease = lock.acquire()) {
                    grantOrder.add(index);
                    sequences.add(sequenceOf(lease));
                }
            }));
            Await.equal("waiter " + i + " queued", before + 1, LONG, this::lockNodes);
        }
        holders.forEach(Lease::close);
        joinAll(threads);
        return new Granted(List.copyOf(grantOrder), List.copyOf(sequences));
    }

    /** 0, 1, .. {@code n - 1}. */
    public static List<Integer> indexes(int n) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(i);
        }
        return out;
    }

    /** How a waiter gives up: a timed try, a try that does not wait, an interrupt, a cancelled future. */
    public enum Abandon { TIMEOUT, ZERO_TIMEOUT, INTERRUPT, CANCEL }

    /**
     * Hygiene of one abandoned request: a request of {@code lock}, made while the lock is held
     * so that it would wait, gives up as {@code how} says (a try with a timeout returns empty,
     * an interrupted waiter throws InterruptedException, a waiting future is cancelled); then its
     * node is removed (the try's requests are {@code queued} again) and so is its watch (the
     * server holds {@code watches}).
     */
    @Override
    public void abandonWhileHeld(DistributedLock lock, Abandon how, int timeoutMillis, int queued, int watches) throws Exception {
        switch (how) {
            case TIMEOUT -> assertEquals(Optional.empty(), lock.tryAcquire(Duration.ofMillis(timeoutMillis)));
            case ZERO_TIMEOUT -> assertEquals(Optional.empty(), lock.tryAcquire(Duration.ZERO));
            case INTERRUPT -> {
                AtomicReference<Throwable> outcome = new AtomicReference<>();
                Thread waiter = new Thread(() -> {
                    try {
                        outcome.set(new AssertionError("granted: " + lock.acquire()));
                    } catch (Throwable e) {
                        outcome.set(e);
                    }
                }, "interrupted-waiter");
                waiter.start();
                Await.equal("waiter queued", queued + 1, LONG, this::lockNodes);
                waiter.interrupt();
                waiter.join(Await.scaled(LONG).toMillis());
                assertInstanceOf(InterruptedException.class, outcome.get());
            }
            case CANCEL -> {
                CompletableFuture<Lease> future = lock.acquireAsync(LONG);
                Await.equal("async waiter queued", queued + 1, LONG, this::lockNodes);
                assertTrue(future.cancel(true), "cancel of a waiting request");
            }
        }
        Await.equal("abandoned node removed", queued, LONG, this::lockNodes);
        Await.equal("watches on the server", watches, LONG, zk.probe::watchCount);
    }

    /** Waits for the first of {@code pending} to be granted, removes it from the list and returns its lease. */
    public static Lease firstGranted(List<CompletableFuture<Lease>> pending) throws Exception {
        CompletableFuture.anyOf(pending.toArray(CompletableFuture[]::new)).get(LONG.toSeconds(), TimeUnit.SECONDS);
        for (CompletableFuture<Lease> f : pending) {
            if (f.isDone()) {
                pending.remove(f);
                return f.get();
            }
        }
        throw new AssertionError("no request completed");
    }

    /**
     * One cheap request on every client: a ZooKeeper client pings only after a third of its
     * session timeout without sending, so for that long after this, a session that sends a
     * packet does so because the lock woke it.
     */
    @Override
    public void touchAll() throws Exception {
        for (CuratorFramework client : clients) {
            client.checkExists().forPath("/");
        }
    }

    @Override
    public CuratorFramework quietClient() {
        CuratorFramework client = ZkTesting.client(zk.connectString(), QUIET_SESSION_TIMEOUT_MS);
        clients.add(client);
        return client;
    }

    public interface Request {
        CompletableFuture<Lease> start() throws Exception;
    }

    /** Starts a request and waits until its node is in the directory, so requests queue in the order started. */
    @Override
    public CompletableFuture<Lease> queue(Request request) throws Exception {
        int before = lockNodes();
        CompletableFuture<Lease> future = request.start();
        Await.equal("request queued", before + 1, LONG, this::lockNodes);
        return future;
    }

    public static long sessionOf(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static Set<Long> sessionsOf(List<CuratorFramework> clients) {
        Set<Long> out = new HashSet<>();
        clients.forEach(c -> out.add(sessionOf(c)));
        return out;
    }

    /** Waits until none of {@code sessions} has sent a packet for {@link #QUIET} (scaled); fails if they never do. */
    @Override
    public void awaitQuiet(Set<Long> sessions) throws InterruptedException {
        awaitQuiet(zk.probe, sessions);
    }

    /** As {@link #awaitQuiet(Set)}, on the server {@code probe} reads. */
    public static void awaitQuiet(ZkProbe probe, Set<Long> sessions) throws InterruptedException {
        probe.awaitQuiet(sessions, Await.scaled(QUIET), Await.scaled(LONG));
    }

    /** Packets each of {@code sessions} has sent so far. */
    @Override
    public Map<Long, Long> packets(Set<Long> sessions) {
        return packets(zk.probe, sessions);
    }

    public static Map<Long, Long> packets(ZkProbe probe, Set<Long> sessions) {
        return probe.packets(sessions);
    }

    /** A LockAdmin on a client of its own, as an operator's tool would be. */
    @Override
    public LockAdmin admin() {
        CuratorFramework client = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
        clients.add(client);
        return new LockAdmin(client);
    }

    /**
     * Asserts that {@code status} of the try's {@link #inspectedPath()} lists exactly the lock nodes the server has
     * there, in sequence order; that the holding ones are exactly the nodes of {@code granted};
     * that each carries its node's czxid as token (a granted lease's own token), this process as
     * owner, the kind expected at its place in the queue and no revocation request.
     */
    @Override
    public void assertStatusMatchesServer(LockStatus status, List<Lease> granted, List<String> kindsInQueueOrder,
            String recipeName, int maxLeases) throws Exception {
        CuratorFramework any = clients.get(0);
        List<LockNode> onServer = ZkTesting.children(any, inspectedPath()).stream().map(LockNode::parse)
                .flatMap(Optional::stream).sorted(Comparator.comparingLong(LockNode::sequence)).toList();
        assertEquals(onServer.stream().map(LockNode::name).toList(),
                status.participants().stream().map(Participant::nodeName).toList(), "participants in queue order");
        assertEquals(LockStatus.State.LOCK, status.state());
        assertEquals(recipeName, status.recipe());
        assertEquals(OptionalInt.of(maxLeases), status.maxLeases());
        assertEquals(List.of(), status.foreignChildren());
        assertEquals(List.of(), status.problems());
        assertEquals(kindsInQueueOrder, status.participants().stream().map(Participant::mode).toList(), "kinds in queue order");
        Map<String, Long> grantedTokens = new HashMap<>();
        granted.stream().map(Recipe::inspectedLease).forEach(lease -> grantedTokens.put(lease.nodePath(), lease.fencingToken()));
        assertEquals(grantedTokens.keySet(), status.holders().stream().map(Participant::nodePath).collect(Collectors.toSet()),
                "holders in status against the leases granted");
        long pid = ProcessHandle.current().pid();
        for (Participant p : status.participants()) {
            Stat stat = any.checkExists().forPath(p.nodePath());
            assertEquals(stat.getCzxid(), p.fencingToken(), "token of " + p.nodeName());
            assertEquals(grantedTokens.getOrDefault(p.nodePath(), stat.getCzxid()), p.fencingToken(), "lease token of " + p.nodeName());
            assertEquals(LockNode.parse(p.nodeName()).orElseThrow().sequence(), p.sequence());
            assertEquals(pid, p.owner().pid(), "owner pid of " + p.nodeName());
            assertEquals(Optional.empty(), p.revocationRequest(), "revocation request of " + p.nodeName());
        }
    }

    /**
     * A handler that records the thread it runs on, waits for {@code mayAct} and then runs
     * {@code action} on the lease it is given; how the revocation properties opt in.
     */
    public static Consumer<Lease> recordingHandler(List<Thread> ranOn, CountDownLatch mayAct, Consumer<Lease> action) {
        return lease -> {
            ranOn.add(Thread.currentThread());
            try {
                if (!mayAct.await(Await.scaled(LONG).toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("never allowed to act");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            action.accept(lease);
        };
    }

    /** Fails unless every thread in {@code ranOn} is one of the library's, and none a ZooKeeper event thread. */
    public static void assertLibraryThreads(List<Thread> ranOn) {
        for (Thread t : ranOn) {
            assertFalse(t.getClass().getName().contains("EventThread") || t.getName().contains("EventThread"),
                    "a revocation handler ran on a ZooKeeper event thread: " + t);
            assertTrue(t.getName().startsWith("zklock-completion"), "a revocation handler ran on " + t.getName());
        }
    }

    /**
     * The requests queued on the try's path: its lock nodes (all of them below the path, for a
     * multi-lock's components) over the nodes one lease stands on, and for a cached recipe also
     * the threads of the try's clients that wait for a node their own client holds or is
     * queueing instead of queueing one (a semaphore's thread waiting for its client's busy
     * permit, a reader sharing the read node another reader of its client queued), which wait
     * as a queued node would. The count of those threads is core's internal one, read through
     * the test helper {@link LocalWaits} (not API); it is read before and after the
     * listing, again until both agree, so a thread moving from a local wait to a node of its
     * own is not counted twice (it may be missed while its create is in flight: a dip, never a
     * surplus).
     */
    @Override
    public int lockNodes() {
        CuratorFramework any = clients.get(0);
        while (true) {
            int before = waitingLocally();
            int nodes = ZkTesting.lockNodesBelow(any, path).size() / recipe().nodesPerLease();
            int after = waitingLocally();
            if (before == after) {
                return nodes + after;
            }
        }
    }

    /** Threads of the try's clients waiting on its path for a node their own client holds or is queueing. */
    private int waitingLocally() {
        if (!recipe().cached()) {
            return 0;
        }
        int n = 0;
        for (CuratorFramework client : clients) {
            n += LocalWaits.on(client, path);
        }
        return n;
    }

    /** The lock path where status sees the recipe's nodes (the try's path, or a multi-lock's first component's). */
    @Override
    public String inspectedPath() {
        return path + recipe().inspected().subPath();
    }

    public static long sequenceOf(Lease lease) {
        String name = lease.nodePath().substring(lease.nodePath().lastIndexOf('-') + 1);
        return Long.parseLong(name);
    }

    /**
     * No lock node of this try is left, and the server holds no watch, while the clients are
     * open. A cached recipe keeps its nodes until its lock objects close: each client's cache on
     * the path is closed first (through a lock object of the same client and path, which shares
     * it), and then nothing may be left either.
     */
    @Override
    public void assertClean() {
        assertEquals(List.of(), List.copyOf(errors));
        releaseCaches();
        CuratorFramework any = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
        clients.add(any);
        Await.equal("nodes left under " + path, List.of(), LONG, () -> ZkTesting.lockNodesBelow(any, path));
        Await.equal("watches left on the server", 0, LONG, zk.probe::watchCount);
    }

    /**
     * How many sessions own caching lock nodes of the try ({@code LockNode.caches()}): each holds
     * one watch for them all (its tree watch on the root above the try's path; the embedded
     * server has persistent recursive watches).
     */
    @Override
    public int cachingSessions() {
        CuratorFramework any = clients.get(0);
        return (int) ZkTesting.lockNodesBelow(any, path).stream()
                .filter(p -> io.zklock.core.spi.queue.LockNode.parse(p.substring(p.lastIndexOf('/') + 1))
                        .map(io.zklock.core.spi.queue.LockNode::caches).orElse(false))
                .mapToLong(p -> {
                    try {
                        org.apache.zookeeper.data.Stat stat = any.checkExists().forPath(p);
                        return stat == null ? 0 : stat.getEphemeralOwner();
                    } catch (Exception e) {
                        throw new IllegalStateException("cannot read " + p, e);
                    }
                })
                .filter(owner -> owner != 0).distinct().count();
    }

    /**
     * For a cached recipe, closes each open client's cache on the try's path (through a new
     * lock object of the same client and path, which shares it): its idle nodes go now. Nothing
     * for other recipes.
     */
    @Override
    public void releaseCaches() {
        if (!recipe().cached()) {
            return;
        }
        for (CuratorFramework client : List.copyOf(clients)) {
            if (client.getState() == org.apache.curator.framework.imps.CuratorFrameworkState.STARTED) {
                Recipe.closeLock(recipe().create(client, path));
            }
        }
    }

    /** Session timeout of the holder in {@link #closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone}: outlives the outage. */
    public static final int OUTAGE_SESSION_TIMEOUT_MS = 30_000;
    /** How long a close while disconnected may take: it must not wait for the connection. */
    public static final Duration PROMPT_CLOSE = Duration.ofSeconds(3);

    /**
     * Lease state is never optimistic: a lease {@code make} takes on a dedicated
     * server, closed while that server is down (the session survives), is not RELEASED and the
     * close returns promptly; once the server is back the node is deleted, the lease is
     * RELEASED, and a listener was told RELEASED exactly once.
     */
    @Override
    public void closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone(LeaseMaker make) throws Exception {
        try (TestingServer server = new TestingServer(QuietPorts.next(), true)) {     // stopped and restarted below
            CuratorFramework client = ZkTesting.client(server.getConnectString(), OUTAGE_SESSION_TIMEOUT_MS);
            try {
                Lease lease = make.take(client, path);
                List<String> nodes = Recipe.nodesOf(lease);
                List<LeaseState> told = new CopyOnWriteArrayList<>();
                lease.addListener((l, state) -> told.add(state));
                server.stop();
                Await.equal("lease state with the server down", LeaseState.SUSPENDED, LONG, lease::state);
                long start = System.nanoTime();
                lease.close();
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertTrue(took.compareTo(Await.scaled(PROMPT_CLOSE)) < 0, "close while cut off took " + took);
                assertNotEquals(LeaseState.RELEASED, lease.state(), "state right after a close that cannot reach ZooKeeper");
                assertEquals(0, Collections.frequency(told, LeaseState.RELEASED), "RELEASED told while the node exists: " + told);
                server.restart();
                Await.equal("lease state once the server is back", LeaseState.RELEASED, LONG, lease::state);
                for (String node : nodes) {
                    assertNull(client.checkExists().forPath(node), "node " + node + " after RELEASED");
                }
                Await.equal("RELEASED told", 1, LONG, () -> Collections.frequency(told, LeaseState.RELEASED));
                Thread.sleep(100);
                assertEquals(1, Collections.frequency(told, LeaseState.RELEASED), "RELEASED told exactly once: " + told);
            } finally {
                client.close();
            }
        }
    }

    /** Waits until the server has reaped the try's empty lock directory. */
    @Override
    public void awaitReaped() {
        releaseCaches();                       // a cached node would keep the directory
        CuratorFramework any = clients.get(0);
        Await.until("empty lock directory reaped", LONG, () -> {
            try {
                return any.checkExists().forPath(path) == null;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The sequence number the server gives the next node created in the try's (inspected) directory. */
    @Override
    public int nextSequence() throws Exception {
        var stat = clients.get(0).checkExists().forPath(inspectedPath());
        return (stat.getCversion() + stat.getNumChildren()) / 2;
    }

    public interface LeaseMaker {
        Lease take(CuratorFramework client, String path) throws Exception;
    }

    public interface Body {
        void run(int index) throws Exception;
    }

    public interface Step {
        void run() throws Exception;
    }

    /** Runs {@code n} threads released together; fails with the first error any of them hit. */
    @Override
    public void runThreads(int n, Body body) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            threads.add(start("worker-" + i, () -> {
                go.await();
                body.run(index);
            }));
        }
        go.countDown();
        joinAll(threads);
    }

    @Override
    public Thread start(String name, Step step) {
        Thread t = new Thread(() -> {
            try {
                step.run();
            } catch (Throwable e) {
                errors.add(e);
            }
        }, name);
        t.start();
        return t;
    }

    @Override
    public void joinAll(List<Thread> threads) throws Exception {
        long deadline = System.nanoTime() + Await.scaled(LONG).toNanos();
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                throw new AssertionError("thread " + t.getName() + " still running: a waiter was stranded");
            }
        }
        if (!errors.isEmpty()) {
            AssertionError failure = new AssertionError("a worker failed: " + errors.peek(), errors.peek());
            errors.clear();
            throw failure;
        }
    }

    public static void sleep(int millis) throws InterruptedException {
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }
}
