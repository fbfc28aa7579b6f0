package io.zklock.micrometer;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zklock.core.Lease;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The README's example: a short run of every recipe with metrics bound, whose meters it logs at
 * INFO (the README says how to see them).
 */
class MetricsExampleTest extends EmbeddedServerTest {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsExampleTest.class);

    /** After a run of every recipe, every meter the README lists is registered, for every mode. */
    @Test
    void everyMeterOfTheReadmeMovesInAShortRun() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ZkLockMetrics metrics = ZkLockMetrics.bind(registry);
        try {
            ZkMutex mutex = new ZkMutex(client, "/locks/orders");
            for (int i = 0; i < 3; i++) {
                mutex.acquire().close();       // the first lists the directory, the next two re-acquire in one request
            }
            Lease held = new ZkMutex(other, "/locks/orders").acquire();
            mutex.tryAcquire(Duration.ofMillis(100));                       // times out
            CompletableFuture<Lease> waiter = mutex.acquireAsync(Duration.ofSeconds(30));
            Await.until("the waiter is queued", LONG, () -> ZkTesting.lockNodesBelow(client, "/locks/orders").size() == 2);
            Thread.sleep(20);
            held.close();
            waiter.get(30, TimeUnit.SECONDS).close();

            ZkSemaphore permits = new ZkSemaphore(client, "/limits/db", 2);
            Lease a = permits.acquire();
            Lease b = permits.acquire();
            a.close();
            b.close();

            ZkReadWriteLock catalog = new ZkReadWriteLock(client, "/locks/catalog");
            catalog.readLock().acquire().close();
            catalog.writeLock().acquire().close();

            new ZkMultiLock(List.of(new ZkMutex(client, "/locks/a"), new ZkMutex(client, "/locks/b"))).acquire().close();

            Lease suspended = mutex.acquire();
            server.stop();
            Await.until("the lease is suspended", LONG, () -> counter(registry, ZkLockMetrics.SUSPENDED) == 1);
            server.restart();
            Await.until("the lease is held again", LONG, suspended::isValid);
            suspended.close();

            Lease doomed = new ZkMutex(other, "/locks/orders").acquire();
            Sessions.expire(other, server.getConnectString());
            Await.until("the lease is lost", LONG, () -> counter(registry, ZkLockMetrics.LOST) == 1);
            doomed.close();
            Await.until("every hold is recorded", LONG, () -> registry.find(ZkLockMetrics.HOLD).timers().stream()
                    .mapToLong(t -> t.count()).sum() == 12);
        } finally {
            metrics.close();
        }
        LOG.info("meters after the example run:\n{}", registry.getMetersAsString());
        for (String name : List.of(ZkLockMetrics.ACQUIRE, ZkLockMetrics.HOLD, ZkLockMetrics.SUSPENDED, ZkLockMetrics.LOST,
                ZkLockMetrics.REQUESTS, ZkLockMetrics.QUEUE)) {
            assertNotNull(registry.find(name).meter(), name + " missing: " + registry.getMetersAsString());
        }
        for (String mode : List.of("mutex", "permit", "read", "write", "multi")) {
            assertTrue(registry.find(ZkLockMetrics.ACQUIRE).tags("mode", mode).timer() != null, "no acquire timer of " + mode);
        }
    }

    private static double counter(SimpleMeterRegistry registry, String name) {
        return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
