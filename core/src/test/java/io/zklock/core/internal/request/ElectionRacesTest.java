package io.zklock.core.internal.request;

import static io.zklock.core.internal.zk.ScriptedPort.Kind.CHILDREN;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.CREATE;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.DELETE;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.MAKE_CONTAINER;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.WATCH_DATA;
import static io.zklock.core.internal.zk.ScriptedPort.dirStat;
import static io.zklock.core.internal.zk.ScriptedPort.listing;
import static io.zklock.core.internal.zk.ScriptedPort.nodeStat;
import static io.zklock.core.internal.zk.ScriptedPort.ok;
import static io.zklock.core.internal.zk.ScriptedPort.rc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zklock.core.LeaseState;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.zk.ScriptedPort;
import io.zklock.core.internal.zk.ScriptedPort.Call;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNodeTest;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The races behind Curator's double leaders (CURATOR-620, -696, -724, -652/-653), each hit on
 * purpose against an election's engine (kind {@code leader}, the exclusive driver, as
 * {@code ZkLeaderElection} runs it) through a {@link ScriptedPort}: the test answers every call
 * in the order it chooses. Each checks that a candidate leads only on the verdict of a listing
 * issued in its current step and its current session, on a node of that session (or on that
 * listing less the one node it showed ahead, when that node's deletion is told with no connection
 * news since: see DeletionGrantTest); a build that
 * grants from what it remembers (a superseded listing, a node of an ended session, the path as it
 * was before the cut) fails it. Each was run against such a build, one change to the engine at a
 * time: a listing's reply acting without its step check (fails the first, both ways); no check of
 * the node's session before deciding (the first, new session); a missing own node, or a vanished
 * path, taken as a grant (the second; the third); a LOST lease turned HELD by a reconnection on
 * another session (the second); a watch event acting without its step check (the fourth).
 */
class ElectionRacesTest {
    private static final long SESSION = 0x5e55;
    private static final long OTHER_SESSION = 0x07e5;
    private static final long NEW_SESSION = 0x5e56;
    private static final long DIR_CZXID = 100;
    private static final String DIR = "/elections/e";
    /** The leader of the moment, another client's node, first in the queue (sequence 0). */
    private static final String LEADER = LockNodeTest.curatorName("0f8fad5b-d9cb-469f-a165-70867728950e", "leader", 0);
    /** A candidate of another client that joined later. */
    private static final String LATER = LockNodeTest.curatorName("7c9e6679-7425-40de-944b-e07fc1f90ae7", "leader", 5);

    private final ScriptedPort port = new ScriptedPort(SESSION);
    private final SessionMonitor monitor = SessionMonitor.detached(() -> port.sessionId);
    private final LockContext election = LockContext.of(null, monitor, port, DIR, "leader", "leader-", LockDriver.EXCLUSIVE, 1);

    /**
     * CURATOR-620: two RECONNECTED events in quick succession while a candidate waits. Each
     * starts a new listing; only the second's verdict counts. When the second reconnection is
     * on a new session, the first listing, answered late and showing our node first, must not
     * make us leader: that node belongs to the ended session. Either way the candidacy is never
     * re-created on a reconnection in the same session (LeaderLatch's reset did, and deleted its
     * node after it had become leader).
     */
    @ParameterizedTest(name = "second reconnection on a new session: {0}")
    @ValueSource(booleans = {false, true})
    void twoReconnectionsInQuickSuccessionDecideOnTheLastListingOnly(boolean newSession) {
        Acquisition candidate = queuedBehindLeader();
        String ours = port.calls(CREATE).get(0).nodeName(1);
        reconnect(SESSION);
        port.fire(port.last(WATCH_DATA), EventType.NodeDeleted);   // the watch set again on the session: the leader went
        Call first = port.last(CHILDREN);
        reconnect(newSession ? NEW_SESSION : SESSION);
        Call second = port.last(CHILDREN);

        port.reply(first, listing(DIR, dirStat(DIR_CZXID, 2, 1), ours));   // late, superseded: the leader had gone
        assertFalse(candidate.result.isDone(), "a superseded listing made the candidate leader");
        assertEquals(1, port.count(CREATE), "a superseded listing re-queued the candidate");
        assertEquals(0, port.count(DELETE), "a superseded listing deleted the candidate's node");

        port.reply(second, listing(DIR, null, ours));  // no Stat: the re-queue creates plainly (no inference)
        if (!newSession) {
            ZkLease lease = lease(candidate);
            assertEquals(DIR + "/" + ours, lease.nodePath());
            assertEquals(11, lease.fencingToken());
            assertEquals(1, port.count(CREATE), "the candidacy was re-created on a reconnection in the same session");
            assertEquals(0, port.count(DELETE));
            return;
        }
        assertFalse(candidate.result.isDone(), "led on the node of an ended session");
        assertEquals(DIR + "/" + ours, port.last(DELETE).path, "the ended session's node is not deleted");
        port.reply(port.last(DELETE), rc(Code.OK));
        Call requeued = port.last(CREATE);
        port.reply(requeued, ok(requeued.nodePath(6), nodeStat(16, NEW_SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 7, 1), requeued.nodeName(6)));
        assertEquals(16, lease(candidate).fencingToken(), "the leader's epoch is the new node's");
    }

    /**
     * CURATOR-696: a leader whose session expired reconnects on a new session with its old node
     * gone. Its leadership is LOST and stays LOST: nothing turns it back to HELD on the
     * reconnection. A candidate of that client that waited behind the leader joins again on
     * the new session, and does not lead while another's node is first (it would, if it
     * decided from what it knew of the queue before the expiry: "the one ahead of me is gone").
     */
    @Test
    void reconnectionAfterExpiryWithTheOldNodeGoneNeverLeadsOnIt() {
        Acquisition leading = Acquisition.start(election, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, null, create.nodeName(0)));
        ZkLease leadership = lease(leading);
        Acquisition waiting = Acquisition.start(election, Deadline.unbounded());
        Call waiterCreate = port.last(CREATE);
        port.reply(waiterCreate, ok(waiterCreate.nodePath(1), nodeStat(11, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, null, create.nodeName(0), waiterCreate.nodeName(1)));
        assertEquals(create.nodePath(0), port.last(WATCH_DATA).path);

        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        port.sessionId = NEW_SESSION;          // expired meanwhile: both our nodes are gone on the server
        monitor.stateChanged(ConnectionState.LOST);
        port.connected = true;
        monitor.stateChanged(ConnectionState.RECONNECTED);

        assertEquals(LeaseState.LOST, leadership.state());
        port.reply(port.last(CHILDREN), listing(DIR, null, LATER));   // another client leads now
        assertFalse(waiting.result.isDone(), "the candidate led on what it knew before the expiry");
        Call requeued = port.last(CREATE);
        assertTrue(port.count(CREATE) == 3, "the candidate did not join again on the new session");
        port.reply(requeued, ok(requeued.nodePath(6), nodeStat(16, NEW_SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 7, 2), LATER, requeued.nodeName(6)));
        assertFalse(waiting.result.isDone(), "led behind another client's leader");
        assertEquals(DIR + "/" + LATER, port.last(WATCH_DATA).path);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(LeaseState.LOST, leadership.state(), "a LOST leadership came back");
    }

    /**
     * CURATOR-724: the election's path is removed while the candidate is cut off (an ensemble
     * scaled to zero and back keeps the session but not the data). The listing after the
     * reconnection finds no path: the candidate makes the path and its node again, and leads only
     * on the verdict of a listing of its new node, with that node's epoch.
     */
    @Test
    void pathRemovedWhileCutOffRequeuesAndLeadsOnlyOnItsNewNode() {
        Acquisition candidate = queuedBehindLeader();
        reconnect(SESSION);
        port.fire(port.last(WATCH_DATA), EventType.NodeDeleted);   // the watch set again on the session: the leader went
        port.reply(port.last(CHILDREN), rc(Code.NONODE));

        assertFalse(candidate.result.isDone(), "led on a path that is gone");
        Call requeued = port.last(CREATE);
        assertEquals(2, port.count(CREATE), "the candidate did not queue again");
        port.reply(requeued, ok(requeued.nodePath(0), nodeStat(30, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID + 20, 1, 1), requeued.nodeName(0)));
        ZkLease lease = lease(candidate);
        assertEquals(requeued.nodePath(0), lease.nodePath());
        assertEquals(30, lease.fencingToken());
        assertTrue(port.count(MAKE_CONTAINER) <= 1, "the path was made more than once");
    }

    /**
     * CURATOR-652/-653: the ensemble's leader changes (a zxid rollover forces one) while a
     * candidate waits: the listing and watch in flight fail with CONNECTIONLOSS and are answered
     * after the reconnection, and the old watch's event arrives late. None of them decides; the
     * listing issued after the change does (with the deletion of the node it showed ahead, told on
     * the watch set after the change). Epochs follow the server's zxid order across the
     * rollover: the new leader's (epoch 2, counter 3) is larger than the old one's (epoch 1,
     * counter near overflow).
     */
    @Test
    void ensembleLeaderChangeDecidesOnTheListingAfterIt() {
        long beforeRollover = (1L << 32) | 0xFFFF_FFF0L;
        long afterRollover = (2L << 32) | 3;
        Acquisition candidate = Acquisition.start(election, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(1), nodeStat(beforeRollover + 1, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 2), LEADER, create.nodeName(1)));
        Call oldWatch = port.last(WATCH_DATA);
        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        port.reply(oldWatch, rc(Code.CONNECTIONLOSS));
        port.connected = true;
        monitor.stateChanged(ConnectionState.RECONNECTED);   // same session, on the new ensemble leader
        Call after = port.last(CHILDREN);

        port.reply(after, listing(DIR, dirStat(DIR_CZXID, 2, 2), LEADER, create.nodeName(1)));
        assertFalse(candidate.result.isDone(), "led while the old leader's node is still first");
        Call watch = port.last(WATCH_DATA);
        port.reply(watch, ok(watch.path, nodeStat(beforeRollover, OTHER_SESSION)));
        int listings = port.count(CHILDREN);
        port.fire(oldWatch, EventType.NodeDeleted);           // late event of the step before the change
        assertEquals(listings, port.count(CHILDREN), "a stale event started a step");
        port.fire(watch, EventType.NodeDeleted);               // the only node ahead in the listing after the change
        assertEquals(listings, port.count(CHILDREN), "the deletion of the one node ahead, told on the watch set after the"
                + " change, grants with no listing");

        ZkLease lease = lease(candidate);
        assertEquals(beforeRollover + 1, lease.fencingToken());
        assertTrue(afterRollover > lease.fencingToken(), "a node made after the rollover fences this leader out");
    }

    // ---- scenes ---------------------------------------------------------------------------------

    /** A candidate (node sequence 1, czxid 11) queued behind {@link #LEADER}, its watch on the leader's node set. */
    private Acquisition queuedBehindLeader() {
        Acquisition a = Acquisition.start(election, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(1), nodeStat(11, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, null, LEADER, create.nodeName(1)));
        Call watch = port.last(WATCH_DATA);
        assertEquals(DIR + "/" + LEADER, watch.path);
        port.reply(watch, ok(watch.path, nodeStat(10, OTHER_SESSION)));
        return a;
    }

    /** The connection drops and comes back, on {@code session}. */
    private void reconnect(long session) {
        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        if (session != port.sessionId) {
            port.sessionId = session;
            monitor.stateChanged(ConnectionState.LOST);
        }
        port.connected = true;
        monitor.stateChanged(ConnectionState.RECONNECTED);
    }

    private static ZkLease lease(Acquisition a) {
        assertTrue(a.result.isDone(), "the candidate does not lead");
        return assertInstanceOf(Acquisition.End.Leased.class, a.result.join()).lease();
    }
}
