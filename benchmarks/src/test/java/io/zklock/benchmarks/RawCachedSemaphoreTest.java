package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The cached semaphore of floor c5f is a semaphore: a floor that let a waiter in beside every
 * holder would measure a wait that does not exist. On a real server.
 */
class RawCachedSemaphoreTest {

    /** 6 threads over 3 sessions on 2 permits (someone always waits, so holders let go all the time): never 3 holders, 2 reached. */
    @Test
    void grantsAtMostItsPermits() throws Exception {
        assertEquals(2, RawFloorTest.maxHolders(3, 2, 2, client -> RawCachedSemaphore.RECIPES.semaphore(client, "/floor", 2)));
    }

    /** Two sessions on 2 permits, nobody waiting: each creates its node once and takes it again locally. */
    @Test
    void holdersTakeTheirPermitAgainLocallyWhileNobodyWaits() throws Exception {
        String previous = RequestCounter.install();
        try (var server = new TestingServer()) {
            var clients = new ArrayList<CuratorFramework>();
            try {
                var permits = new ArrayList<Recipes.Lock>();
                for (int s = 0; s < 2; s++) {
                    permits.add(RawCachedSemaphore.RECIPES.semaphore(RawCachedReadWriteTest.session(server, clients), "/sem", 2));
                }
                long packets = RequestCounter.packets();
                for (int i = 0; i < 100; i++) {
                    for (Recipes.Lock permit : permits) {
                        permit.acquire().release();
                    }
                }
                packets = RequestCounter.packets() - packets;
                assertTrue(packets <= 10, packets + " requests for 200 acquires (2 creates and their listings expected)");
            } finally {
                clients.forEach(CuratorFramework::close);
            }
        } finally {
            RequestCounter.uninstall(previous);
        }
    }

    /**
     * Both permits held: a waiter of a third session waits, and is granted at the first release;
     * the releasing holder, which heard the waiter, takes nothing again locally: its next acquire
     * waits while the other holder and the waiter hold, and is granted at the waiter's release.
     */
    @Test
    void waiterTakesTheFirstReleasedPermitAndHoldersLetGo() throws Exception {
        try (var server = new TestingServer()) {
            var clients = new ArrayList<CuratorFramework>();
            try {
                Recipes.Lock first = RawCachedSemaphore.RECIPES.semaphore(RawCachedReadWriteTest.session(server, clients), "/sem", 2);
                Recipes.Lock second = RawCachedSemaphore.RECIPES.semaphore(RawCachedReadWriteTest.session(server, clients), "/sem", 2);
                Recipes.Lock third = RawCachedSemaphore.RECIPES.semaphore(RawCachedReadWriteTest.session(server, clients), "/sem", 2);
                first.acquire().release();                  // kept: granted again locally below
                Recipes.Held firstHeld = first.acquire();
                Recipes.Held secondHeld = second.acquire();

                CompletableFuture<Recipes.Held> waiter = acquire(third);
                Thread.sleep(200);
                assertFalse(waiter.isDone(), "a third holder beside two");
                secondHeld.release();
                Recipes.Held waiterHeld = waiter.get(10, TimeUnit.SECONDS);

                CompletableFuture<Recipes.Held> again = acquire(second);
                Thread.sleep(200);
                assertFalse(again.isDone(), "the released holder took its permit again beside the holder and the waiter");
                waiterHeld.release();
                again.get(10, TimeUnit.SECONDS).release();
                firstHeld.release();
            } finally {
                clients.forEach(CuratorFramework::close);
            }
        }
    }

    private static CompletableFuture<Recipes.Held> acquire(Recipes.Lock lock) {
        var held = new CompletableFuture<Recipes.Held>();
        var thread = new Thread(() -> {
            try {
                held.complete(lock.acquire());
            } catch (Throwable e) {
                held.completeExceptionally(e);
            }
        });
        thread.setDaemon(true);                // a hung one must not outlive the test
        thread.start();
        return held;
    }
}
