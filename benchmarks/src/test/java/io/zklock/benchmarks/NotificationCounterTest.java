package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.server.DataTree;
import org.junit.jupiter.api.Test;

/** How the notification counter sorts and judges a wake-up, on a real server tree without a server. */
class NotificationCounterTest {
    private static final String ZK_READ = "_c_3b87fa40-d400-4f34-a837-891156b5b46d-read-";
    private static final String ZK_WRITE = "_c_3b87fa40-d400-4f34-a837-891156b5b46d-write-";
    private static final String CURATOR_READ = "_c_0465b706-c129-4112-8c2b-c22d6ba6fdef-__READ__";
    private static final String CURATOR_WRITE = "_c_0465b706-c129-4112-8c2b-c22d6ba6fdef-__WRIT__";
    private static final String MUTEX = "_c_0465b706-c129-4112-8c2b-c22d6ba6fdef-lock-";

    /** Both libraries' read and write nodes are told apart by name; a mutex node is neither. */
    @Test
    void kindsOfBothLibrariesNodes() {
        assertEquals(NotificationCounter.Kind.READ, NotificationCounter.kindOf("/rw/" + ZK_READ + "0000000001"));
        assertEquals(NotificationCounter.Kind.WRITE, NotificationCounter.kindOf("/rw/" + ZK_WRITE + "0000000001"));
        assertEquals(NotificationCounter.Kind.READ, NotificationCounter.kindOf("/rw/" + CURATOR_READ + "0000000001"));
        assertEquals(NotificationCounter.Kind.WRITE, NotificationCounter.kindOf("/rw/" + CURATOR_WRITE + "0000000001"));
        assertEquals(NotificationCounter.Kind.OTHER, NotificationCounter.kindOf("/read/write/" + MUTEX + "0000000001"));
        assertEquals(-1, NotificationCounter.sequenceOf("lock-12"));
        assertEquals(12, NotificationCounter.sequenceOf(MUTEX + "0000000012"));
    }

    /** A read node waits for earlier write nodes only; any other node for every earlier node. */
    @Test
    void readersShareWritersExclude() {
        assertFalse(NotificationCounter.waitsFor(ZK_READ + "0000000005", ZK_READ + "0000000004"));
        assertTrue(NotificationCounter.waitsFor(ZK_READ + "0000000005", ZK_WRITE + "0000000004"));
        assertTrue(NotificationCounter.waitsFor(ZK_WRITE + "0000000005", ZK_READ + "0000000004"));
        assertFalse(NotificationCounter.waitsFor(ZK_WRITE + "0000000004", ZK_READ + "0000000005"));
        assertTrue(NotificationCounter.waitsFor(MUTEX + "0000000002", MUTEX + "0000000001"));
    }

    /**
     * Queue: W1 R2(session 7) W3 R4(session 8). W1's deletion frees session 7 (its reader is
     * now first among writers) but not session 8, whose reader still waits for W3.
     */
    @Test
    void aDeletionFreesOnlyTheSessionsItUnblocks() throws Exception {
        var tree = new DataTree();
        tree.createNode("/rw", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, 0, -1, 1, 1);
        tree.createNode("/rw/" + CURATOR_WRITE + "0000000001", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, 6, -1, 2, 2);
        tree.createNode("/rw/" + CURATOR_READ + "0000000002", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, 7, -1, 3, 3);
        tree.createNode("/rw/" + CURATOR_WRITE + "0000000003", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, 6, -1, 4, 4);
        tree.createNode("/rw/" + CURATOR_READ + "0000000004", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, 8, -1, 5, 5);
        String first = "/rw/" + CURATOR_WRITE + "0000000001";
        tree.deleteNode(first, 6);
        assertTrue(NotificationCounter.freedOne(tree, 7, first));
        assertFalse(NotificationCounter.freedOne(tree, 8, first));
        assertFalse(NotificationCounter.freedOne(tree, 6, first), "the deleting session's later writer still waits");
    }
}
