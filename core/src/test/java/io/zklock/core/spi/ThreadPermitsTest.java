package io.zklock.core.spi;

import static io.zklock.core.internal.zk.ScriptedPort.Kind.DELETE;
import static io.zklock.core.internal.zk.ScriptedPort.rc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.lease.ZkLease;
import io.zklock.core.internal.zk.ScriptedPort;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNodeTest;
import io.zklock.testing.Await;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * {@link ThreadPermits} on a {@link ScriptedPort}: a permit tracked while another permit of the
 * same thread is closed elsewhere is not forgotten.
 */
class ThreadPermitsTest {
    private static final long SESSION = 0x5e55;
    private static final String DIR = "/locks/p";
    private static final Duration SHORT = Duration.ofSeconds(10);

    private final ScriptedPort port = new ScriptedPort(SESSION);
    private final SessionMonitor monitor = SessionMonitor.detached(() -> port.sessionId);
    private final LockContext context = LockContext.of(null, monitor, port, DIR, "lock", "lock-", LockDriver.EXCLUSIVE, 1);
    private final ThreadPermits permits = new ThreadPermits();

    private ZkLease lease(int sequence) {
        return new ZkLease(context, DIR + "/" + LockNodeTest.curatorName("0f8fad5b-d9cb-469f-a165-70867728950e", "lock", sequence),
                sequence, SESSION);
    }

    /**
     * The thread's only other permit is closed, on another thread, at the very instant a new
     * permit is being tracked (after track() began, before it returned): the thread still
     * holds the new permit. Tracking once added to the thread's set outside the map's update,
     * so a close that emptied and dropped that set meanwhile took the new permit with it.
     */
    @Test
    void aPermitTrackedWhileTheThreadsLastOtherPermitClosesIsHeld() {
        Lease first = permits.track(lease(1));
        assertTrue(permits.heldByCurrentThread());
        ClosingOnRead second = new ClosingOnRead(lease(2), first);
        Lease tracked = permits.track(second);
        assertTrue(second.closed, "the other permit was closed during track()");
        assertEquals(LeaseState.RELEASED, first.state());
        assertEquals(LeaseState.HELD, tracked.state());
        assertTrue(permits.heldByCurrentThread(), "the thread holds a permit, but the semaphore says it holds none");
        port.connected = false;                // the close below does not wait for its delete
        tracked.close();
        assertFalse(permits.heldByCurrentThread(), "a closed permit is still counted");
    }

    /**
     * A permit's engine lease whose first state() read, made on the tracking thread by
     * track() itself, first closes {@code other} on another thread and answers its delete.
     */
    private final class ClosingOnRead implements Lease {
        private final ZkLease lease;
        private final Lease other;
        private boolean armed = true;
        volatile boolean closed;

        ClosingOnRead(ZkLease lease, Lease other) {
            this.lease = lease;
            this.other = other;
        }

        @Override
        public LeaseState state() {
            if (armed) {
                armed = false;
                Thread closer = new Thread(other::close, "closer");
                closer.start();
                Await.until("the other permit's delete is sent", SHORT, () -> port.count(DELETE) == 1);
                port.reply(port.last(DELETE), rc(Code.OK));
                try {
                    closer.join(SHORT.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
                closed = !closer.isAlive();
            }
            return lease.state();
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
        public CuratorOp guard() {
            return lease.guard();
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
}
