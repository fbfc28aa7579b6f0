package io.zklock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fenced store of the fencing story. */
class FencedStoreTest {

    /** A token below the highest seen is refused and leaves the value alone; equal and higher tokens are accepted. */
    @Test
    void refusesOnlyTokensBelowTheHighestSeen() {
        FencedStore store = new FencedStore();
        assertTrue(store.write(5, "a").accepted());
        assertTrue(store.write(7, "b").accepted());
        FencedStore.Write stale = store.write(5, "late");
        assertFalse(stale.accepted());
        assertEquals(7, stale.highestSeen());
        assertEquals("b", store.value());
        assertTrue(store.write(7, "c").accepted(), "the holder of the highest token may write again");
        assertEquals("c", store.value());
    }
}
