package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockDelay;
import io.zklock.core.LockOptions;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkProbe;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * {@link LockDelay} against a real server: a waiter granted because the holder's session ended
 * is HELD only after the delay; one granted by a clean release at once, for the same requests
 * as without a delay.
 */
class LockDelayTest extends EmbeddedServerTest {
    private static final Duration DELAY = Duration.ofMillis(1_500);
    /**
     * The delay of a lock whose tests show it is not waited out: long, so that what a loaded
     * machine adds to a hand-off cannot be taken for it, and free, since nobody waits it out.
     */
    private static final Duration LONG_DELAY = Duration.ofSeconds(10);
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);

    private final java.util.List<CuratorFramework> thirds = new java.util.ArrayList<>();

    /** A third session, closed after the test. */
    private CuratorFramework third() {
        CuratorFramework c = io.zklock.testing.ZkTesting.client(server.getConnectString(), 20_000);
        thirds.add(c);
        return c;
    }

    @org.junit.jupiter.api.AfterEach
    void closeThirds() {
        thirds.forEach(CuratorFramework::close);
    }

    private static LockEngine engine(CuratorFramework on, LockDelay delay) {
        return new LockEngine(on, "/delayed/lock", MUTEX, LockOptions.defaults().withLockDelay(delay));
    }

    /** A clean release hands the lock to the waiter at once, though the lock has a delay. */
    @Test
    void aCleanReleaseHandsOverAtOnce() throws Exception {
        Lease held = engine(client, LockDelay.of(LONG_DELAY)).acquire();
        CompletableFuture<Lease> waiter = engine(other, LockDelay.of(LONG_DELAY)).acquireAsync(Duration.ofSeconds(30));
        Await.until("the waiter queued", LONG, () -> io.zklock.testing.ZkTesting.lockNodesBelow(client, "/delayed/lock").size() == 2);
        long released = System.nanoTime();
        held.close();
        Lease next = waiter.get(30, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        assertEquals(LeaseState.HELD, next.state());
        assertTrue(ms < LONG_DELAY.toMillis(), "a clean release hands over without the delay; took " + ms + " ms");
        next.close();
    }

    /** A waiter granted because the holder's session ended waits out the delay from when it saw the node go. */
    @Test
    void aWaiterBehindAnExpiredHolderWaitsOutTheDelay() throws Exception {
        Lease held = engine(client, LockDelay.of(DELAY)).acquire();
        CompletableFuture<Lease> waiter = engine(other, LockDelay.of(DELAY)).acquireAsync(Duration.ofSeconds(30));
        Await.until("the waiter queued", LONG, () -> io.zklock.testing.ZkTesting.lockNodesBelow(other, "/delayed/lock").size() == 2);
        long expired = System.nanoTime();
        Sessions.expire(client, server.getConnectString());
        Await.until("the waiter's node shows the delay", LONG, () -> {
            try {
                return new String(other.getData().forPath(io.zklock.testing.ZkTesting.lockNodesBelow(other, "/delayed/lock").get(0))).contains("lock-delay-until=");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertFalse(waiter.isDone(), "not granted during the delay: " + waiter + " after " + (System.nanoTime() - expired) / 1_000_000 + " ms");
        Lease next = waiter.get(30, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - expired);
        assertTrue(ms >= DELAY.toMillis(), "granted " + ms + " ms after the holder's session ended, before the delay");
        assertEquals(LeaseState.HELD, next.state());
        next.close();
        Await.until("the old lease is LOST", LONG, () -> held.state() == LeaseState.LOST);
    }

    /** A waiter that withdraws (its timeout) hands over like a release: the waiter behind it is granted at once when the holder releases. */
    @Test
    void aWaiterThatWithdrawsDelaysNobody() throws Exception {
        Lease held = engine(client, LockDelay.of(LONG_DELAY)).acquire();
        CompletableFuture<Lease> withdrawing = engine(other, LockDelay.of(LONG_DELAY)).acquireAsync(Duration.ofMillis(800));
        Await.until("the first waiter queued", LONG, () -> io.zklock.testing.ZkTesting.lockNodesBelow(client, "/delayed/lock").size() == 2);
        CompletableFuture<Lease> behind = engine(third(), LockDelay.of(LONG_DELAY)).acquireAsync(Duration.ofSeconds(30));
        Await.until("the second waiter queued", LONG, () -> io.zklock.testing.ZkTesting.lockNodesBelow(client, "/delayed/lock").size() == 3);
        Await.until("the first waiter withdrew", LONG, () -> withdrawing.isDone()
                && io.zklock.testing.ZkTesting.lockNodesBelow(client, "/delayed/lock").size() == 2);
        long released = System.nanoTime();
        held.close();
        Lease next = behind.get(30, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        assertTrue(ms < LONG_DELAY.toMillis(), "a withdrawal and a release ahead hand over without the delay; took " + ms + " ms");
        next.close();
    }

    /**
     * A client that queues after an ended holder's node is gone waits out the delay too (the
     * directory's counts show a deletion nobody marked); once it waited, the next one does not.
     */
    @Test
    void aClientThatComesAfterTheNodeIsGoneWaitsOutTheDelayOnce() throws Exception {
        engine(client, LockDelay.of(DELAY)).acquire();
        Sessions.expire(client, server.getConnectString());
        Await.until("the holder's node is gone", LONG, () -> io.zklock.testing.ZkTesting.lockNodesBelow(other, "/delayed/lock").isEmpty());
        long asked = System.nanoTime();
        Lease next = engine(other, LockDelay.of(DELAY)).acquire();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        assertTrue(ms >= DELAY.toMillis(), "granted " + ms + " ms after asking, after an unmarked deletion: before the delay");
        next.close();
        Await.until("the delay was written off", LONG, () -> {
            try {
                org.apache.zookeeper.data.Stat stat = other.checkExists().forPath("/delayed/lock");
                return (stat.getCversion() - stat.getNumChildren()) / 2 == stat.getVersion();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        LockEngine later = engine(third(), LockDelay.of(DELAY));   // its session connected before the clock starts
        asked = System.nanoTime();
        later.acquire().close();
        ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        assertTrue(ms < DELAY.toMillis(), "the deletion was waited out once; the next client waited " + ms + " ms");
    }

    /** Without a delay the same waiter is granted as soon as it sees the node go. */
    @Test
    void withoutADelayTheWaiterIsGrantedAtOnce() throws Exception {
        engine(client, LockDelay.off()).acquire();
        CompletableFuture<Lease> waiter = engine(other, LockDelay.off()).acquireAsync(Duration.ofSeconds(30));
        Await.until("the waiter queued", LONG, () -> io.zklock.testing.ZkTesting.lockNodesBelow(other, "/delayed/lock").size() == 2);
        long expired = System.nanoTime();
        Sessions.expire(client, server.getConnectString());
        waiter.get(30, TimeUnit.SECONDS).close();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - expired);
        assertTrue(ms < LONG_DELAY.toMillis(), "no delay without one; took " + ms + " ms");
    }

    /**
     * With a delay, a release is still one request (delete and marker in one transaction), and a
     * contended hand-off costs one more than without: the waiter right behind the holder lists on
     * its deletion, as the listing's Stat counts the deletions nobody marked, where without a
     * delay the deletion itself grants it.
     */
    @Test
    void aReleaseIsOneRequestWithADelayAndAHandOffOneMore() throws Exception {
        ZkProbe probe = new ZkProbe(server.getPort());
        for (LockDelay delay : new LockDelay[] {LockDelay.off(), LockDelay.of(DELAY)}) {
            LockEngine mine = engine(client, delay);
            LockEngine theirs = engine(other, delay);
            mine.acquire().close();
            long release = Long.MAX_VALUE;
            long handOff = Long.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
                Lease held = mine.acquire();
                release = Math.min(release, probe.requestsDuring(held::close));
                Lease again = mine.acquire();
                CompletableFuture<Lease> waiter = theirs.acquireAsync(Duration.ofSeconds(30));
                Await.until("the waiter watches", LONG, () -> probe.watchCount() >= 1);
                Lease[] next = new Lease[1];
                handOff = Math.min(handOff, probe.requestsDuring(() -> {
                    again.close();
                    next[0] = waiter.get(30, TimeUnit.SECONDS);
                }));
                next[0].close();
            }
            assertEquals(1, release, delay + ": requests per release");
            assertEquals(delay.isOn() ? 2 : 1, handOff, delay + ": requests per hand-off (the holder's delete, and with a"
                    + " delay the waiter's listing)");
        }
    }
}
