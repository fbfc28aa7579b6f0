package io.zklock.spring.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An aggregator's load: every message a new correlation key, locked and released once. The
 * registry's map stays within its capacity however many keys pass through it.
 *
 * <p>By default 40,000 keys through a capacity of 200 (every key past the first 200 evicts one),
 * about a minute; {@code -Dzklock.test.manyKeys=200000} runs 200,000 keys through a capacity of
 * 1,000 (about five minutes on 2 cores: a million ZooKeeper requests). The keys are always 200
 * times the capacity.
 */
class ManyKeysTest {
    private static final Logger LOG = LoggerFactory.getLogger(ManyKeysTest.class);
    private static final int KEYS = Integer.getInteger("zklock.test.manyKeys", 40_000);
    private static final int CAPACITY = KEYS / 200;
    private static final int THREADS = 32;

    /** Two hundred times its capacity in distinct keys, locked and unlocked by 32 threads: the map never holds more than the capacity. */
    @Test
    void theMapStaysWithinItsCapacityOverTwoHundredTimesAsManyKeys() throws Exception {
        // 3 writes a key: the test server's fsync per write would take minutes and proves nothing here;
        // nor do its snapshots of the whole tree every 100,000 writes, or its reaping of the
        // emptied lock directories (containers) while the keys still pass
        String forceSync = System.setProperty("zookeeper.forceSync", "no");
        String snapCount = System.setProperty("zookeeper.snapCount", "10000000");
        String reaping = System.setProperty("znode.container.checkIntervalMs", "3600000");
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 30_000);
             ZkLockRegistry registry = new ZkLockRegistry(client, "/si/many")) {
            registry.setCacheCapacity(CAPACITY);
            AtomicInteger next = new AtomicInteger();
            AtomicInteger largest = new AtomicInteger();
            ExecutorService threads = Executors.newFixedThreadPool(THREADS);
            long start = System.nanoTime();
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                work.add(threads.submit(() -> {
                    for (int k = next.getAndIncrement(); k < KEYS; k = next.getAndIncrement()) {
                        ZkRegistryLock lock = registry.obtain("correlation-" + k);
                        lock.lock();
                        try {
                            largest.accumulateAndGet(registry.size(), Math::max);
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : work) {
                f.get(20, TimeUnit.MINUTES);
            }
            threads.shutdown();
            LOG.warn("{} keys in {} ms; the map held at most {}", KEYS,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), largest.get());
            assertTrue(largest.get() <= CAPACITY, "the map held " + largest.get() + " locks");
            assertEquals(CAPACITY, registry.size());
        } finally {
            restore("zookeeper.forceSync", forceSync);
            restore("zookeeper.snapCount", snapCount);
            restore("znode.container.checkIntervalMs", reaping);
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }
}
