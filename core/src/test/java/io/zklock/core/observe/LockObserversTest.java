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

    /** A waiter behind one holder of another client sees a queue of 1 and pays create, list and watch: the holder's deletion grants it. */
    @Test
    void waiterBehindOneHolderSeesQueueOfOneAndThreeRequests() throws Exception {
        Lease held = new LockEngine(other, "/observed/q", MUTEX).acquire();
        CompletableFuture<Lease> waiter = mutex("/observed/q").acquireAsync(Duration.ofMinutes(1));
        Await.until("the waiter's node is queued", LONG, () -> ZkTesting.lockNodesBelow(client, "/observed/q").size() == 2);
        held.close();
        waiter.get().close();

        LockObserver.AcquireEvent waited = recorder.acquires.get(recorder.acquires.size() - 1);
        assertEquals(LockObserver.Outcome.GRANTED, waited.outcome());
        assertEquals(1, waited.queueLength(), "nodes ahead at the first decision");
        assertEquals(3, waited.requests(), "create, list, watch");
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

    /**
     * An observer installed for one client hears that client's locks only: requests on another
     * client's locks (another application's, in the same JVM) reach it neither at their start
     * nor at their end, nor do their leases.
     */
    @Test
    void anObserverOfOneClientHearsOnlyThatClientsLocks() throws Exception {
        Recorder mine = new Recorder();
        Recorder theirs = new Recorder();
        try (LockObservers.Installation a = LockObservers.install(client, mine);
                LockObservers.Installation b = LockObservers.install(other, theirs)) {
            mutex("/observed/scoped").acquire().close();
            new LockEngine(other, "/observed/scoped", MUTEX).acquire().close();
            new LockEngine(other, "/observed/scoped", MUTEX).acquire().close();
            Await.until("the releases are reported", LONG, () -> mine.leases.size() == 1 && theirs.leases.size() == 2);
        }
        assertEquals(1, mine.acquires.size(), "acquisitions heard by the client's observer: " + mine.acquires);
        assertEquals(2, theirs.acquires.size(), "acquisitions heard by the other client's observer: " + theirs.acquires);
        assertEquals(3, recorder.acquires.size(), "the observer of every client hears both");
        assertThrows(IllegalArgumentException.class, () -> LockObservers.install(null, new Recorder()));
    }

    /**
     * A waiter followed by an observer, in a client whose tree watch covers the lock's root
     * already (the client keeps a cached node beside the lock), still reads the node ahead, which
     * is not cached: its follower hears whom it waits behind, which only that read tells (an
     * unfollowed waiter there listens through the tree watch instead, and reads nothing).
     */
    @Test
    void aFollowedWaiterReadsTheNodeAheadWhereItsClientCouldListen() throws Exception {
        LockEngine kept = new LockEngine(client, "/observed/covered/kept", MUTEX,
                io.zklock.core.LeaseCaching.keepIdleFor(Duration.ofHours(1)));
        kept.acquire().close();                  // kept idle: the client's tree watch covers /observed/covered
        List<LockObserver.WaitedNode> waitedFor = new CopyOnWriteArrayList<>();
        LockObserver following = new LockObserver() {
            @Override
            public RequestObserver acquireStarted(AcquireStart start) {
                return new RequestObserver() {
                    @Override
                    public void waitsBehind(WaitedNode node) {
                        waitedFor.add(node);
                    }
                };
            }
        };
        Lease held = new LockEngine(other, "/observed/covered/lock", MUTEX).acquire();
        try (LockObservers.Installation i = LockObservers.install(client, following)) {
            CompletableFuture<Lease> waiter = mutex("/observed/covered/lock").acquireAsync(Duration.ofMinutes(1));
            Await.until("the waiter's follower hears whom it waits behind", LONG, () -> waitedFor.size() == 1);
            assertEquals(held.nodePath(), waitedFor.get(0).nodePath());
            held.close();
            waiter.get().close();
        } finally {
            held.close();
            kept.releaseCachedNodes();
        }
    }

    /**
     * A request's start is told on the caller's thread; its follower's trace id goes into its
     * node's owner data with the create; a waiter's follower hears whom it waits behind (the
     * holder's thread and that trace id, from the watch's reply); grant and release are paired,
     * and the follower hears the end, the grant and the release of its own request.
     */
    @Test
    void aFollowerHearsItsRequestOnTheCallersThreadAndTheHoldersTrace() throws Exception {
        List<String> startThreads = new CopyOnWriteArrayList<>();
        List<LockObserver.WaitedNode> waitedFor = new CopyOnWriteArrayList<>();
        List<String> followed = new CopyOnWriteArrayList<>();
        List<LockObserver.LeaseEvent> granted = new CopyOnWriteArrayList<>();
        LockObserver tracing = new LockObserver() {
            @Override
            public RequestObserver acquireStarted(AcquireStart start) {
                startThreads.add(Thread.currentThread().getName());
                String trace = Thread.currentThread().getName().equals("holder") ? "4bf92f3577b34da6a3ce929d0e0e4736" : null;
                return new RequestObserver() {
                    @Override
                    public String traceId() {
                        return trace;
                    }

                    @Override
                    public void waitsBehind(WaitedNode node) {
                        waitedFor.add(node);
                    }

                    @Override
                    public void ended(AcquireEvent event) {
                        followed.add("ended " + event.outcome());
                    }

                    @Override
                    public void leaseGranted(LeaseEvent event) {
                        followed.add("granted " + event.path());
                    }

                    @Override
                    public void leaseChanged(LeaseEvent event) {
                        followed.add(event.state().name());
                    }
                };
            }

            @Override
            public void leaseGranted(LeaseEvent event) {
                granted.add(event);
            }
        };
        try (LockObservers.Installation i = LockObservers.install(client, tracing)) {
            CompletableFuture<Lease> holding = new CompletableFuture<>();
            Thread holder = new Thread(() -> {
                try {
                    holding.complete(mutex("/observed/traced").acquire());
                } catch (Throwable t) {
                    holding.completeExceptionally(t);
                }
            }, "holder");
            holder.start();
            Lease held = holding.get();
            String holderNode = held.nodePath();
            byte[] data = client.getData().forPath(holderNode);
            assertTrue(new String(data, java.nio.charset.StandardCharsets.UTF_8).contains("trace=4bf92f3577b34da6a3ce929d0e0e4736\n"),
                    "the holder's owner data: " + new String(data, java.nio.charset.StandardCharsets.UTF_8));

            CompletableFuture<Lease> waiter = mutex("/observed/traced").acquireAsync(Duration.ofMinutes(1));
            Await.until("the waiter watches the holder", LONG, () -> waitedFor.size() == 1);
            LockObserver.WaitedNode behind = waitedFor.get(0);
            assertEquals(holderNode, behind.nodePath());
            assertEquals("holder", behind.owner().thread());
            assertEquals(ProcessHandle.current().pid(), behind.owner().pid());
            assertEquals(java.util.Optional.of("4bf92f3577b34da6a3ce929d0e0e4736"), behind.traceId());
            held.close();
            Lease second = waiter.get();
            assertFalse(new String(client.getData().forPath(second.nodePath()), java.nio.charset.StandardCharsets.UTF_8).contains("trace="),
                    "a request without a trace writes no trace line");
            second.close();
            Await.until("both releases are told", LONG, () -> followed.stream().filter("RELEASED"::equals).count() == 2);
        }
        assertEquals(List.of("holder", Thread.currentThread().getName()), startThreads, "threads the starts were told on");
        assertEquals(2, granted.size(), "grants: " + granted);
        assertEquals(new LockObserver.LeaseEvent("/observed/traced", "lock", LeaseState.HELD, 0), granted.get(0));
        assertEquals(List.of("granted /observed/traced", "ended GRANTED", "RELEASED"), followed.subList(0, 3));
    }
}
