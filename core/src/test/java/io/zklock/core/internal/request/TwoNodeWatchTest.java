package io.zklock.core.internal.request;

import static io.zklock.core.internal.zk.ScriptedPort.Kind.CHILDREN;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.CREATE;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.DELETE;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.REMOVE_WATCHES;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.WATCH_DATA;
import static io.zklock.core.internal.zk.ScriptedPort.dirStat;
import static io.zklock.core.internal.zk.ScriptedPort.listing;
import static io.zklock.core.internal.zk.ScriptedPort.nodeStat;
import static io.zklock.core.internal.zk.ScriptedPort.ok;
import static io.zklock.core.internal.zk.ScriptedPort.rc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.ScriptedPort;
import io.zklock.core.internal.zk.ScriptedPort.Call;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.Decision;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.core.spi.queue.LockNodeTest;
import io.zklock.testing.Await;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * A wait whose driver names two nodes to watch (the semaphore's waiters behind the second), on a
 * {@link ScriptedPort}: both data watches are set in one step, the first event, NoNode or
 * announced grant on either lists again once (the other's later reply or event drives nothing),
 * and giving up removes both watches.
 */
class TwoNodeWatchTest {
    private static final long SESSION = 0x5e55;
    private static final long OTHER_SESSION = 0x07e5;
    private static final long DIR_CZXID = 100;
    private static final String DIR = "/locks/s";
    /** Strangers' nodes, queued first (sequences 0 and 1). */
    private static final String FIRST = LockNodeTest.curatorName("0f8fad5b-d9cb-469f-a165-70867728950e", "sem1", 0);
    private static final String SECOND = LockNodeTest.curatorName("7c9e6679-7425-40de-944b-e07fc1f90ae7", "sem1", 1);
    private static final Exception GIVE_UP = new Exception("given up by the test");

    /** Granted at the head; the node at 1 watches the head; every other node the two nodes ahead. */
    private static final LockDriver TWO_AHEAD = new LockDriver() {
        @Override
        public Decision decide(List<LockNode> sorted, LockNode ours, int maxLeases) {
            int index = LockDriver.indexOf(sorted, ours);
            if (index == 0) {
                return Decision.granted();
            }
            return index == 1 ? Decision.watch(sorted.get(0)) : Decision.watch(sorted.get(index - 1), sorted.get(index - 2));
        }

        @Override
        public boolean announcesGrants() {
            return true;
        }
    };

    private final ScriptedPort port = new ScriptedPort(SESSION);
    private final SessionMonitor monitor = SessionMonitor.detached(() -> port.sessionId);
    private final LockContext engine = LockContext.of(null, monitor, port, DIR, "sem1", "sem1-", TWO_AHEAD, 1);
    private String ours;

    /** Both nodes named are watched in one step, the first named first. */
    @Test
    void bothNodesAreWatchedInOneStep() {
        List<Call> watches = queuedBehindTwo();
        assertEquals(List.of(DIR + "/" + SECOND, DIR + "/" + FIRST), watches.stream().map(c -> c.path).toList());
        assertEquals(2, port.count(WATCH_DATA));
        assertEquals(1, port.count(CHILDREN), "the create's early listing only");
    }

    /** The first event on either watch lists again once; the other watch's later event drives nothing. */
    @Test
    void theFirstEventOnEitherListsOnceAndTheOtherIsOnlyBookkept() {
        for (int fired = 0; fired < 2; fired++) {
            TwoNodeWatchTest fresh = new TwoNodeWatchTest();
            List<Call> watches = fresh.queuedBehindTwo();
            watches.forEach(w -> fresh.port.reply(w, ok(w.path, nodeStat(1, OTHER_SESSION))));
            int listings = fresh.port.count(CHILDREN);
            fresh.port.fire(watches.get(fired), EventType.NodeDataChanged);
            assertEquals(listings + 1, fresh.port.count(CHILDREN), "an event on watch " + fired + " did not list again");
            fresh.port.fire(watches.get(1 - fired), EventType.NodeDeleted);
            assertEquals(listings + 1, fresh.port.count(CHILDREN), "the other watch's event started a second loop");
            WatchKey other = WatchKey.data(watches.get(1 - fired).path);
            assertEquals(0, fresh.monitor.watches().count(other), "the fired watch is still counted");
        }
    }

    /** NoNode on one watch lists again once, whichever of the two replies comes first; the other reply drives nothing. */
    @Test
    void noNodeOnEitherListsOnce() {
        for (int gone = 0; gone < 2; gone++) {
            for (boolean goneFirst : new boolean[] {true, false}) {
                TwoNodeWatchTest fresh = new TwoNodeWatchTest();
                List<Call> watches = fresh.queuedBehindTwo();
                int listings = fresh.port.count(CHILDREN);
                Call missing = watches.get(gone);
                Call present = watches.get(1 - gone);
                if (goneFirst) {
                    fresh.port.reply(missing, rc(Code.NONODE));
                    fresh.port.reply(present, rc(Code.NONODE));
                } else {
                    fresh.port.reply(present, ok(present.path, nodeStat(1, OTHER_SESSION)));
                    fresh.port.reply(missing, rc(Code.NONODE));
                }
                assertEquals(listings + 1, fresh.port.count(CHILDREN), "watch " + gone + " gone, first " + goneFirst);
            }
        }
    }

    /**
     * A connection loss on one registration backs off; NoNode on the other, answered during the
     * back-off, does not start a second loop beside the retry: one listing in all.
     */
    @Test
    void noNodeDuringTheOtherWatchsBackOffDoesNotStartASecondLoop() throws InterruptedException {
        List<Call> watches = queuedBehindTwo();
        int listings = port.count(CHILDREN);
        port.reply(watches.get(0), rc(Code.CONNECTIONLOSS));
        port.reply(watches.get(1), rc(Code.NONODE));
        Await.equal("the retry's listing", listings + 1, Duration.ofSeconds(5), () -> port.count(CHILDREN));
        Thread.sleep(300);                     // a second loop would list again now
        assertEquals(listings + 1, port.count(CHILDREN), "two loops run at once");
    }

    /**
     * A grant already announced on either node lists again at once; the same announcement seen
     * again (forged: a true grant moves the waiter on) lists no more, even when the two nodes
     * carry different ones, so two forged notices cannot make it list forever.
     */
    @Test
    void anAnnouncementOnEitherListsOnceAndTheSameOneNeverAgain() {
        List<Call> watches = queuedBehindTwo();
        int listings = port.count(CHILDREN);
        port.reply(watches.get(0), announced(watches.get(0).path, 51));
        assertEquals(listings + 1, port.count(CHILDREN), "the announcement on the first node did not list again");
        port.reply(watches.get(1), announced(watches.get(1).path, 52));    // stale step: nothing
        assertEquals(listings + 1, port.count(CHILDREN));

        watches = relisted();                                              // both forged, still both ahead
        port.reply(watches.get(0), announced(watches.get(0).path, 51));
        port.reply(watches.get(1), announced(watches.get(1).path, 52));
        assertEquals(listings + 2, port.count(CHILDREN), "the second node's announcement, new to it, lists once");

        watches = relisted();
        port.reply(watches.get(0), announced(watches.get(0).path, 51));
        port.reply(watches.get(1), announced(watches.get(1).path, 52));
        assertEquals(listings + 2, port.count(CHILDREN), "the same announcements listed again");
        assertEquals(6, port.count(WATCH_DATA));
    }

    /** Giving up removes both watches, each after its registration's reply. */
    @Test
    void aGiveUpRemovesBothWatches() {
        List<Call> watches = queuedBehindTwo();
        Acquisition a = current;
        assertTrue(a.giveUp(GIVE_UP));
        port.reply(port.last(DELETE), rc(Code.OK));
        assertEquals(0, port.count(REMOVE_WATCHES), "a removal issued before its registration was answered");
        watches.forEach(w -> port.reply(w, ok(w.path, nodeStat(1, OTHER_SESSION))));
        Set<WatchKey> removed = port.calls(REMOVE_WATCHES).stream().map(c -> c.removed).collect(Collectors.toSet());
        assertEquals(Set.of(WatchKey.data(DIR + "/" + FIRST), WatchKey.data(DIR + "/" + SECOND)), removed);
        port.calls(REMOVE_WATCHES).forEach(c -> port.reply(c, rc(Code.OK)));
        assertTrue(a.result.isDone());
        assertEquals(0, monitor.watches().count(WatchKey.data(DIR + "/" + FIRST)));
        assertEquals(0, monitor.watches().count(WatchKey.data(DIR + "/" + SECOND)));
    }

    /** A give-up after one watch fired removes only the other, which is still set. */
    @Test
    void aGiveUpAfterOneFiredRemovesTheOther() {
        List<Call> watches = queuedBehindTwo();
        watches.forEach(w -> port.reply(w, ok(w.path, nodeStat(1, OTHER_SESSION))));
        port.fire(watches.get(0), EventType.NodeDeleted);
        Acquisition a = current;
        assertTrue(a.giveUp(GIVE_UP));
        port.reply(port.last(DELETE), rc(Code.OK));
        assertEquals(List.of(WatchKey.data(watches.get(1).path)), port.calls(REMOVE_WATCHES).stream().map(c -> c.removed).toList());
    }

    // ---- scene ------------------------------------------------------------------------------

    private Acquisition current;

    /** Our node queues third, behind two strangers': returns the two watch registrations, unanswered. */
    private List<Call> queuedBehindTwo() {
        current = Acquisition.start(engine, Deadline.unbounded());
        Call create = port.last(CREATE);
        ours = create.nodeName(2);
        port.reply(create, ok(create.nodePath(2), nodeStat(12, SESSION)));
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 3, 3), FIRST, SECOND, ours));
        List<Call> all = port.calls(WATCH_DATA);
        return all.subList(all.size() - 2, all.size());
    }

    /** Answers the pending listing with the same queue: returns the two new registrations. */
    private List<Call> relisted() {
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(DIR_CZXID, 3, 3), FIRST, SECOND, ours));
        List<Call> all = port.calls(WATCH_DATA);
        return all.subList(all.size() - 2, all.size());
    }

    private static ZkPort.Reply announced(String path, long mzxid) {
        Stat stat = nodeStat(1, OTHER_SESSION);
        stat.setVersion(1);
        stat.setMzxid(mzxid);
        return new ZkPort.Reply(Code.OK, path, stat, null, null, NodeData.withGrant(new byte[0]));
    }
}
