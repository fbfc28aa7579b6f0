package io.zklock.shedlock;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.zookeeper.curator.ZookeeperCuratorLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ShedLock's stock ZooKeeper provider beside ours on one server: requests per lock and unlock
 * (counted by the server), and whether a holder whose session expired still blocks its job.
 * The figures are logged at INFO for the README; the assertions are the behaviour each
 * provider documents.
 */
class StockProviderComparisonTest extends EmbeddedServerTest {
    private static final Logger LOG = LoggerFactory.getLogger(StockProviderComparisonTest.class);
    private static final int ROUNDS = 20;

    private static LockConfiguration config(Duration atMost) {
        return new LockConfiguration(Instant.now(), "job", atMost, Duration.ZERO);
    }

    /** Requests per lock and per unlock, least over a few windows (a ping can only add). */
    private long[] requests(LockProvider provider) throws Exception {
        ZkProbe probe = new ZkProbe(server.getPort());
        provider.lock(config(Duration.ofMinutes(10))).orElseThrow().unlock();     // the first run makes the nodes
        long lock = Long.MAX_VALUE;
        long unlock = Long.MAX_VALUE;
        for (int i = 0; i < ROUNDS; i++) {
            SimpleLock[] held = new SimpleLock[1];
            lock = Math.min(lock, probe.requestsDuring(() -> held[0] = provider.lock(config(Duration.ofMinutes(10))).orElseThrow()));
            unlock = Math.min(unlock, probe.requestsDuring(() -> held[0].unlock()));
        }
        return new long[] {lock, unlock};
    }

    /** Requests per lock and unlock, ours beside the stock provider's. */
    @Test
    void requestsPerLockAndUnlock() throws Exception {
        CuratorFramework quiet = ZkTesting.client(server.getConnectString(), 60_000);
        try {
            long[] ours = requests(new ZkLockProvider(quiet, "/ours"));
            long[] stock = requests(new ZookeeperCuratorLockProvider(quiet, "/stock"));
            LOG.info("requests per lock/unlock: zklock {}/{}, stock {}/{}", ours[0], ours[1], stock[0], stock[1]);
            assertTrue(ours[0] >= 3 && ours[1] >= 1, "ours counted nothing: " + ours[0] + "/" + ours[1]);
            assertTrue(stock[0] >= 2 && stock[1] >= 1, "stock counted nothing: " + stock[0] + "/" + stock[1]);
        } finally {
            quiet.close();
        }
    }

    /** A holder's session expires: our job is free at once, the stock provider's stays blocked until lockAtMostFor. */
    @Test
    void aDeadHoldersJob() throws Exception {
        Duration atMost = Duration.ofSeconds(5);
        long ours = freedAfter(c -> new ZkLockProvider(c, "/ours"), atMost);
        long stock = freedAfter(c -> new ZookeeperCuratorLockProvider(c, "/stock"), atMost);
        LOG.info("a dead holder's job free after: zklock {} ms, stock {} ms (lockAtMostFor {})", ours, stock, atMost);
        assertTrue(ours < atMost.toMillis() / 2, "ours waited " + ours + " ms");
        assertTrue(stock >= atMost.toMillis() - 1_000, "stock freed it after " + stock + " ms");
    }

    /** Milliseconds from the holder's session expiry until another client locks the job. */
    private long freedAfter(java.util.function.Function<CuratorFramework, LockProvider> make, Duration atMost) throws Exception {
        CuratorFramework holder = ZkTesting.client(server.getConnectString(), 20_000);
        try {
            make.apply(holder).lock(config(atMost)).orElseThrow();
            Sessions.expire(holder, server.getConnectString());
            long start = System.nanoTime();
            LockProvider next = make.apply(other);
            while (true) {
                Optional<SimpleLock> lock = next.lock(config(Duration.ofMinutes(10)));
                if (lock.isPresent()) {
                    lock.get().unlock();
                    return (System.nanoTime() - start) / 1_000_000;
                }
                Thread.sleep(20);
                assertTrue(System.nanoTime() - start < atMost.multipliedBy(4).toNanos(), "never freed");
            }
        } finally {
            holder.close();
        }
    }
}
