package io.zklock.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.zklock.core.LeaseState;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * A job run by ShedLock's own executor reaches its lock through the provider: fencing token,
 * guard, state and listeners; and a run whose lease is lost is told, with the job's name.
 */
class CurrentLockTest extends EmbeddedServerTest {
    private static final String ROOT = "/current";

    private static LockConfiguration config(String name) {
        return new LockConfiguration(Instant.now(), name, Duration.ofMinutes(5), Duration.ZERO);
    }

    /**
     * Inside executeWithLock the job's thread finds its lock (its node's czxid as token, a guard
     * that commits a write); another thread finds none; after the run, none; nested runs find
     * the innermost, then the outer again.
     */
    @Test
    void theRunningJobReachesItsLock() throws Throwable {
        ZkLockProvider provider = new ZkLockProvider(client, ROOT);
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        assertEquals(Optional.empty(), provider.currentLock());
        client.create().forPath("/fenced", new byte[0]);
        executor.executeWithLock((LockingTaskExecutor.Task) () -> {
            ZkJobLock lock = provider.currentLock().orElseThrow();
            assertEquals("outer", lock.jobName());
            assertEquals(LeaseState.HELD, lock.state());
            String node = ZkTesting.lockNodesBelow(client, ROOT).get(0);
            assertEquals(client.checkExists().forPath(node).getCzxid(), lock.fencingToken());
            client.transaction().forOperations(lock.guard(),
                    client.transactionOp().setData().forPath("/fenced", "ok".getBytes(StandardCharsets.UTF_8)));
            assertEquals(Optional.empty(), CompletableFuture.supplyAsync(provider::currentLock).get(10, TimeUnit.SECONDS),
                    "another thread saw this thread's job");
            executor.executeWithLock((LockingTaskExecutor.Task) () -> {
                ZkJobLock inner = provider.currentLock().orElseThrow();
                assertEquals("inner", inner.jobName());
                assertNotEquals(lock.fencingToken(), inner.fencingToken());
            }, config("inner"));
            assertSame(lock, provider.currentLock().orElseThrow(), "the outer run after the inner one ended");
        }, config("outer"));
        assertEquals(Optional.empty(), provider.currentLock(), "a finished run");
        assertEquals("ok", new String(client.getData().storingStatIn(new Stat()).forPath("/fenced"), StandardCharsets.UTF_8));
    }

    /** A run extended through ShedLock's LockExtender finds the extension as its current lock. */
    @Test
    void anExtendedRunFindsItsExtension() throws Throwable {
        ZkLockProvider provider = new ZkLockProvider(client, ROOT);
        new DefaultLockingTaskExecutor(provider).executeWithLock((LockingTaskExecutor.Task) () -> {
            ZkJobLock first = provider.currentLock().orElseThrow();
            LockExtender.extendActiveLock(Duration.ofMinutes(10), Duration.ZERO);
            ZkJobLock now = provider.currentLock().orElseThrow();
            assertFalse(first == now, "still the first lock after an extension");
            assertEquals(first.fencingToken(), now.fencingToken());
        }, config("extended"));
        assertEquals(Optional.empty(), provider.currentLock());
    }

    /**
     * A run whose session expires while it runs: its lease turns LOST, its listener hears it,
     * and the provider's lock-lost listeners are told the job's name.
     */
    @Test
    void aLostRunIsToldWithItsJobName() throws Throwable {
        CuratorFramework holder = ZkTesting.client(server.getConnectString(), 20_000);
        try {
            ZkLockProvider provider = new ZkLockProvider(holder, ROOT);
            List<String> heard = new CopyOnWriteArrayList<>();
            provider.addLockLostListener(lock -> heard.add("provider " + lock.jobName()));
            new DefaultLockingTaskExecutor(provider).executeWithLock((LockingTaskExecutor.Task) () -> {
                ZkJobLock lock = provider.currentLock().orElseThrow();
                lock.addListener((lease, state) -> heard.add("lease " + state));
                Sessions.expire(holder, server.getConnectString());
                Await.until("the loss is told", LONG, () -> heard.contains("provider nightly"));
                assertEquals(LeaseState.LOST, lock.state());
                assertTrue(new ZkLockProvider(other, ROOT).lock(config("nightly")).map(l -> {
                    l.unlock();
                    return true;
                }).orElse(false), "another process may run the job now");
            }, config("nightly"));
            assertTrue(heard.contains("lease LOST"), heard.toString());
            assertEquals(1, heard.stream().filter(h -> h.startsWith("provider")).count(), heard.toString());
        } finally {
            holder.close();
        }
    }
}
