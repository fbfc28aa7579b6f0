package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zklock.core.Lease;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.EmbeddedServerTest;
import org.junit.jupiter.api.Test;

/** The engine hands back the node of a lease, so that a recipe never parses a node path. */
class LockEngineNodeOfTest extends EmbeddedServerTest {
    private static final RecipeDescriptor LOCK = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);

    /** A lease's node, and a re-entered hold's, is the node at the lease's path, parsed. */
    @Test
    void aLeaseAndItsHoldsGiveTheirNode() throws Exception {
        ReentrantLockSupport lock = new ReentrantLockSupport(new LockEngine(client, "/nodes/a", LOCK));
        try (Lease lease = lock.acquire(); Lease again = lock.acquire()) {
            LockNode node = lock.engine().nodeOf(lease);
            assertEquals(lease.nodePath(), "/nodes/a/" + node.name());
            assertEquals("lock", node.kind());
            assertEquals(node, lock.engine().nodeOf(again));
            assertEquals(node, new LockEngine(other, "/nodes/a", LOCK).nodeOf(lease));   // any engine of the directory
        }
    }

    /** A lease of another directory is refused, naming its node. */
    @Test
    void aLeaseOfAnotherDirectoryIsRefused() throws Exception {
        LockEngine engine = new LockEngine(client, "/nodes/b", LOCK);
        try (Lease elsewhere = new LockEngine(client, "/nodes/b/c", LOCK).acquire()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> engine.nodeOf(elsewhere));
            assertEquals("lease node " + elsewhere.nodePath() + " is not in /nodes/b", refused.getMessage());
        }
    }
}
