package io.zklock.core.internal.lease;

import static io.zklock.core.internal.zk.ScriptedPort.Kind.SET_DATA;
import static io.zklock.core.internal.zk.ScriptedPort.rc;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.OwnerInfo;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.ScriptedPort;
import io.zklock.core.internal.zk.ScriptedPort.Call;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNodeTest;
import io.zklock.testing.Await;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * Loose ends of the lease classes, each on a {@link ScriptedPort}: a view closed at the instant
 * its base is lost, what a long hold keeps on its base, and a grant notice that the connection
 * swallowed.
 */
class LeaseViewsAndNoticeTest {
    private static final long SESSION = 0x5e55;
    private static final String DIR = "/locks/v";
    private static final String NODE = DIR + "/" + LockNodeTest.curatorName("0f8fad5b-d9cb-469f-a165-70867728950e", "lock", 3);
    private static final Duration SHORT = Duration.ofSeconds(10);
    private static final byte[] OWNER = NodeData.of(OwnerInfo.current());

    private final ScriptedPort port = new ScriptedPort(SESSION);
    private final SessionMonitor monitor = SessionMonitor.detached(() -> port.sessionId);
    private final LockContext context = LockContext.of(null, monitor, port, DIR, "lock", "lock-", LockDriver.EXCLUSIVE, 1);
    private final ZkLease base = new ZkLease(context, NODE, 42, SESSION);

    /**
     * A re-entered view closed (not the last) at the very instant its base turns LOST ends in
     * one state, told once: what state() says is what its listeners heard last. The base's
     * loss is made to run while the close reads the base's state, as close as two threads get.
     */
    @Test
    void aViewClosedAsItsBaseIsLostSaysWhatItTold() throws InterruptedException {
        LosingOnRead probe = new LosingOnRead(base);
        HoldLease view = new OpenHold(probe).newView();   // another view of the hold stays open
        List<LeaseState> told = new CopyOnWriteArrayList<>();
        view.addListener((lease, state) -> told.add(state));
        probe.armFor(Thread.currentThread());
        view.close();
        probe.loser.join(SHORT.toMillis());
        assertEquals(LeaseState.LOST, base.state(), "the base was lost meanwhile");
        assertEquals(1, told.size(), "told " + told);
        assertEquals(view.state(), told.get(0), "state() and what was told disagree: " + told);
    }

    /**
     * Views of one hold that were given a listener and closed while another view stays open
     * leave the hold's one listener on the base: it tells only the views still open, however
     * often the hold was re-entered, and the open view still hears the base's loss.
     */
    @Test
    void closedViewsOfAHoldLeaveItsListener() throws InterruptedException {
        HoldLease.Base hold = new OpenHold(base);
        HoldLease open = hold.newView();
        List<LeaseState> openHeard = new CopyOnWriteArrayList<>();
        open.addListener((lease, state) -> openHeard.add(state));
        List<LeaseState> closedHeard = new CopyOnWriteArrayList<>();
        List<WeakReference<HoldLease>> closed = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            HoldLease view = hold.newView();
            view.addListener((lease, state) -> closedHeard.add(state));
            view.close();
            closed.add(new WeakReference<>(view));
        }
        for (int i = 0; i < 50 && closed.stream().anyMatch(ref -> ref.get() != null); i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, closed.stream().filter(ref -> ref.get() != null).count(),
                "closed views are still kept by the hold, to be told the base's news");
        base.lose();
        assertEquals(List.of(LeaseState.LOST), openHeard);
        assertEquals(100, closedHeard.size(), "a closed view heard the base: " + closedHeard.stream().distinct().toList());
    }

    /**
     * A grant notice whose call the connection swallowed is sent again when the same session
     * reconnects, and not before: nothing is sent while disconnected (the old notice retried
     * every 50 ms; the pause below is five times that), one call after the reconnection.
     */
    @Test
    void aSwallowedGrantNoticeIsSentAgainOnReconnectionOnly() throws InterruptedException {
        base.announceGrant(OWNER);
        Call touch = port.last(SET_DATA);
        port.connected = false;
        port.reply(touch, rc(Code.CONNECTIONLOSS));
        monitor.stateChanged(ConnectionState.SUSPENDED);
        Thread.sleep(250);
        assertEquals(1, port.count(SET_DATA), "a notice was sent while disconnected");
        port.connected = true;
        monitor.stateChanged(ConnectionState.RECONNECTED);
        Await.until("the notice is sent again", SHORT, () -> port.count(SET_DATA) == 2);
        Call again = port.last(SET_DATA);
        assertArrayEquals(touch.data, again.data);
        port.reply(again, rc(Code.OK));
        monitor.stateChanged(ConnectionState.SUSPENDED);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(2, port.count(SET_DATA), "a notice that landed is not sent again");
    }

    /**
     * A grant notice whose lost reply arrives after the reconnection news (Curator may decide a
     * background call's final CONNECTIONLOSS after it delivered RECONNECTED) is sent again at
     * once, exactly once: the reconnection found nothing to resend, so nobody else would.
     */
    @Test
    void aGrantNoticeLostAfterTheReconnectionNewsIsSentAgain() {
        base.announceGrant(OWNER);
        Call touch = port.last(SET_DATA);
        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        port.connected = true;
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(1, port.count(SET_DATA), "nothing was kept to resend yet");
        port.reply(touch, rc(Code.CONNECTIONLOSS));
        assertEquals(2, port.count(SET_DATA), "the notice lost after the reconnection was not sent again");
        Call again = port.last(SET_DATA);
        assertArrayEquals(touch.data, again.data);
        port.reply(again, rc(Code.OK));
        monitor.stateChanged(ConnectionState.SUSPENDED);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(2, port.count(SET_DATA), "a notice that landed is not sent again");
    }

    /**
     * A grant notice lost once the client is connected on a new session, before that news
     * reached the lease, is not sent on the new session: the node belongs to the old one, and
     * the lease is lost with it.
     */
    @Test
    void aGrantNoticeLostOnceANewSessionIsConnectedIsNotSentAgain() {
        base.announceGrant(OWNER);
        Call touch = port.last(SET_DATA);
        port.connected = false;
        monitor.stateChanged(ConnectionState.SUSPENDED);
        port.sessionId = SESSION + 1;
        port.connected = true;
        port.reply(touch, rc(Code.CONNECTIONLOSS));
        assertEquals(1, port.count(SET_DATA), "a notice was sent on another session");
        monitor.stateChanged(ConnectionState.LOST);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        assertEquals(LeaseState.LOST, base.state());
        assertEquals(1, port.count(SET_DATA), "a notice was sent for a lost lease");
    }

    /**
     * The base of a view, delegating to a real lease, whose first state() read on the armed
     * thread makes the real lease LOST on another thread before it returns what it read: it
     * waits until that thread is done, or blocked (on the view's monitor, if the view holds it).
     */
    private static final class LosingOnRead implements Lease {
        private final ZkLease lease;
        private volatile Thread armed;
        volatile Thread loser = new Thread(() -> { });

        LosingOnRead(ZkLease lease) {
            this.lease = lease;
        }

        @Override
        public org.apache.curator.framework.api.transaction.CuratorOp guard() {
            return lease.guard();
        }

        void armFor(Thread thread) {
            armed = thread;
        }

        @Override
        public LeaseState state() {
            LeaseState read = lease.state();
            if (armed == Thread.currentThread()) {
                armed = null;
                loser = new Thread(lease::lose, "loser");
                loser.start();
                Await.until("the loss ran or waits", SHORT,
                        () -> loser.getState() == Thread.State.TERMINATED || loser.getState() == Thread.State.BLOCKED);
            }
            return read;
        }

        @Override
        public String nodePath() {
            return lease.nodePath();
        }

        @Override
        public long fencingToken() {
            return lease.fencingToken();
        }

        @Override
        public boolean isValid() {
            return state() == LeaseState.HELD;
        }

        @Override
        public void addListener(LeaseListener listener) {
            lease.addListener(listener);
        }

        @Override
        public void onRevocationRequested(Consumer<? super Lease> handler) {
            lease.onRevocationRequested(handler);
        }

        @Override
        public void close() {
            lease.close();
        }
    }

    /** A hold whose other views stay open: no view's close is the last. */
    private static final class OpenHold extends HoldLease.Base {
        OpenHold(Lease lease) {
            super(lease);
        }

        @Override
        protected boolean closeOne() {
            return false;
        }
    }
}
