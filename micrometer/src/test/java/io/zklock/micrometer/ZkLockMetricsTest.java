package io.zklock.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.observe.LockObserver;
import io.zklock.core.observe.LockObservers;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each meter moves as the operations do, on a real ZooKeeper: acquisitions by outcome, hold
 * time, suspensions and losses, requests and queue per acquisition, for every recipe's mode.
 */
class ZkLockMetricsTest extends EmbeddedServerTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ZkLockMetrics metrics;

    @BeforeEach
    void bind() {
        metrics = ZkLockMetrics.bind(registry);
    }

    @AfterEach
    void unbind() {
        metrics.close();
    }

    private Timer acquire(String mode, String outcome) {
        return registry.find(ZkLockMetrics.ACQUIRE).tags("mode", mode, "outcome", outcome).timer();
    }

    private long acquired(String mode, String outcome) {
        Timer timer = acquire(mode, outcome);
        return timer == null ? 0 : timer.count();
    }

    private long held(String mode) {
        Timer timer = registry.find(ZkLockMetrics.HOLD).tags("mode", mode).timer();
        return timer == null ? 0 : timer.count();
    }

    private double counted(String name, String mode) {
        Counter counter = registry.find(name).tags("mode", mode).counter();
        return counter == null ? 0 : counter.count();
    }

    private DistributionSummary summary(String name, String mode) {
        return registry.find(name).tags("mode", mode).summary();
    }

    /** This client's asynchronous acquire of {@code path}, once its node is queued behind the holder's. */
    private CompletableFuture<Lease> queuedBehindHolder(String path) {
        CompletableFuture<Lease> waiter = new ZkMutex(client, path).acquireAsync(Duration.ofMinutes(1));
        Await.until("the waiter is queued", LONG, () -> ZkTesting.lockNodesBelow(other, path).size() == 2);
        return waiter;
    }

    /** A directory made beforehand, so an acquisition's requests are the engine's alone (a never-used container is not reaped). */
    private void directory(String path) throws Exception {
        client.create().creatingParentsIfNeeded().forPath(path);
    }

    /** An uncontended mutex acquire is timed as granted, with 2 requests (create, list) and nobody ahead. */
    @Test
    void grantedMutexAcquireIsTimedWithTwoRequestsAndNoQueue() throws Exception {
        directory("/locks/m");
        new ZkMutex(client, "/locks/m").acquire().close();

        Timer granted = acquire("mutex", "granted");
        assertNotNull(granted, "no granted acquire timer: " + registry.getMetersAsString());
        assertEquals(1, granted.count());
        assertTrue(granted.totalTime(TimeUnit.NANOSECONDS) > 0);
        DistributionSummary requests = summary(ZkLockMetrics.REQUESTS, "mutex");
        assertEquals(1, requests.count());
        assertEquals(2.0, requests.totalAmount(), "requests of an uncontended acquire");
        assertEquals(0.0, summary(ZkLockMetrics.QUEUE, "mutex").max(), "nodes ahead");
    }

    /** A thread's re-entry makes no request and is no acquisition; its node's hold is recorded once, at the last close. */
    @Test
    void reentryIsNotAnAcquisitionAndTheNodeHoldsOnce() throws Exception {
        ZkMutex mutex = new ZkMutex(client, "/locks/re");
        Lease outer = mutex.acquire();
        Lease inner = mutex.acquire();
        inner.close();
        outer.close();
        Await.equal("holds recorded", 1L, LONG, () -> held("mutex"));
        assertEquals(1, acquired("mutex", "granted"));
    }

    /** Closing a lease records its hold time, from the grant to the release. */
    @Test
    void holdTimeIsRecordedWhenTheLeaseIsReleased() throws Exception {
        Lease lease = new ZkMutex(client, "/locks/h").acquire();
        Thread.sleep(100);
        assertEquals(0, held("mutex"), "a hold recorded before the release");
        lease.close();
        Await.equal("holds recorded", 1L, LONG, () -> held("mutex"));
        double ms = registry.find(ZkLockMetrics.HOLD).tags("mode", "mutex").timer().totalTime(TimeUnit.MILLISECONDS);
        assertTrue(ms >= 100, "held for " + ms + " ms");
    }

    /** A waiter behind one holder finds one node ahead; the holder found none. */
    @Test
    void waiterBehindOneHolderSeesQueueOfOne() throws Exception {
        Lease held = new ZkMutex(other, "/locks/q").acquire();
        CompletableFuture<Lease> waiter = queuedBehindHolder("/locks/q");
        held.close();
        waiter.get(30, TimeUnit.SECONDS).close();

        DistributionSummary queue = summary(ZkLockMetrics.QUEUE, "mutex");
        assertEquals(2, queue.count());
        assertEquals(1.0, queue.max(), "nodes ahead of the waiter");
        assertEquals(1.0, queue.totalAmount(), "nodes ahead of the holder and the waiter");
    }

    /** A timeout is timed as timed_out, for as long as it waited, and granted stays untouched. */
    @Test
    void timeoutIsTimedOut() throws Exception {
        Lease held = new ZkMutex(other, "/locks/t").acquire();
        assertTrue(new ZkMutex(client, "/locks/t").tryAcquire(Duration.ofMillis(300)).isEmpty());
        held.close();

        Timer timedOut = acquire("mutex", "timed_out");
        assertNotNull(timedOut, "no timed_out timer: " + registry.getMetersAsString());
        assertEquals(1, timedOut.count());
        assertTrue(timedOut.totalTime(TimeUnit.MILLISECONDS) >= 300, "waited " + timedOut.totalTime(TimeUnit.MILLISECONDS) + " ms");
        assertEquals(1, acquired("mutex", "granted"), "only the holder was granted");
    }

    /** Cancelling an asynchronous acquire is counted as cancelled. */
    @Test
    void cancelledAsyncAcquireIsCancelled() throws Exception {
        Lease held = new ZkMutex(other, "/locks/c").acquire();
        CompletableFuture<Lease> waiter = queuedBehindHolder("/locks/c");
        waiter.cancel(true);
        Await.equal("cancelled acquisitions", 1L, LONG, () -> acquired("mutex", "cancelled"));
        held.close();
        assertEquals(0, acquired("mutex", "timed_out"));
        assertEquals(0, acquired("mutex", "failed"));
    }

    /** A waiter whose client is closed is counted as failed, never as a timeout. */
    @Test
    void closedClientIsFailed() throws Exception {
        Lease held = new ZkMutex(other, "/locks/f").acquire();
        CompletableFuture<Lease> waiter = queuedBehindHolder("/locks/f");
        client.close();
        assertThrows(Exception.class, () -> waiter.get(30, TimeUnit.SECONDS));
        held.close();

        Await.equal("failed acquisitions", 1L, LONG, () -> acquired("mutex", "failed"));
        assertEquals(0, acquired("mutex", "timed_out"));
    }

    /**
     * A connection loss while a lease is held counts one suspension; the session's expiry then
     * counts one loss, and a lost lease records no hold time.
     */
    @Test
    void suspensionAndLossAreCounted() throws Exception {
        Lease lease = new ZkMutex(client, "/locks/s").acquire();
        server.stop();
        Await.until("the lease is suspended", LONG, () -> lease.state() == LeaseState.SUSPENDED);
        server.restart();
        Await.until("the lease is held again", LONG, () -> lease.state() == LeaseState.HELD);
        assertEquals(1.0, counted(ZkLockMetrics.SUSPENDED, "mutex"), "suspensions");
        assertEquals(0.0, counted(ZkLockMetrics.LOST, "mutex"), "losses before the expiry");

        Sessions.expire(client, server.getConnectString());
        Await.until("the lease is lost", LONG, () -> lease.state() == LeaseState.LOST);
        Await.equal("losses", 1.0, LONG, () -> counted(ZkLockMetrics.LOST, "mutex"));
        lease.close();
        assertEquals(0, held("mutex"), "a lost lease recorded a hold");
    }

    /** Semaphore leases are measured as permits, one acquisition and one hold per permit. */
    @Test
    void semaphoreLeasesArePermits() throws Exception {
        ZkSemaphore semaphore = new ZkSemaphore(client, "/locks/sem", 2);
        Lease first = semaphore.acquire();
        Lease second = semaphore.acquire();
        first.close();
        second.close();
        assertEquals(2, acquired("permit", "granted"));
        Await.equal("permit holds", 2L, LONG, () -> held("permit"));
        assertEquals(0, acquired("mutex", "granted"));
    }

    /** The halves of a read-write lock are measured as read and write. */
    @Test
    void readAndWriteModes() throws Exception {
        ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/rw");
        lock.readLock().acquire().close();
        lock.writeLock().acquire().close();
        lock.writeLock().acquire().close();
        assertEquals(1, acquired("read", "granted"));
        assertEquals(2, acquired("write", "granted"));
        Await.equal("read holds", 1L, LONG, () -> held("read"));
        Await.equal("write holds", 2L, LONG, () -> held("write"));
    }

    /**
     * A multi-lock's acquire is one acquisition of mode multi, with one transaction and one
     * listing per lock as its requests; each of its nodes records its hold under its own mode.
     */
    @Test
    void multiLockIsOneAcquisitionAndItsNodesHoldUnderTheirModes() throws Exception {
        directory("/locks/ma");
        directory("/locks/mb");
        ZkMultiLock both = new ZkMultiLock(List.of(new ZkMutex(client, "/locks/ma"), new ZkSemaphore(client, "/locks/mb", 3)));
        both.acquire().close();

        assertEquals(1, acquired("multi", "granted"));
        assertEquals(0, acquired("mutex", "granted"));
        assertEquals(0, acquired("permit", "granted"));
        assertEquals(3.0, summary(ZkLockMetrics.REQUESTS, "multi").totalAmount(), "one transaction and two listings");
        Await.equal("mutex holds", 1L, LONG, () -> held("mutex"));
        Await.equal("permit holds", 1L, LONG, () -> held("permit"));
    }

    /** Lock paths are not tags by default; with pathTags(true) every meter carries the path. */
    @Test
    void pathTagOnlyWhenAskedFor() throws Exception {
        SimpleMeterRegistry tagged = new SimpleMeterRegistry();
        ZkLockMetrics withPaths = ZkLockMetrics.builder().pathTags(true).bind(tagged);
        try {
            new ZkMutex(client, "/locks/p").acquire().close();
            Await.equal("holds with a path", 1L, LONG, () -> {
                Timer timer = tagged.find(ZkLockMetrics.HOLD).tags("mode", "mutex", "path", "/locks/p").timer();
                return timer == null ? 0 : timer.count();
            });
        } finally {
            withPaths.close();
        }
        assertEquals(1, tagged.find(ZkLockMetrics.ACQUIRE).tags("path", "/locks/p", "outcome", "granted").timer().count());
        assertEquals(1, tagged.find(ZkLockMetrics.REQUESTS).tags("path", "/locks/p").summary().count());
        assertTrue(registry.getMeters().stream().allMatch(m -> m.getId().getTag("path") == null),
                "a path tag without opting in: " + registry.getMetersAsString());
        assertEquals(1, acquired("mutex", "granted"), "the default binding measured too");
    }

    /** After the binding is closed, nothing more is recorded (a probe installed after it hears the release, so the binding would have). */
    @Test
    void closedBindingStopsRecording() throws Exception {
        ZkMutex mutex = new ZkMutex(client, "/locks/x");
        mutex.acquire().close();
        Await.equal("holds", 1L, LONG, () -> held("mutex"));
        metrics.close();
        CountDownLatch released = new CountDownLatch(1);
        LockObservers.Installation probe = LockObservers.install(new LockObserver() {
            @Override
            public void leaseChanged(LeaseEvent event) {
                if (event.path().equals("/locks/x") && event.state() == LeaseState.RELEASED) {
                    released.countDown();
                }
            }
        });
        try {
            mutex.acquire().close();
            assertTrue(released.await(30, TimeUnit.SECONDS), "the probe heard no release");
        } finally {
            probe.close();
        }
        assertEquals(1, acquired("mutex", "granted"));
        assertEquals(1, held("mutex"));
    }
}
