package io.zklock.core.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockException;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockKind;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The observer SPI against a real server: what an acquisition reports (requests counted at the
 * engine's door to ZooKeeper, the queue it found, its outcome), what a lease reports, and that
 * installing, uninstalling and a throwing observer never change a lock.
 */
class LockObserversTest extends EmbeddedServerTest {
    private static final RecipeDescriptor MUTEX = new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1);
    private final Recorder recorder = new Recorder();
    private final LockObservers.Installation installation = LockObservers.install(recorder);

    @AfterEach
    void uninstall() {
        installation.close();
    }

    /** Events of this test's lock only: another test's late release must not count here. */
    private static final class Recorder implements LockObserver {
        final List<AcquireEvent> acquires = new CopyOnWriteArrayList<>();
        final List<LeaseEvent> leases = new CopyOnWriteArrayList<>();

        @Override
        public void acquireEnded(AcquireEvent event) {
            if (event.path().startsWith("/observed")) {
                acquires.add(event);
            }
        }

        @Override
        public void leaseChanged(LeaseEvent event) {
            if (event.path().startsWith("/observed")) {
                leases.add(event);
            }
        }
    }

    private LockEngine mutex(String path) {
        return new LockEngine(client, path, MUTEX);
    }

    /** An uncontended acquire issues 2 requests (create, list); the same client's re-acquire of a lock nobody else touched, 1 (the inferring transaction). */
    @Test
    void uncontendedAcquireIsTwoRequestsAndReacquireByInferenceIsOne() throws Exception {
        new LockEngine(other, "/observed/a", MUTEX).acquire().close();   // makes the directory
        recorder.acquires.clear();
        LockEngine engine = mutex("/observed/a");
        engine.acquire().close();
        engine.acquire().close();

        assertEquals(2, recorder.acquires.size(), "acquire events: " + recorder.acquires);
        LockObserver.AcquireEvent first = recorder.acquires.get(0);
        assertEquals(new LockObserver.AcquireEvent("/observed/a", "lock", LockObserver.Outcome.GRANTED,
                first.waitNanos(), 2, 0), first);
        assertTrue(first.waitNanos() > 0, "wait time " + first.waitNanos());
        assertEquals(1, recorder.acquires.get(1).requests(), "requests of the inferred re-acquire");
        assertEquals(0, recorder.acquires.get(1).queueLength());
    }

    /** A waiter behind one holder sees a queue of 1 and pays create, list, watch, and one list after the holder's release. */
    @Test
    void waiterBehindOneHolderSeesQueueOfOneAndFourRequests() throws Exception {
        Lease held = new LockEngine(other, "/observed/q", MUTEX).acquire();
        CompletableFuture<Lease> waiter = mutex("/observed/q").acquireAsync(Duration.ofMinutes(1));
        Await.until("the waiter's node is queued", LONG, () -> ZkTesting.lockNodesBelow(client, "/observed/q").size() == 2);
        held.close();
        waiter.get().close();

        LockObserver.AcquireEvent waited = recorder.acquires.get(recorder.acquires.size() - 1);
        assertEquals(LockObserver.Outcome.GRANTED, waited.outcome());
        assertEquals(1, waited.queueLength(), "nodes ahead at the first decision");
        assertEquals(4, waited.requests(), "create, list, watch, list");
    }

    /** A timeout, a cancel, an interrupt and a closed client each end with their own outcome, never taken for another. */
    @Test
    void outcomesOfTimeoutCancelInterruptAndClosedClient() throws Exception {
        Lease held = new LockEngine(other, "/observed/o", MUTEX).acquire();
        recorder.acquires.clear();
        LockEngine engine = mutex("/observed/o");

        assertTrue(engine.tryAcquire(Duration.ofMillis(200)).isEmpty());
        assertTrue(engine.tryAcquire(Duration.ZERO).isEmpty());
        CompletableFuture<Lease> cancelled = engine.acquireAsync(Duration.ofMinutes(1));
        Await.until("the async waiter is queued", LONG, () -> ZkTesting.lockNodesBelow(client, "/observed/o").size() == 2);
        cancelled.cancel(true);
        Await.equal("acquire events", 3, LONG, recorder.acquires::size);

        CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
        Thread blocked = new Thread(() -> {
            try {
                engine.acquire().close();
                interrupted.complete(null);
            } catch (Throwable e) {
                interrupted.complete(e);
            }
        });
        blocked.start();
        Await.until("the blocked waiter is queued", LONG, () -> ZkTesting.lockNodesBelow(client, "/observed/o").size() == 2);
        blocked.interrupt();
        assertTrue(interrupted.get() instanceof InterruptedException, "the blocked acquire ended with " + interrupted.get());
        Await.equal("acquire events", 4, LONG, recorder.acquires::size);

        CompletableFuture<Lease> closing = engine.acquireAsync(Duration.ofMinutes(1));
        Await.until("the last waiter is queued", LONG, () -> ZkTesting.lockNodesBelow(other, "/observed/o").size() == 2);
        client.close();
        assertThrows(Exception.class, closing::join);
        assertThrows(LockException.class, engine::acquire);   // refused at the door
        held.close();

        assertEquals(List.of(LockObserver.Outcome.TIMED_OUT, LockObserver.Outcome.TIMED_OUT, LockObserver.Outcome.CANCELLED,
                LockObserver.Outcome.CANCELLED, LockObserver.Outcome.FAILED, LockObserver.Outcome.FAILED),
                recorder.acquires.stream().map(LockObserver.AcquireEvent::outcome).toList());
        assertTrue(recorder.acquires.get(0).waitNanos() >= Duration.ofMillis(200).toNanos(), "the timeout's wait");
        assertEquals(0, recorder.acquires.get(5).requests(), "a request refused at the door issues none");
    }

    /** A lease reports its release with the time it was held, and its loss when its session expires. */
    @Test
    void leaseReportsReleaseWithHoldTimeAndLoss() throws Exception {
        LockEngine engine = mutex("/observed/l");
        Lease lease = engine.acquire();
        Thread.sleep(50);
        lease.close();
        Await.equal("lease events", 1, LONG, recorder.leases::size);
        LockObserver.LeaseEvent released = recorder.leases.get(0);
        assertEquals(LeaseState.RELEASED, released.state());
        assertEquals("lock", released.mode());
        assertTrue(released.heldNanos() >= Duration.ofMillis(50).toNanos(), "held " + released.heldNanos());

        Lease doomed = engine.acquire();
        Sessions.expire(client, server.getConnectString());
        Await.until("the lease is lost", LONG, () -> doomed.state() == LeaseState.LOST);
        Await.until("the loss is reported", LONG, () -> recorder.leases.stream().anyMatch(e -> e.state() == LeaseState.LOST));
    }

    /** An uninstalled observer hears nothing more; a throwing one is ignored, and the observers after it still hear every event. */
    @Test
    void uninstalledHearsNothingAndThrowingObserverBreaksNothing() throws Exception {
        LockObservers.Installation thrower = LockObservers.install(new LockObserver() {
            @Override
            public void acquireEnded(AcquireEvent event) {
                throw new IllegalStateException("observer bug, on purpose");
            }

            @Override
            public void leaseChanged(LeaseEvent event) {
                throw new IllegalStateException("observer bug, on purpose");
            }
        });
        Recorder after = new Recorder();
        LockObservers.Installation second = LockObservers.install(after);
        LockEngine engine = mutex("/observed/t");
        try {
            Lease lease = engine.acquire();
            assertTrue(lease.isValid());
            lease.close();
            Await.until("the release is reported", LONG, () -> after.leases.size() == 1);
            assertEquals(1, after.acquires.size());
        } finally {
            thrower.close();
            second.close();
        }
        installation.close();
        installation.close();                  // idempotent
        engine.acquire().close();
        assertEquals(1, recorder.acquires.size(), "an uninstalled observer heard an acquisition");
        assertEquals(1, after.acquires.size(), "an uninstalled observer heard an acquisition");
        assertFalse(LockObservers.active(), "observers left installed");
    }

    /**
     * A node kind reports under the mode its recipe module's LockKind names; with no recipe
     * module on core's own class path, every kind is its own mode (the recipes' modes are
     * checked where the recipes are: MetricsExampleTest in micrometer).
     */
    @Test
    void aKindNoInstalledRecipeOwnsIsItsOwnMode() {
        assertEquals(List.of(), LockKind.installed());
        assertEquals("lock", LockObservers.modeOf("lock"));
        assertEquals("sem12", LockObservers.modeOf("sem12"));
        assertEquals("barrier", LockObservers.modeOf("barrier"));
    }
}
