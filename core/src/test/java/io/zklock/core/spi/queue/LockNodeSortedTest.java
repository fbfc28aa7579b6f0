package io.zklock.core.spi.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

class LockNodeSortedTest {

    private static String name(int id, String kind, long sequence) {
        return LockNodeTest.curatorName(new UUID(0xcafe, id).toString(), kind, sequence);
    }

    /** sorted drops foreign names and returns the lock nodes in sequence order. */
    @Test
    void sortedDropsForeignNamesAndSorts() {
        List<String> children = List.of(
                name(1, "write", 12),
                "keeper",
                name(2, "read", 3),
                "lock-0000000001",
                name(3, "lock", 1_000_000_000),
                "",
                "_c_" + new UUID(0xcafe, 9) + "-LOCK-0000000000",
                name(4, "read", 0));

        List<String> sorted = LockNode.sorted(children).stream().map(LockNode::name).toList();

        assertEquals(List.of(name(4, "read", 0), name(2, "read", 3), name(1, "write", 12), name(3, "lock", 1_000_000_000)),
                sorted);
    }

    /** sorted of no children, or of foreign children only, is empty. */
    @Test
    void sortedOfNothingIsEmpty() {
        assertTrue(LockNode.sorted(List.of()).isEmpty());
        assertTrue(LockNode.sorted(List.of("a", "b", "lock-0000000001")).isEmpty());
    }
}
