package io.zklock.core.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.core.LeaseState;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.ScriptedPort;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNodeTest;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;

/**
 * The order in which a lease's listeners hear its changes when two threads change it at once,
 * on a {@link ScriptedPort}: every listener hears every change once, in the order the lease
 * made them, and what it heard last is what {@code state()} says.
 */
class LeaseListenerOrderTest {
    private static final long SESSION = 0x5e55;
    private static final String DIR = "/locks/o";
    private static final String NODE = DIR + "/" + LockNodeTest.curatorName("6f1c2a57-4a2e-4d56-9a0e-3b8c1f0d2e71", "lock", 5);
    private static final Duration SHORT = Duration.ofSeconds(10);

    private final ScriptedPort port = new ScriptedPort(SESSION);
    private final SessionMonitor monitor = SessionMonitor.detached(() -> port.sessionId);
    private final LockContext context = LockContext.of(null, monitor, port, DIR, "lock", "lock-", LockDriver.EXCLUSIVE, 1);

    /**
     * HELD on reconnection, then LOST made by another thread while the first listener is still
     * being told HELD: the second listener hears HELD before LOST, never LOST then HELD, and
     * the lease ends LOST.
     */
    @Test
    void aChangeMadeWhileAnotherIsBeingToldIsHeardAfterIt() throws InterruptedException {
        ZkLease lease = new ZkLease(context, NODE, 7, SESSION);
        monitor.stateChanged(ConnectionState.SUSPENDED);
        CountDownLatch inFirstListener = new CountDownLatch(1);
        CountDownLatch lostMade = new CountDownLatch(1);
        List<LeaseState> second = new CopyOnWriteArrayList<>();
        lease.addListener((l, state) -> {
            if (state == LeaseState.HELD) {
                inFirstListener.countDown();
                await(lostMade);               // LOST is made on another thread meanwhile
            }
        });
        lease.addListener((l, state) -> second.add(state));

        Thread reconnecting = new Thread(() -> monitor.stateChanged(ConnectionState.RECONNECTED), "reconnecting");
        reconnecting.start();
        assertTrue(inFirstListener.await(SHORT.toMillis(), TimeUnit.MILLISECONDS), "HELD was not told");
        Thread losing = new Thread(lease::lose, "losing");
        losing.start();
        losing.join(SHORT.toMillis());
        assertEquals(LeaseState.LOST, lease.state(), "the loss was not made");
        lostMade.countDown();
        reconnecting.join(SHORT.toMillis());

        assertEquals(List.of(LeaseState.HELD, LeaseState.LOST), second.subList(second.size() - 2, second.size()),
                "the second listener heard " + second);
        assertEquals(lease.state(), second.get(second.size() - 1));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(SHORT.toMillis(), TimeUnit.MILLISECONDS), "timed out");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
