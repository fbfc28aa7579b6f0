package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.conformance.harness.ConformanceSupport;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import org.apache.curator.framework.CuratorFramework;

/**
 * What cached leases promise a conflicting client, on every recipe that caches
 * ({@link Recipe#allCached()}): a waiter never waits for a cached node's idle period, only for
 * the leases in use on it and one notification, however many processes cache nodes ahead of
 * it; a process asked for its node re-queues behind the waiter (FIFO across processes); and a
 * stream of local re-grants cannot starve a waiter of another process. The general properties
 * run on the cached recipes through the {@code Cached*ConformanceTest} classes.
 */
class CachedLeasePropertiesTest extends ConformanceSupport {
    /** Far below the cached recipes' idle period ({@link Recipe#CACHE_IDLE}): a grant within it did not wait for an idle node to expire. */
    private static final Duration ASKED_BACK_BOUND = Duration.ofSeconds(10);

    private Recipe recipe = Recipe.CACHED_MUTEX;

    @Override
    protected Recipe recipe() {
        return recipe;
    }

    @Provide
    Arbitrary<Recipe> cachedRecipes() {
        return Arbitraries.of(Recipe.allCached());
    }

    /**
     * Idle cached nodes of 1 to 3 processes sit ahead of a rival of another process (a writer
     * behind cached readers; every permit behind cached permits; a holder behind a cached
     * mutex node): the rival asks each of them back and is granted within
     * {@link #ASKED_BACK_BOUND}, well before their idle period ends, with tokens larger than
     * theirs. The processes' next requests queue behind the rival, and are granted once it lets go.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    void aRivalBehindIdleCachedNodesOfSeveralProcessesIsGrantedWithoutWaitingForTheirIdlePeriod(
            @ForAll("cachedRecipes") Recipe cached, @ForAll @IntRange(min = 1, max = 3) int processes) throws Exception {
        recipe = cached;
        freshPath();
        List<DistributedLock> cachers = locksOnNewSessions(processes);
        long largestCached = 0;
        for (DistributedLock lock : cachers) {
            Lease lease = lock.tryAcquire(LONG).orElseThrow();
            largestCached = Math.max(largestCached, lease.fencingToken());
            lease.close();
        }
        assertTrue(lockNodes() >= 1, "closed leases leave their nodes cached");

        CuratorFramework rivalClient = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
        clients.add(rivalClient);
        long t0 = System.nanoTime();
        List<Lease> rivals = shutOut(rivalClient);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(Await.scaled(ASKED_BACK_BOUND)) < 0,
                "the rival waited " + took + " behind idle cached nodes (idle period " + Recipe.CACHE_IDLE + ")");
        for (Lease rival : rivals) {
            assertTrue(rival.fencingToken() > largestCached, "a rival's token is larger than every cached node's");
        }

        List<CompletableFuture<Lease>> again = new ArrayList<>();
        for (DistributedLock lock : cachers) {
            again.add(lock.acquireAsync(LONG));
        }
        Thread.sleep(Await.scaled(QUIET).toMillis());
        assertFalse(again.stream().anyMatch(CompletableFuture::isDone), "a process asked back re-grants nothing before the rival");
        rivals.forEach(Lease::close);
        List<CompletableFuture<Lease>> waiting = new ArrayList<>(again);
        while (!waiting.isEmpty()) {           // in queue order, which need not be the order of the calls
            Lease lease = firstGranted(waiting);
            assertTrue(lease.fencingToken() > rivals.get(0).fencingToken(), "re-queued behind the rival");
            lease.close();
        }
        cachers.forEach(Recipe::closeLock);
        Await.until("no node left once the lock objects closed", LONG, () -> lockNodes() == 0);
    }

    /**
     * Two threads of one process take and release the recipe in a tight loop, re-granted from
     * the cache; a rival of another process is still granted within {@link #ASKED_BACK_BOUND}:
     * once asked, the process grants nothing more on the node, and its threads queue behind the
     * rival. Afterwards the loop goes on.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.BOUNDED)
    void aStreamOfLocalReGrantsCannotStarveARivalOfAnotherProcess(@ForAll("cachedRecipes") Recipe cached) throws Exception {
        recipe = cached;
        freshPath();
        DistributedLock local = locksOnNewSessions(1).get(0);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger grants = new AtomicInteger();
        List<Thread> loops = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            loops.add(start("local-" + i, () -> {
                while (!stop.get()) {
                    local.tryAcquire(LONG).orElseThrow().close();
                    grants.incrementAndGet();
                }
            }));
        }
        Await.until("local grants", LONG, () -> grants.get() > 20);
        CuratorFramework rivalClient = ZkTesting.client(zk.connectString(), SESSION_TIMEOUT_MS);
        clients.add(rivalClient);
        long t0 = System.nanoTime();
        List<Lease> rivals = shutOut(rivalClient);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(Await.scaled(ASKED_BACK_BOUND)) < 0, "the rival waited " + took + " behind a stream of local grants");
        int before = grants.get();
        rivals.forEach(Lease::close);
        Await.until("local grants go on after the rival", LONG, () -> grants.get() > before + 5);
        stop.set(true);
        joinAll(loops);
        assertEquals(List.of(), List.copyOf(errors));
        Recipe.closeLock(local);
    }
}
