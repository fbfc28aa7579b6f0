package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** The re-entry policy: what a blocking re-entry does with a hold whose lease is SUSPENDED or LOST. */
class ReentryPolicyTest {

    /** A refusing policy fails a re-entry on a SUSPENDED hold and leaves the hold as it was. */
    @Test
    void aRefusedReentryLeavesTheHold() throws Exception {
        try (TestingServer server = new TestingServer(true);
             FaultProxy proxy = FaultProxy.to(server.getConnectString());
             CuratorFramework client = ZkTesting.client(proxy.connectString(), 20_000)) {
            AtomicReference<LeaseState> asked = new AtomicReference<>();
            ReentrantLockSupport lock = new ReentrantLockSupport(
                    new LockEngine(client, "/p/a", new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1)), (held, deadline) -> {
                        asked.set(held.state());
                        return ReentrantLockSupport.ReentryPolicy.Choice.REFUSE;
                    });
            Lease first = lock.acquire();
            Lease second = lock.acquire();
            assertEquals(null, asked.get(), "a HELD hold is re-entered without asking");

            proxy.cut();
            Await.until("suspended", Duration.ofSeconds(10), () -> first.state() == LeaseState.SUSPENDED);
            assertEquals(Optional.empty(), lock.tryAcquire(Duration.ofMillis(50)));
            assertEquals(LeaseState.SUSPENDED, asked.get());
            assertThrows(IllegalStateException.class, lock::acquire, "an unbounded acquisition cannot fail quietly");
            assertEquals(2, lock.holdCount(), "the refusal took nothing from the hold");

            proxy.heal();
            Await.until("held again", Duration.ofSeconds(10), () -> first.state() == LeaseState.HELD);
            assertTrue(lock.isHeldByCurrentThread());
            second.close();
            first.close();
            Await.until("released", Duration.ofSeconds(10), () -> first.state() == LeaseState.RELEASED);
            assertEquals(List.of(), ZkTesting.children(client, "/p/a"));
        }
    }

    /** The recipes' policy forgets a LOST hold and queues a new node; REENTER keeps the lost one. */
    @Test
    void theRecipesPolicyQueuesANewNodeBehindALostHold() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 20_000)) {
            ReentrantLockSupport recipes = new ReentrantLockSupport(new LockEngine(client, "/p/b", new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1)));
            ReentrantLockSupport stubborn = new ReentrantLockSupport(new LockEngine(client, "/p/c", new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1)),
                    (held, deadline) -> ReentrantLockSupport.ReentryPolicy.Choice.REENTER);
            Lease lostRecipes = recipes.acquire();
            Lease lostStubborn = stubborn.acquire();
            Sessions.expire(client, server.getConnectString());
            Await.until("lost", Duration.ofSeconds(20),
                    () -> lostRecipes.state() == LeaseState.LOST && lostStubborn.state() == LeaseState.LOST);

            Lease fresh = recipes.acquire();
            assertNotEquals(lostRecipes.nodePath(), fresh.nodePath());
            assertEquals(LeaseState.HELD, fresh.state());
            Lease again = stubborn.acquire();
            assertEquals(lostStubborn.nodePath(), again.nodePath());
            assertEquals(LeaseState.LOST, again.state());
            fresh.close();
            again.close();
            lostStubborn.close();
            lostRecipes.close();
        }
    }
}
