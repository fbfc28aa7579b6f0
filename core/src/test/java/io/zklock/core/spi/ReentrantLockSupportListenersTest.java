package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** What a long re-entered hold keeps on its base lease, against a real server. */
class ReentrantLockSupportListenersTest {
    private static final int REENTRIES = 1_000;

    /**
     * A hold re-entered many times, each lease given a listener and closed, adds one listener
     * to its base lease, not one per lease; the lease left open still hears the base: its
     * close releases the node, and it is told RELEASED.
     */
    @Test
    void reentriesWithListenersAddOneListenerToTheBase() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 20_000)) {
            LockEngine engine = new LockEngine(client, "/h/listeners", new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1));
            ReentrantLockSupport lock = new ReentrantLockSupport(engine);
            CountingListeners base = new CountingListeners(engine.acquire());
            Lease first = lock.adopt(base);
            List<LeaseState> firstHeard = new CopyOnWriteArrayList<>();
            first.addListener((l, state) -> firstHeard.add(state));

            List<LeaseState> othersHeard = new CopyOnWriteArrayList<>();
            for (int i = 0; i < REENTRIES; i++) {
                Lease again = lock.acquire();
                again.addListener((l, state) -> othersHeard.add(state));
                again.close();
                assertEquals(LeaseState.RELEASED, again.state());
            }
            assertEquals(REENTRIES, othersHeard.size(), "each closed lease hears its own RELEASED");
            assertEquals(1, base.added.get(), "listeners on the base after " + REENTRIES + " re-entries");

            first.close();
            Await.until("the last lease is told RELEASED", Duration.ofSeconds(10), () -> firstHeard.contains(LeaseState.RELEASED));
            assertEquals(List.of(LeaseState.RELEASED), firstHeard);
            assertEquals(REENTRIES, othersHeard.size(), "a closed lease heard the base");
            assertEquals(List.of(), ZkTesting.children(client, "/h/listeners"));
        }
    }

    /** An engine's lease that counts the listeners added to it. */
    private static final class CountingListeners implements Lease {
        private final Lease lease;
        final AtomicInteger added = new AtomicInteger();

        CountingListeners(Lease lease) {
            this.lease = lease;
        }

        @Override
        public void addListener(LeaseListener listener) {
            added.incrementAndGet();
            lease.addListener(listener);
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
        public LeaseState state() {
            return lease.state();
        }

        @Override
        public boolean isValid() {
            return lease.isValid();
        }

        @Override
        public void onRevocationRequested(Consumer<? super Lease> handler) {
            lease.onRevocationRequested(handler);
        }

        @Override
        public CuratorOp guard() {
            return lease.guard();
        }

        @Override
        public void close() {
            lease.close();
        }
    }
}
