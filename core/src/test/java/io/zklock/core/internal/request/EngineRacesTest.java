package io.zklock.core.internal.request;

import static io.zklock.core.internal.zk.ScriptedPort.Kind.CHILDREN;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.CREATE;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.DELETE;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.EXISTS;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.MULTI;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.REMOVE_WATCHES;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.WATCH_DATA;
import static io.zklock.core.internal.zk.ScriptedPort.dirStat;
import static io.zklock.core.internal.zk.ScriptedPort.listing;
import static io.zklock.core.internal.zk.ScriptedPort.nodeStat;
import static io.zklock.core.internal.zk.ScriptedPort.ok;
import static io.zklock.core.internal.zk.ScriptedPort.rc;
import static io.zklock.core.internal.zk.ScriptedPort.transacted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.zklock.core.LeaseState;
import io.zklock.core.LockException;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.zk.ScriptedPort;
import io.zklock.core.internal.zk.ScriptedPort.Call;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNodeTest;
import io.zklock.testing.Await;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Races of the engine, hit on purpose: a {@link ScriptedPort} records every ZooKeeper call and
 * the test answers them in the order it chooses, on its own thread, so each test is one
 * deterministic interleaving. The counts of calls are the observable state.
 */
class EngineRacesTest {
    private static final long SESSION = 0x5e55;
    private static final long OTHER_SESSION = 0x07e5;
    /** The client's session after {@link #SESSION} expired. */
    private static final long NEW_SESSION = 0x5e56;
    private static final long DIR_CZXID = 100;
    private static final String DIR = "/locks/a";
    /** A stranger's node, queued first (sequence 0). */
    private static final String STRANGER = LockNodeTest.curatorName("0f8fad5b-d9cb-469f-a165-70867728950e", "lock", 0);
    private static final Exception GIVE_UP = new Exception("given up by the test");

    private final ScriptedPort port = new ScriptedPort(SESSION);
    private final SessionMonitor monitor = SessionMonitor.detached(() -> port.sessionId);
    private final LockContext engine = LockContext.of(null, monitor, port, DIR, "lock", "lock-", LockDriver.EXCLUSIVE, 1);
    /** The request that sent the transaction of {@link #transactionAfterReleasedHolder()}. */
    private Acquisition transactionRequest;

    /** A wait that gives up while its watch registration is in flight removes the watch only after the registration's reply, and ends only after the removal's. */
    @Test
    void watchRemovalFollowsItsRegistration() {
        Acquisition a = queuedBehindStranger();
        Call registration = port.last(WATCH_DATA);

        assertTrue(a.giveUp(GIVE_UP));
        port.reply(port.last(DELETE), rc(Code.OK));

        assertEquals(0, port.count(REMOVE_WATCHES), "a removal issued before the registration was answered");
        assertFalse(a.result.isDone(), "the give-up ended with a registration in flight");
        port.reply(registration, ok(registration.path, nodeStat(1, OTHER_SESSION)));
        Call removal = port.last(REMOVE_WATCHES);
        assertEquals(WatchKey.data(DIR + "/" + STRANGER), removal.removed);
        assertFalse(a.result.isDone(), "the give-up ended before its watch removal was answered");
        port.reply(removal, rc(Code.OK));
        assertSame(GIVE_UP, failure(a.result));
        assertEquals(0, monitor.watches().count(removal.removed), "the session's watch count leaked");
    }

    /** The directory view follows the order replies arrived in, not the order their handlers ran in: it stays exact, so the next request infers, and the server's reply bears it out. */
    @ParameterizedTest(name = "listing answered after the transaction: {0}")
    @ValueSource(booleans = {true, false})
    void directoryViewFollowsReplyOrder(boolean listingAfterTransaction) {
        queuedBehindStranger();                // view: stranger, A; 2 creations
        Acquisition.start(engine, Deadline.unbounded());
        Call transaction = port.last(MULTI);
        monitor.stateChanged(ConnectionState.RECONNECTED);   // the first request lists again
        Call relisting = port.last(CHILDREN);
        String a = port.calls(CREATE).get(0).nodeName(1);
        Runnable transactionReply = () -> port.deliver(transaction,
                transacted(dirStat(DIR_CZXID, 2, 2), transaction.nodePath(2), nodeStat(12, SESSION)));

        // Handlers run in the other order than the replies. A view updated by the handlers instead of the
        // in-order hooks goes wrong: here missing the transaction (the next request creates plainly); in
        // the other case missing the node the transaction added (the next transaction is not proven).
        if (listingAfterTransaction) {
            transactionReply.run();
            port.deliver(relisting, listing(DIR, dirStat(DIR_CZXID, 3, 3), STRANGER, a, transaction.nodeName(2)));
            port.complete(relisting);
            port.complete(transaction);
        } else {
            port.deliver(relisting, listing(DIR, dirStat(DIR_CZXID, 2, 2), STRANGER, a));
            transactionReply.run();
            port.complete(transaction);
            port.complete(relisting);
        }

        assertTrue(engine.view().usable(SESSION), "the view was left inexact");
        Acquisition.start(engine, Deadline.unbounded());
        assertEquals(2, port.count(MULTI), "the third request did not take the inferring transaction");
        assertEquals(1, port.count(CREATE));
        Call third = port.last(MULTI);
        port.reply(third, transacted(dirStat(DIR_CZXID, 3, 3), third.nodePath(3), nodeStat(13, SESSION)));
        assertTrue(engine.view().usable(SESSION), "the server's reply disproved the view: it had not followed the replies");
    }

    /** A create's early listing answered before the create's reply is not decided on: the wait lists again. */
    @Test
    void earlyListingAnsweredBeforeTheCreateIsNotUsed() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);

        // Curator retried the create: its first attempt made the node, the listing saw it, then the reply came;
        // the listing shows our node, so only the order of the replies can tell it is not to be decided on
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));
        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));

        assertEquals(2, port.count(CHILDREN), "the wait decided on a listing not known to follow the create");
        assertFalse(a.result.isDone());
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));
        assertEquals(create.nodePath(0), lease(a).nodePath());
    }

    /** A create's early listing answered after the create's reply is decided on: no other listing is sent. */
    @Test
    void earlyListingAnsweredAfterTheCreateIsUsed() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);

        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));

        assertEquals(create.nodePath(0), lease(a).nodePath());
        assertEquals(1, port.count(CHILDREN), "the early listing was wasted");
    }

    /**
     * A create's early listing answered after the create is decided on even when the create's
     * step runs only after both replies were handled (a busy machine): the order of the replies
     * decides, not the order of the steps, so no other listing is sent.
     */
    @Test
    void earlyListingAnsweredAfterTheCreateIsUsedWhenTheCreatesStepRunsLate() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        Call early = port.last(CHILDREN);

        port.deliver(create, ok(create.nodePath(0), nodeStat(10, SESSION)));     // the create's reply comes first,
        port.reply(early, listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));   // the listing's is handled at once,
        port.complete(create);                                                 // and the create's step runs last

        assertEquals(create.nodePath(0), lease(a).nodePath());
        assertEquals(1, port.count(CHILDREN), "the early listing was wasted");
    }

    /**
     * A waiter whose watch was set lists nothing when its own session reconnects (ZooKeeper sets
     * the watch again, and fires it if its node changed meanwhile); it lists again when the
     * client reconnects on another session, and hears its watch's event on the same one.
     */
    @Test
    void aSetWatchSurvivesTheSameSessionsReconnection() {
        queuedBehindStranger();
        Call watch = port.last(WATCH_DATA);
        port.reply(watch, ok(watch.path, nodeStat(1, OTHER_SESSION)));
        int listings = port.count(CHILDREN);
        monitor.stateChanged(ConnectionState.SUSPENDED);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(listings, port.count(CHILDREN), "the same session's reconnection listed again");
        port.fire(watch, EventType.NodeDeleted);
        assertEquals(listings + 1, port.count(CHILDREN), "the watch's event did not list again");
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 2), STRANGER, port.last(CREATE).nodeName(1)));
        Call again = port.last(WATCH_DATA);
        port.reply(again, ok(again.path, nodeStat(1, OTHER_SESSION)));
        port.sessionId = NEW_SESSION;
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(listings + 2, port.count(CHILDREN), "a new session's reconnection did not list again");
    }

    /** After a kick starts a new loop, the older loops' replies (listings, a watch registration) and watch events drive nothing: one loop runs. */
    @Test
    void staleRepliesAndEventsAreDiscarded() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        Call earlyListing = port.last(CHILDREN);
        String ours = create.nodeName(1);
        port.reply(create, ok(create.nodePath(1), nodeStat(11, SESSION)));
        monitor.stateChanged(ConnectionState.RECONNECTED);
        Call kicked = port.last(CHILDREN);
        monitor.stateChanged(ConnectionState.RECONNECTED);

        port.reply(earlyListing, listing(DIR, dirStat(DIR_CZXID, 2, 2), STRANGER, ours));
        port.reply(kicked, listing(DIR, dirStat(DIR_CZXID, 2, 2), STRANGER, ours));
        assertEquals(0, port.count(WATCH_DATA), "a stale listing drove a decision");
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 2), STRANGER, ours));
        Call setWatch = port.last(WATCH_DATA);     // in flight: a kick lists again (a set watch would be set again by ZooKeeper)
        Call watchInFlight = watchAfterKick(ours);
        Call watch = watchAfterKick(ours);
        port.reply(setWatch, ok(setWatch.path, nodeStat(1, OTHER_SESSION)));

        port.reply(watchInFlight, rc(Code.NONODE));    // were it current: "the node went, list again"
        port.fire(setWatch, EventType.NodeDataChanged);
        assertEquals(5, port.count(CHILDREN), "a stale reply or event started a second loop");
        assertEquals(3, port.count(WATCH_DATA));

        port.reply(watch, ok(watch.path, nodeStat(1, OTHER_SESSION)));
        port.fire(watch, EventType.NodeDeleted);   // the one node ahead in the last queue: its deletion grants, no listing
        assertEquals(create.nodePath(1), lease(a).nodePath());
        assertEquals(5, port.count(CHILDREN));
    }

    /** A grant and a give-up are decided once, whichever comes first: a lease and its node kept, or a failure and the node deleted; never both. */
    @ParameterizedTest(name = "grant first: {0}")
    @ValueSource(booleans = {true, false})
    void grantAndGiveUpAreDecidedOnce(boolean grantFirst) {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        Call grantingListing = port.last(CHILDREN);
        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));

        if (grantFirst) {
            port.reply(grantingListing, listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));
            assertFalse(a.giveUp(GIVE_UP), "a give-up after the grant still won");
            assertEquals(LeaseState.HELD, lease(a).state());
            assertEquals(0, port.count(DELETE), "the give-up deleted a granted node");
        } else {
            assertTrue(a.giveUp(GIVE_UP));
            port.reply(grantingListing, listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));
            port.reply(port.last(DELETE), rc(Code.OK));
            assertSame(GIVE_UP, failure(a.result));
            // a grant that slipped through would have made a lease, and released it with a second delete
            assertEquals(1, port.count(DELETE));
            assertTrue(port.last(DELETE).guaranteed);
        }
    }

    /** A give-up while the create is in flight completes only after the create's reply came and the node it made was deleted. */
    @Test
    void giveUpDuringCreateEndsAfterTheNodeIsDeleted() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);

        assertTrue(a.giveUp(GIVE_UP));
        assertFalse(a.result.isDone(), "the give-up ended before the create in flight was answered");
        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));
        Call delete = port.last(DELETE);
        assertEquals(create.nodePath(0), delete.path);
        assertTrue(delete.guaranteed);
        assertFalse(a.result.isDone(), "the give-up ended before the delete was answered");
        port.reply(delete, rc(Code.OK));
        assertSame(GIVE_UP, failure(a.result));
        assertEquals(1, port.count(CHILDREN), "a wait started on the node of a request that gave up");
    }

    /** A create that finds its directory reaped is issued again, up to MAX_REAPED times in a row; one more fails with LockException. */
    @Test
    void reapedDirectoryIsRetriedThenFails() {
        Acquisition a = Acquisition.start(engine, Deadline.after(Duration.ofMinutes(10)));

        for (int n = 1; n <= NodeCreation.MAX_REAPED; n++) {
            awaitCount(CREATE, n);
            port.reply(port.last(CREATE), rc(Code.NONODE));
            assertFalse(a.result.isDone(), "gave up after " + n + " reaped creates");
            monitor.stateChanged(ConnectionState.RECONNECTED);   // runs a retry's pause out at once
        }
        awaitCount(CREATE, NodeCreation.MAX_REAPED + 1);
        port.reply(port.last(CREATE), rc(Code.NONODE));

        assertInstanceOf(LockException.class, failure(a.result));
        assertEquals(NodeCreation.MAX_REAPED + 1, port.count(CREATE));
    }

    /** An inferring transaction whose reply was lost is resolved by listing: the node carrying its uuid is adopted, with no second create. */
    @Test
    void lostTransactionReplyAdoptsItsNode() {
        Call transaction = transactionAfterReleasedHolder();

        port.reply(transaction, rc(Code.CONNECTIONLOSS));
        assertEquals(2, port.count(CHILDREN), "the lost reply was not resolved by a listing");
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 1), transaction.nodeName(1)));
        Call read = port.last(EXISTS);                 // the listing gave no Stat: read the token
        assertEquals(transaction.nodePath(1), read.path);
        port.reply(read, ok(read.path, nodeStat(21, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 1), transaction.nodeName(1)));

        ZkLease lease = lease(transactionRequest);
        assertEquals(transaction.nodePath(1), lease.nodePath());
        assertEquals(21, lease.fencingToken());
        assertEquals(1, port.count(CREATE), "a second node was created");
        assertEquals(1, port.count(MULTI));
    }

    /** An inferring transaction whose reply was lost and that made nothing is followed by a plain create. */
    @Test
    void lostTransactionReplyWithoutNodeCreatesPlainly() {
        Call transaction = transactionAfterReleasedHolder();

        port.reply(transaction, rc(Code.CONNECTIONLOSS));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 1, 0)));

        assertEquals(2, port.count(CREATE), "no plain create after a transaction that made nothing");
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(1), nodeStat(22, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 1), create.nodeName(1)));
        assertEquals(create.nodePath(1), lease(transactionRequest).nodePath());
        assertEquals(1, port.count(MULTI));
    }

    /** The watch counts of a session that expired go with it: a request that re-queued on the new session and gives up removes its watch, although a registration of the old session had an unknown outcome. */
    @Test
    void watchCountsOfAnExpiredSessionGo() {
        Acquisition a = queuedBehindStranger();
        WatchKey stranger = WatchKey.data(DIR + "/" + STRANGER);
        port.reply(port.last(WATCH_DATA), rc(Code.CONNECTIONLOSS));   // did the watch get set? unknown: counted
        port.sessionId = NEW_SESSION;
        monitor.stateChanged(ConnectionState.RECONNECTED);
        String old = port.calls(CREATE).get(0).nodeName(1);
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 2), STRANGER, old));   // ours is of the old session: re-queue
        port.reply(port.last(DELETE), rc(Code.OK));
        Call transaction = port.last(MULTI);           // the listing made the new session's view exact
        port.reply(transaction, transacted(dirStat(DIR_CZXID, 2, 2), transaction.nodePath(2), nodeStat(12, NEW_SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 3, 2), STRANGER, transaction.nodeName(2)));
        Call watch = port.last(WATCH_DATA);
        port.reply(watch, ok(watch.path, nodeStat(1, OTHER_SESSION)));
        assertEquals(1, monitor.watches().count(stranger), "the expired session's registration is still counted");

        assertTrue(a.giveUp(GIVE_UP));
        assertEquals(1, port.count(REMOVE_WATCHES), "the give-up left its watch on the server");
        assertEquals(stranger, port.last(REMOVE_WATCHES).removed);
        assertEquals(0, monitor.watches().count(stranger));
    }

    /** After the last close while cut off, the session's next request does not queue behind its own released node, whose delete waits for the reconnection: it is granted on the listing, with no watch on that node. */
    @Test
    void nextRequestDoesNotWaitForItsOwnReleasedNode() {
        Acquisition holder = Acquisition.start(engine, Deadline.unbounded());
        Call first = port.last(CREATE);
        port.reply(first, ok(first.nodePath(0), nodeStat(10, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, null, first.nodeName(0)));   // no Stat: no inference next
        ZkLease released = lease(holder);
        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        assertTrue(released.release());
        port.reply(port.last(DELETE), rc(Code.CONNECTIONLOSS));   // retried on reconnection

        Acquisition next = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.connected = true;                 // Curator sends the create and its listing before the delete's retry
        port.reply(create, ok(create.nodePath(1), nodeStat(11, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 2), first.nodeName(0), create.nodeName(1)));

        assertEquals(0, port.count(WATCH_DATA), "the request watches its own released node");
        assertEquals(create.nodePath(1), lease(next).nodePath());
        assertEquals(LeaseState.SUSPENDED, released.state(), "the released lease is final only once its node is gone");
    }

    /** A node of this session whose delete failed with an answer that is not the connection's is waited for: only a release the reconnection will finish is treated as gone. */
    @Test
    void nodeWhoseDeleteWasRefusedIsWaitedFor() {
        Acquisition holder = Acquisition.start(engine, Deadline.unbounded());
        Call first = port.last(CREATE);
        port.reply(first, ok(first.nodePath(0), nodeStat(10, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, null, first.nodeName(0)));   // no Stat: no inference next
        assertTrue(lease(holder).release());
        port.reply(port.last(DELETE), rc(Code.NOAUTH));

        Acquisition next = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(1), nodeStat(11, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 2), first.nodeName(0), create.nodeName(1)));

        assertFalse(next.result.isDone(), "granted while a node that may never go sits ahead");
        assertEquals(first.nodePath(0), port.last(WATCH_DATA).path);
    }

    /**
     * A grant decided on a listing answered while connected, whose step runs after SUSPENDED
     * was delivered (the request ignores it; the lease did not exist yet), starts SUSPENDED,
     * and is HELD again on the reconnection.
     */
    @Test
    void aLeaseGrantedAfterTheSuspensionNewsStartsSuspended() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));
        Call granting = port.last(CHILDREN);
        port.deliver(granting, listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));
        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        port.complete(granting);

        ZkLease lease = lease(a);
        assertEquals(LeaseState.SUSPENDED, lease.state(), "a lease granted while cut off says it is held");
        port.connected = true;
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(LeaseState.HELD, lease.state());
    }

    /**
     * The same grant, but the connection returns, and RECONNECTED reaches the new lease, just
     * after the grant step saw it disconnected and before it marked the lease SUSPENDED: the
     * lease ends HELD, not SUSPENDED until the next news.
     */
    @Test
    void aLeaseWhoseReconnectionCameAsItWasMarkedSuspendedIsHeld() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));
        Call granting = port.last(CHILDREN);
        port.deliver(granting, listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));
        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        boolean[] delivered = new boolean[1];
        port.onClosedCheck = () -> port.onConnectedCheck = () -> {   // the grant's first check arms the lease's
            port.connected = true;
            monitor.stateChanged(ConnectionState.RECONNECTED);
            delivered[0] = true;
        };
        port.complete(granting);

        assertTrue(delivered[0], "the reconnection was not delivered during the grant");
        assertEquals(LeaseState.HELD, lease(a).state(), "the lease missed the reconnection");
    }

    /**
     * LOST and RECONNECTED on a new session, delivered while the grant step runs (after the
     * request decided on the old session, before the lease listens), leave the lease LOST,
     * and its node, the old session's, is deleted.
     */
    @Test
    void aLeaseGrantedAsItsSessionIsReplacedIsLost() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));
        boolean[] delivered = new boolean[1];
        port.onClosedCheck = () -> {
            port.sessionId = NEW_SESSION;
            monitor.stateChanged(ConnectionState.LOST);
            monitor.stateChanged(ConnectionState.RECONNECTED);
            delivered[0] = true;
        };
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));

        assertTrue(delivered[0], "the news was not delivered during the grant");
        ZkLease lease = lease(a);
        assertEquals(LeaseState.LOST, lease.state(), "a lease of the old session says it is held");
        assertEquals(create.nodePath(0), port.last(DELETE).path, "the old session's node is not deleted");
    }

    // ---- scenes -----------------------------------------------------------------------------

    /**
     * A request on the plain path whose node A (sequence 1) queues behind the stranger's: create
     * and early listing answered, the watch on the stranger's node issued. The listing makes
     * this session's view of the directory exact.
     */
    private Acquisition queuedBehindStranger() {
        Acquisition a = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(1), nodeStat(11, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 2), STRANGER, create.nodeName(1)));
        assertEquals(DIR + "/" + STRANGER, port.last(WATCH_DATA).path);
        return a;
    }

    /**
     * A first request takes the lock on the plain path (its listing makes the view exact) and
     * releases it; a second request ({@link #transactionRequest}) then sends the inferring
     * transaction, returned unanswered.
     */
    private Call transactionAfterReleasedHolder() {
        Acquisition holder = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        port.reply(create, ok(create.nodePath(0), nodeStat(10, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 1, 1), create.nodeName(0)));
        ZkLease held = lease(holder);
        assertTrue(held.release());
        port.reply(port.last(DELETE), rc(Code.OK));
        assertEquals(LeaseState.RELEASED, held.state());

        transactionRequest = Acquisition.start(engine, Deadline.unbounded());
        assertEquals(1, port.count(CREATE), "the view was exact: the transaction was due");
        return port.last(MULTI);
    }

    /** Kicks a request waiting behind the stranger and answers its new listing: returns the watch it sets then. */
    private Call watchAfterKick(String ours) {
        int watches = port.count(WATCH_DATA);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 2, 2), STRANGER, ours));
        assertEquals(watches + 1, port.count(WATCH_DATA));
        return port.last(WATCH_DATA);
    }

    // ---- outcomes ---------------------------------------------------------------------------

    private void awaitCount(ScriptedPort.Kind kind, int n) {
        Await.equal(kind + " calls", n, Duration.ofSeconds(5), () -> port.count(kind));
    }

    private static ZkLease lease(Acquisition a) {
        assertTrue(a.result.isDone(), "the request has not ended");
        Acquisition.End outcome = a.result.join();
        return assertInstanceOf(Acquisition.End.Leased.class, outcome).lease();
    }

    /** The failure {@code result} ended with, waiting a little for it (a retry may run on the timer thread). */
    private static Throwable failure(CompletableFuture<?> result) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> result.get(Await.scaled(Duration.ofSeconds(5)).toNanos(), TimeUnit.NANOSECONDS));
        return e.getCause();
    }
}
