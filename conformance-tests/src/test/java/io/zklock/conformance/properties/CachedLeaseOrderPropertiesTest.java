package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import org.apache.curator.framework.CuratorFramework;

/**
 * The order cached leases keep with blocking threads, which wait inside their process (a
 * semaphore's thread for its process's busy permit, a reader for the read node another reader
 * of its process is queueing) where an asynchronous request always queues a node, over two
 * and three clients:
 * <ul>
 *   <li>no permit sits idle in another client's cache longer than {@link #IDLE_BOUND} (the
 *       idle period is {@link Recipe#CACHE_IDLE}) while a live thread waits for a permit;</li>
 *   <li>a reader of a process that queues after a writer's ask (one that waited for another
 *       local reader's node: it has no place in the queue until it queues) is not granted
 *       while that writer waits.</li>
 * </ul>
 */
class CachedLeaseOrderPropertiesTest extends ConformanceSupport {
    /**
     * A third of the idle period, which began before the thread asked: a grant within it did not
     * wait for an idle permit's period to end. Scaled for a slow machine, but never beyond half
     * the idle period, so that the two cases stay apart.
     */
    private static final Duration IDLE_BOUND = Duration.ofSeconds(10);

    private Recipe recipe = Recipe.CACHED_READ_LOCK;

    @Override
    protected Recipe recipe() {
        return recipe;
    }

    /**
     * Other clients (1 or 2) each keep a permit of a cached semaphore idle; one client holds
     * every other permit on blocking threads; one more of its threads (a new one, or the
     * holder of its last permit itself) blocks for a permit: it is granted within
     * {@link #IDLE_BOUND}, while every busy permit is still held, not when an idle period ends.
     */
    @Property(tries = 4, shrinking = ShrinkingMode.OFF)
    void noPermitSitsIdleLongerThanTheBoundWhileALiveThreadOfAnotherClientWaits(
            @ForAll @IntRange(min = 2, max = 3) int permits,
            @ForAll @IntRange(min = 1, max = 2) int idleClients,
            @ForAll boolean holderAsksAgain) throws Exception {
        int idle = Math.min(idleClients, permits - 1);
        recipe = Recipe.cachedSemaphore(permits);
        freshPath();
        List<DistributedLock> idlers = locksOnNewSessions(idle);
        for (DistributedLock lock : idlers) {
            lock.acquire().close();            // kept cached, idle for the whole idle period
        }
        assertEquals(idle, lockNodes(), "the other clients' permits stay cached");
        DistributedLock local = locksOnNewSessions(1).get(0);
        List<Lease> busy = new CopyOnWriteArrayList<>();
        for (int i = 0; i < permits - idle - 1; i++) {
            busy.add(local.acquire());
        }
        CompletableFuture<Lease> last = new CompletableFuture<>();
        CompletableFuture<Lease> extra = new CompletableFuture<>();
        AtomicInteger waitedMillis = new AtomicInteger(-1);
        List<Thread> threads = new ArrayList<>();
        CountDownLatch askAgain = new CountDownLatch(1);
        threads.add(start("holder", () -> {
            last.complete(local.acquire());
            if (holderAsksAgain) {
                askAgain.await();
                extra.complete(timedAcquire(local, waitedMillis));
            }
        }));
        busy.add(last.get(LONG.toSeconds(), TimeUnit.SECONDS));
        assertEquals(permits, lockNodes(), "every permit taken: " + idle + " idle, " + busy.size() + " busy");
        if (holderAsksAgain) {
            askAgain.countDown();
        } else {
            threads.add(start("waiter", () -> extra.complete(timedAcquire(local, waitedMillis))));
        }
        Lease granted = extra.get(LONG.toSeconds(), TimeUnit.SECONDS);
        long bound = Math.min(Await.scaled(IDLE_BOUND).toMillis(), Recipe.CACHE_IDLE.toMillis() / 2);
        assertTrue(waitedMillis.get() >= 0 && waitedMillis.get() < bound,
                "a thread waited " + waitedMillis.get() + " ms while another client kept a permit idle (bound " + bound
                        + " ms, idle period " + Recipe.CACHE_IDLE + ")");
        assertTrue(busy.stream().allMatch(l -> l.state() == LeaseState.HELD), "granted while every busy permit is held");
        joinAll(threads);
        granted.close();
        busy.forEach(Lease::close);
        assertClean();
    }

    private static Lease timedAcquire(DistributedLock lock, AtomicInteger waitedMillis) throws Exception {
        long t0 = System.nanoTime();
        Lease lease = lock.tryAcquire(LONG).orElseThrow(() -> new AssertionError("no permit within " + LONG));
        waitedMillis.set((int) TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        return lease;
    }

    /**
     * A writer of one client holds a cached read lock; a reader of a second client queues a
     * node; 1 or 2 more readers of that client block meanwhile (they wait for its node instead
     * of queueing their own); a writer of a third client queues behind the read node and asks
     * it back. When the first writer lets go, only the first reader is granted: the others,
     * which have no place in the queue until they queue, are granted after the second writer,
     * never while it waits or holds.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void aReaderOfAProcessThatQueuedAfterAWritersAskIsNotGrantedWhileThatWriterWaits(
            @ForAll @IntRange(min = 1, max = 2) int joiners) throws Exception {
        recipe = Recipe.CACHED_READ_LOCK;
        freshPath();
        CuratorFramework a = newClient();
        CuratorFramework b = newClient();
        CuratorFramework c = newClient();
        DistributedLock reads = recipe.create(a, path);
        Lease first = recipe.rival(b, path).acquire();
        List<Lease> readerGrants = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        CompletableFuture<Lease> leader = new CompletableFuture<>();
        threads.add(start("reader-0", () -> {
            Lease lease = reads.acquire();
            readerGrants.add(lease);
            leader.complete(lease);
        }));
        Await.equal("the first reader's node queued", 2, LONG, this::lockNodes);
        List<CompletableFuture<Lease>> joined = new ArrayList<>();
        for (int i = 1; i <= joiners; i++) {
            CompletableFuture<Lease> joiner = new CompletableFuture<>();
            joined.add(joiner);
            threads.add(start("reader-" + i, () -> {
                Lease lease = reads.acquire();
                readerGrants.add(lease);
                joiner.complete(lease);
            }));
            Await.equal("reader " + i + " waits", 2 + i, LONG, this::lockNodes);
        }
        DistributedLock writes = recipe.rival(c, path);
        AtomicInteger readersAtWriterGrant = new AtomicInteger(-1);
        CompletableFuture<Lease> writer = new CompletableFuture<>();
        threads.add(start("writer", () -> {
            Lease lease = writes.acquire();
            readersAtWriterGrant.set(readerGrants.size());
            writer.complete(lease);
        }));
        Await.equal("the second writer queued", 3 + joiners, LONG, this::lockNodes);

        first.close();
        Lease one = leader.get(LONG.toSeconds(), TimeUnit.SECONDS);
        // the readers that waited queue a node behind the writer (one queues, the others wait for it), unless granted
        Await.until("the other readers queued or were granted", LONG, () -> readerGrants.size() > 1 || lockNodes() == 2 + joiners);
        assertEquals(1, readerGrants.size(), "a reader that queued after the writer's ask was granted while it waits");
        one.close();
        Lease w = writer.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertEquals(1, readersAtWriterGrant.get(), "readers granted before the writer that queued ahead of them");
        w.close();
        for (CompletableFuture<Lease> f : joined) {
            Lease lease = f.get(LONG.toSeconds(), TimeUnit.SECONDS);
            assertTrue(lease.fencingToken() > w.fencingToken(), "a reader that queued after the writer holds a later node");
            lease.close();
        }
        joinAll(threads);
        assertClean();
    }

    private CuratorFramework newClient() {
        CuratorFramework client = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
        clients.add(client);
        return client;
    }
}
