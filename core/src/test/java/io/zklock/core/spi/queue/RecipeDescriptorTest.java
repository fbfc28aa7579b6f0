package io.zklock.core.spi.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** A recipe's descriptor checks its facts and derives local sharing from its driver alone. */
class RecipeDescriptorTest {
    /** Readers hold together, writers with nobody: a read-write lock's rule, as a driver states it. */
    private static final LockDriver READ_WRITE = new LockDriver() {
        @Override
        public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
            return LockDriver.EXCLUSIVE.decide(sorted, ours, maxLeases);
        }

        @Override
        public boolean conflicts(LockNode ahead, LockNode ours) {
            return !(ahead.is("read") && ours.is("read"));
        }
    };

    /** A kind whose nodes do not conflict with each other shares a cached node locally; one that conflicts does not. */
    @Test
    void sharingFollowsFromTheDriver() {
        assertTrue(new RecipeDescriptor("read", READ_WRITE, 1).sharesLocally());
        assertFalse(new RecipeDescriptor("write", READ_WRITE, 1).sharesLocally());
        assertFalse(new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1).sharesLocally());
        assertFalse(new RecipeDescriptor("sem3", LockDriver.EXCLUSIVE, 3).sharesLocally());
    }

    /** Each bad fact is refused with a message that names it. */
    @Test
    void badFactsAreRefusedByName() {
        assertEquals("invalid node kind 'Lock': expected a lower-case word",
                assertThrows(IllegalArgumentException.class, () -> new RecipeDescriptor("Lock", LockDriver.EXCLUSIVE, 1)).getMessage());
        assertEquals("driver is null",
                assertThrows(IllegalArgumentException.class, () -> new RecipeDescriptor("lock", null, 1)).getMessage());
        assertEquals("maxLeases must be at least 1, was 0",
                assertThrows(IllegalArgumentException.class, () -> new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 0)).getMessage());
    }

    /** {@link LockNode#of} names a node as ZooKeeper would, and parses back to the same fields. */
    @Test
    void nodeOfNamesANodeAsZooKeeperWould() {
        LockNode node = LockNode.of("0f8fad5b-d9cb-469f-a165-70867728950e", "read", 42);
        assertEquals("_c_0f8fad5b-d9cb-469f-a165-70867728950e-read-0000000042", node.name());
        assertEquals("read", node.kind());
        assertEquals(42, node.sequence());
        assertThrows(IllegalArgumentException.class, () -> LockNode.of("not-a-uuid", "read", 1));
    }
}
