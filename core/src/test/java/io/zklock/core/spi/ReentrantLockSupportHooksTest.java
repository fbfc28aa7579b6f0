package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** The hooks a recipe composes re-entry from: reenterIfHeld, adopt, and engines anchored at a node. */
class ReentrantLockSupportHooksTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);

    /** reenterIfHeld re-enters only a live hold of the current thread, and never creates a node. */
    @Test
    void reenterIfHeldReentersOnlyALiveHold() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 20_000)) {
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/h/a", MUTEX));
            assertEquals(Optional.empty(), lock.reenterIfHeld());
            assertEquals(List.of(), ZkTesting.children(client, "/h/a"));

            Lease held = lock.acquire();
            Lease again = lock.reenterIfHeld().orElseThrow();
            assertEquals(held.nodePath(), again.nodePath());
            assertEquals(2, lock.holdCount());
            again.close();
            held.close();

            assertEquals(Optional.empty(), lock.reenterIfHeld());
            assertEquals(List.of(), ZkTesting.children(client, "/h/a"));
        }
    }

    /**
     * adopt makes a lease taken through an anchored engine the thread's hold (re-entered, then
     * closed with its last lease), and refuses a lease of another directory or a second hold.
     */
    @Test
    void adoptTakesOverALeaseOfAnAnchoredEngine() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 20_000)) {
            LockDriver grant = (sorted, ours, maxLeases) -> Decision.granted();
            ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/h/b", new RecipeDescriptor("read", grant, 1)));
            LockEngine anchored = lock.engine().anchoredAt(7, grant);
            assertEquals("read.0000000007-", anchored.context().namePrefix());
            assertEquals("read", anchored.kind());
            assertEquals("read-", lock.engine().context().namePrefix());

            Lease base = anchored.acquire();
            LockNode node = LockNode.parse(base.nodePath().substring("/h/b/".length())).orElseThrow();
            assertEquals(OptionalLong.of(7), node.anchor());

            Lease first = lock.adopt(base);
            Lease second = lock.acquire();
            assertEquals(base.nodePath(), second.nodePath(), "re-entry of the adopted hold");
            assertThrows(IllegalStateException.class, () -> lock.adopt(base));
            Lease foreign = new ReentrantLockSupport(new LockEngine(client, "/h/c", new RecipeDescriptor("read", grant, 1))).engine().acquire();
            assertThrows(IllegalArgumentException.class, () -> lock.adopt(foreign));
            assertThrows(IllegalArgumentException.class, () -> lock.adopt(null));
            foreign.close();

            first.close();
            assertEquals(LeaseState.HELD, base.state());
            second.close();
            // close() returns once the delete was answered, which may be just before the state changes
            Await.until("adopted lease released", Duration.ofSeconds(10), () -> base.state() == LeaseState.RELEASED);
            assertTrue(ZkTesting.children(client, "/h/b").isEmpty());
        }
    }
}
