package io.zklock.core.internal.lease;

import static io.zklock.core.internal.zk.ScriptedPort.Kind.REMOVE_WATCHES;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.SET_DATA;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.WATCH_DATA;
import static io.zklock.core.internal.zk.ScriptedPort.nodeStat;
import static io.zklock.core.internal.zk.ScriptedPort.rc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.OwnerInfo;
import io.zklock.core.RevocationRequest;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.ScriptedPort;
import io.zklock.core.internal.zk.ScriptedPort.Call;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNodeTest;
import io.zklock.testing.Await;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * A lease's revocation watch, one interleaving per test: a {@link ScriptedPort} records the
 * reads of the lease's own node and the test answers them and fires their watches.
 */
class RevocationWatchTest {
    private static final long SESSION = 0x5e55;
    private static final String DIR = "/locks/r";
    private static final String NODE = DIR + "/" + LockNodeTest.curatorName("0f8fad5b-d9cb-469f-a165-70867728950e", "lock", 7);
    private static final Duration SHORT = Duration.ofSeconds(10);
    private static final byte[] OWNER = NodeData.of(OwnerInfo.current());
    private static final byte[] REQUESTED = NodeData.withRevocationRequest(OWNER,
            new RevocationRequest("ops@console[pid 1]", Instant.parse("2026-01-02T03:04:05Z")));

    private final ScriptedPort port = new ScriptedPort(SESSION);
    private final SessionMonitor monitor = SessionMonitor.detached(() -> port.sessionId);
    private final LockContext engine = LockContext.of(null, monitor, port, DIR, "lock", "lock-", LockDriver.EXCLUSIVE, 1);
    private final ZkLease lease = new ZkLease(engine, NODE, 42, SESSION);
    private final List<String> toldOn = new CopyOnWriteArrayList<>();
    private final List<Lease> toldWith = new CopyOnWriteArrayList<>();

    private void optIn() {
        lease.onRevocationRequested(l -> {
            toldWith.add(l);
            toldOn.add(Thread.currentThread().getName());
        });
    }

    private static ZkPort.Reply data(byte[] data, int version) {
        Stat stat = nodeStat(42, SESSION);
        stat.setVersion(version);
        return new ZkPort.Reply(Code.OK, NODE, stat, null, null, data);
    }

    /** A lease that never opts in reads nothing, through a suspension, a reconnection and its release: revocation costs nothing unless asked for. */
    @Test
    void aLeaseThatDoesNotOptInNeverReadsItsNode() {
        monitor.stateChanged(ConnectionState.SUSPENDED);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertTrue(lease.release());
        port.reply(port.last(ScriptedPort.Kind.DELETE), rc(Code.OK));
        assertEquals(LeaseState.RELEASED, lease.state());
        assertEquals(0, port.count(WATCH_DATA));
        assertEquals(0, port.count(REMOVE_WATCHES));
    }

    /** Opting in reads the node once with a watch; a request written later fires it, and the handler is told once, with the lease, on a library thread; the watch stays. */
    @Test
    void aRequestWrittenAfterTheOptInIsToldOnceOnALibraryThread() {
        optIn();
        Call read = port.last(WATCH_DATA);
        assertNotNull(read.watcher, "the read leaves a data watch");
        assertEquals(NODE, read.path);
        port.reply(read, data(OWNER, 0));
        assertEquals(1, port.count(WATCH_DATA), "read again without a change");

        port.fire(read, EventType.NodeDataChanged);
        Call again = port.last(WATCH_DATA);
        port.reply(again, data(REQUESTED, 1));

        Await.equal("handlers told", 1, SHORT, toldOn::size);
        assertSame(lease, toldWith.get(0));
        assertTrue(toldOn.get(0).startsWith("zklock-completion"), "told on " + toldOn.get(0));
        assertEquals(2, port.count(WATCH_DATA), "read again without a change");
        assertEquals(0, port.count(REMOVE_WATCHES), "the watch was removed: a forced deletion would go unseen");

        port.fire(again, EventType.NodeDataChanged);   // a semaphore's grant line after the request
        port.reply(port.last(WATCH_DATA), data(NodeData.withGrant(REQUESTED), 2));
        assertEquals(1, toldOn.size(), "told twice");
    }

    /** A holder that was asked and did not let go still hears of a forced deletion: the lease turns LOST. */
    @Test
    void aHolderAskedThatKeepsItsLeaseIsLostWhenItsNodeIsForcedOut() {
        optIn();
        Call read = port.last(WATCH_DATA);
        port.reply(read, data(REQUESTED, 1));
        Await.equal("handler told", 1, SHORT, toldOn::size);
        assertEquals(LeaseState.HELD, lease.state());
        port.fire(read, EventType.NodeDeleted);
        assertEquals(LeaseState.LOST, lease.state());
    }

    /** A request already in the node when the holder opts in is told at once; a handler added after it is told too. */
    @Test
    void aPendingRequestIsToldAtTheOptInAndToLaterHandlers() {
        optIn();
        port.reply(port.last(WATCH_DATA), data(REQUESTED, 1));
        Await.equal("first handler told", 1, SHORT, toldOn::size);
        optIn();
        Await.equal("later handler told", 2, SHORT, toldOn::size);
        assertEquals(1, port.count(WATCH_DATA), "the later handler read nothing");
    }

    /**
     * A request the read finds (written before the watch was set, or while the read was on its
     * way, when its event is not acted on) tells the node's keeper too, as a write heard does:
     * a kept node is let go on an operator's request however the request arrived.
     */
    @Test
    void aRequestFoundByAReadTellsTheKeeperAsWellAsTheHandlers() {
        AtomicInteger askedBack = new AtomicInteger();
        optIn();
        lease.keptBy(new Keeper() {
            @Override
            public boolean idle() {
                return false;
            }

            @Override
            public void askedBack() {
                askedBack.incrementAndGet();
            }
        });
        port.reply(port.last(WATCH_DATA), data(REQUESTED, 1));
        Await.equal("handler told", 1, SHORT, toldOn::size);
        Await.equal("keeper told", 1, SHORT, askedBack::get);
        port.fire(port.last(WATCH_DATA), EventType.NodeDataChanged);   // the grant line after the request
        port.reply(port.last(WATCH_DATA), data(NodeData.withGrant(REQUESTED), 2));
        assertEquals(1, askedBack.get(), "the keeper told twice");
    }

    /** A read that fails on connection loss is made again when the same session reconnects, and sees the request written meanwhile. */
    @Test
    void aReadLostWithTheConnectionIsMadeAgainOnReconnection() {
        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        optIn();
        port.reply(port.last(WATCH_DATA), rc(Code.CONNECTIONLOSS));
        assertEquals(1, port.count(WATCH_DATA), "read again while cut off");

        port.connected = true;
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(2, port.count(WATCH_DATA), "no read on reconnection");
        port.reply(port.last(WATCH_DATA), data(REQUESTED, 1));
        Await.equal("handler told after reconnection", 1, SHORT, toldOn::size);
    }

    /** A watch that is set needs no read on reconnection: ZooKeeper sets it again itself. */
    @Test
    void aWatchThatIsSetIsNotReadAgainOnReconnection() {
        optIn();
        port.reply(port.last(WATCH_DATA), data(OWNER, 0));
        monitor.stateChanged(ConnectionState.SUSPENDED);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(1, port.count(WATCH_DATA));
    }

    /** The release ends the watch: the confirmed registration is removed, no handler is told, and a handler added afterwards reads nothing. */
    @Test
    void theReleaseRemovesTheWatchAndTellsNobody() {
        optIn();
        port.reply(port.last(WATCH_DATA), data(OWNER, 0));
        assertTrue(lease.release());
        port.reply(port.last(ScriptedPort.Kind.DELETE), rc(Code.OK));
        assertEquals(WatchKey.data(NODE), port.last(REMOVE_WATCHES).removed);
        assertEquals(0, monitor.watches().count(WatchKey.data(NODE)), "the session's watch count leaked");
        optIn();
        assertEquals(1, port.count(WATCH_DATA));
        assertTrue(toldOn.isEmpty());
    }

    /** Another client's deletion of the node (a forced revocation) ends the watch and makes the held lease LOST; nothing is read or removed after. */
    @Test
    void aDeletionByAnotherClientEndsTheWatchAndLosesTheLease() {
        optIn();
        Call read = port.last(WATCH_DATA);
        port.reply(read, data(OWNER, 0));
        port.fire(read, EventType.NodeDeleted);
        assertEquals(LeaseState.LOST, lease.state());
        assertEquals(1, port.count(WATCH_DATA));
        assertEquals(0, port.count(REMOVE_WATCHES), "a removal of a watch the server already dropped");
        assertEquals(0, monitor.watches().count(WatchKey.data(NODE)));
        assertTrue(toldOn.isEmpty());
    }

    /** A node found gone at the opt-in's read was deleted under the lease too: LOST. */
    @Test
    void aNodeFoundGoneAtTheOptInLosesTheLease() {
        optIn();
        port.reply(port.last(WATCH_DATA), rc(Code.NONODE));
        assertEquals(LeaseState.LOST, lease.state());
    }

    /** The lease's own release deletes the node and fires the watch: the lease is RELEASED, never LOST. */
    @Test
    void theOwnReleaseFiringTheWatchIsNotALoss() {
        optIn();
        Call read = port.last(WATCH_DATA);
        port.reply(read, data(OWNER, 0));
        assertTrue(lease.release());
        port.fire(read, EventType.NodeDeleted);
        port.reply(port.last(ScriptedPort.Kind.DELETE), rc(Code.OK));
        assertEquals(LeaseState.RELEASED, lease.state());
        assertEquals(0, port.count(REMOVE_WATCHES));
    }

    /** A grant notice that finds a revocation request written first keeps it: it reads the data and writes it back with the grant line, on the version it read. */
    @Test
    void aGrantNoticeKeepsARequestWrittenBeforeIt() {
        lease.announceGrant(OWNER);
        Call touch = port.last(SET_DATA);
        assertTrue(new String(touch.data, StandardCharsets.UTF_8).endsWith("granted=yes\n"));
        port.reply(touch, rc(Code.BADVERSION));
        Call read = port.last(WATCH_DATA);
        assertNull(read.watcher);
        port.reply(read, data(REQUESTED, 1));
        Call rewrite = port.last(SET_DATA);
        assertEquals(2, port.count(SET_DATA));
        byte[] written = rewrite.data;
        assertTrue(NodeData.revocationRequest(written).isPresent(), "the request was dropped");
        assertTrue(NodeData.hasGrantLine(written));
        assertEquals(NodeData.owner(OWNER), NodeData.owner(written));
    }

    /**
     * A waiter reads a written node as a grant notice only if the data carries the grant line:
     * a revocation request, or any other bytes another client wrote, is not one.
     */
    @Test
    void onlyTheGrantLineIsAGrantNotice() {
        Stat written = nodeStat(1, SESSION);
        written.setVersion(1);
        Stat fresh = nodeStat(1, SESSION);
        assertFalse(NodeData.announcedGrant(written, REQUESTED));
        assertTrue(NodeData.announcedGrant(written, NodeData.withGrant(REQUESTED)));
        assertFalse(NodeData.announcedGrant(written, OWNER));
        assertFalse(NodeData.announcedGrant(written, "abc".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertFalse(NodeData.announcedGrant(written, "granted=yesterday\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertTrue(NodeData.announcedGrant(written, NodeData.withGrant(new byte[] {(byte) 0xff, 0})));
        assertFalse(NodeData.announcedGrant(fresh, NodeData.withGrant(OWNER)));
        assertFalse(NodeData.announcedGrant(null, OWNER));
    }
}
