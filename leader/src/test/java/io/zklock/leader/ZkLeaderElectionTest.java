package io.zklock.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.zklock.core.LeaseState;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockDelay;
import io.zklock.core.LockOptions;
import io.zklock.core.LockStatus;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ZkLeaderElection} on a real server: leading, stepping down, observing, and what a session's end does. */
class ZkLeaderElectionTest extends EmbeddedServerTest {
    private static final String PATH = "/elections/e";

    /**
     * An election built with a validity margin of its own keeps it in its leaderships'
     * validFor(), where one built without keeps the client's; options an election does not
     * take are refused by name.
     */
    @Test
    void aValidityMarginOfItsOwnIsKeptByItsLeaderships() throws Exception {
        LockOptions wide = LockOptions.defaults().withValidityMargin(Duration.ofSeconds(15), 0.05);
        int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        long most = negotiated - 15_000 - (long) (0.05 * negotiated);
        try (Leadership lead = new ZkLeaderElection(client, PATH, "a", wide).awaitLeadership()) {
            long valid = lead.validFor().toMillis();
            assertTrue(valid > 0 && valid <= most, "validFor " + valid + " ms with the wide margin, at most " + most);
        }
        try (Leadership usual = new ZkLeaderElection(client, PATH, "b").awaitLeadership()) {
            assertTrue(usual.validFor().toMillis() > most, "the client's margin is narrower: " + usual.validFor());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ZkLeaderElection(client, PATH, "c",
                LockOptions.defaults().withLockDelay(LockDelay.of(Duration.ofSeconds(1)))));
        assertTrue(e.getMessage().contains("validity margin only"), e.getMessage());
    }

    /** The first candidate leads; its epoch is its node's czxid; observers see it, the queue in order, and status an election. */
    @Test
    void firstCandidateLeadsAndObserversSeeTheQueue() throws Exception {
        ZkLeaderElection a = new ZkLeaderElection(client, PATH, "a");
        ZkLeaderElection b = new ZkLeaderElection(other, PATH, "b");
        Leadership lead = a.awaitLeadership();
        CompletableFuture<Leadership> next = b.leadershipAsync();
        Await.until("b queued", LONG, () -> ZkTesting.children(client, PATH).size() == 2);

        assertEquals(LeaseState.HELD, lead.state());
        assertEquals(client.checkExists().forPath(lead.nodePath()).getCzxid(), lead.epoch());
        assertEquals(lead.fencingToken(), lead.epoch());
        assertEquals("a", lead.participantId());
        assertTrue(a.isLeader());
        assertTrue(a.isHeldByCurrentThread());
        assertFalse(b.isLeader());
        LeaderInfo leader = b.currentLeader().orElseThrow();
        assertEquals("a", leader.participantId());
        assertEquals(lead.epoch(), leader.epoch());
        assertEquals(lead.nodePath(), leader.nodePath());
        assertEquals(List.of("a", "b"), b.participants());
        LockStatus status = new LockAdmin(other).status(PATH);
        assertEquals("leader", status.recipe());
        assertEquals("candidate", status.participants().get(0).mode());
        assertEquals(Optional.of("a"), status.participants().get(0).participantId());
        assertTrue(status.participants().get(0).holding());
        assertFalse(status.participants().get(1).holding());

        lead.close();
        Leadership second = next.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertTrue(second.epoch() > lead.epoch(), "a later leader's epoch is larger");
        assertEquals("b", b.currentLeader().orElseThrow().participantId());
        second.close();
        assertEquals(Optional.empty(), a.currentLeader());
        assertEquals(List.of(), ZkTesting.children(client, PATH));
    }

    /** On a path nobody made yet (an observer that starts before any candidate), nobody leads and nobody is queued. */
    @Test
    void aPathNobodyMadeHasNoLeaderAndNoCandidates() {
        ZkLeaderElection observer = new ZkLeaderElection(client, "/elections/never-made", "observer");
        assertEquals(Optional.empty(), observer.currentLeader());
        assertEquals(List.of(), observer.participants());
    }

    /**
     * Candidates lead in the order the server made their nodes, not in the order their calls
     * were made: a create held up on its way (its client frozen) is queued behind one sent later,
     * and its future waits until that one has led.
     */
    @Test
    void candidatesLeadInTheOrderTheServerQueuedThem() throws Exception {
        ZkLeaderElection leader = new ZkLeaderElection(client, PATH, "leader");
        Leadership lead = leader.awaitLeadership();
        try (FaultProxy proxy = FaultProxy.to(server.getConnectString());
                CuratorFramework slow = ZkTesting.client(proxy.connectString(), 10_000)) {
            proxy.freeze();
            CompletableFuture<Leadership> calledFirst = new ZkLeaderElection(slow, PATH, "called-first").leadershipAsync();
            CompletableFuture<Leadership> calledSecond = new ZkLeaderElection(other, PATH, "called-second").leadershipAsync();
            Await.until("the second call's node queued", LONG, () -> ZkTesting.children(client, PATH).size() == 2);
            proxy.heal();
            Await.until("the first call's node queued too", LONG, () -> ZkTesting.children(client, PATH).size() == 3);
            assertEquals(List.of("leader", "called-second", "called-first"), leader.participants());

            lead.close();
            Leadership next = calledSecond.get(LONG.toSeconds(), TimeUnit.SECONDS);
            assertEquals("called-second", next.participantId());
            assertFalse(calledFirst.isDone(), "the first call's candidate waits behind the node made before its own");
            next.close();
            calledFirst.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        }
    }

    /** requeue() hands leadership to the next candidate and puts the participant at the back; alone, it leads again with a larger epoch. */
    @Test
    void requeueHandsOverAndQueuesAtTheBack() throws Exception {
        ZkLeaderElection a = new ZkLeaderElection(client, PATH, "a");
        ZkLeaderElection b = new ZkLeaderElection(other, PATH, "b");
        Leadership first = a.awaitLeadership();
        CompletableFuture<Leadership> bLeads = b.leadershipAsync();
        Await.until("b queued", LONG, () -> ZkTesting.children(client, PATH).size() == 2);

        CompletableFuture<Leadership> aAgain = first.requeue();
        Leadership bLead = bLeads.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertEquals(LeaseState.RELEASED, first.state());
        Await.until("a queued again", LONG, () -> b.participants().equals(List.of("b", "a")));
        assertFalse(aAgain.isDone());

        CompletableFuture<Leadership> bAgain = bLead.requeue();
        Leadership aLead = aAgain.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertTrue(aLead.epoch() > bLead.epoch() && bLead.epoch() > first.epoch());
        bAgain.cancel(false);
        aLead.close();
        Await.until("no node left", LONG, () -> ZkTesting.children(client, PATH).isEmpty());
    }

    /** A leader whose session expires turns LOST; the next candidate leads with a larger epoch. */
    @Test
    void expiredLeaderIsLostAndTheNextLeads() throws Exception {
        ZkLeaderElection a = new ZkLeaderElection(client, PATH, "a");
        ZkLeaderElection b = new ZkLeaderElection(other, PATH, "b");
        Leadership lead = a.awaitLeadership();
        CompletableFuture<Leadership> next = b.leadershipAsync();
        Await.until("b queued", LONG, () -> ZkTesting.children(other, PATH).size() == 2);

        Sessions.expire(client, server.getConnectString());
        Leadership second = next.get(LONG.toSeconds(), TimeUnit.SECONDS);
        Await.equal("old leader lost", LeaseState.LOST, LONG, lead::state);
        assertTrue(second.epoch() > lead.epoch());
        assertFalse(a.isLeader());
        second.close();
    }

    /** run(): the task leads while it runs; a lost leadership interrupts it, and run says so. */
    @Test
    void runInterruptsTheTaskWhenLeadershipIsLost() throws Exception {
        ZkLeaderElection a = new ZkLeaderElection(client, PATH, "a");
        CountDownLatch leading = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        CompletableFuture<Boolean> ran = CompletableFuture.supplyAsync(() -> {
            try {
                return a.run(leadership -> {
                    leading.countDown();
                    try {
                        Thread.sleep(LONG.toMillis());
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                    }
                });
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(leading.await(LONG.toSeconds(), TimeUnit.SECONDS));
        Sessions.expire(client, server.getConnectString());
        assertFalse(ran.get(LONG.toSeconds(), TimeUnit.SECONDS), "run reports the lost leadership");
        assertTrue(interrupted.get(), "the task was interrupted");

        assertTrue(a.run(leadership -> assertTrue(leadership.isValid())), "a task that ends while leading");
        Await.until("no node left", LONG, () -> ZkTesting.children(client, PATH).isEmpty());
    }

    /** Leader changes reach every listener of a client through one watch; closing the last subscription removes it. */
    @Test
    void leaderChangesReachListenersThroughOneWatchPerClient() throws Exception {
        ZkProbe probe = new ZkProbe(server.getPort());
        ZkLeaderElection observer = new ZkLeaderElection(other, PATH, "observer");
        List<Optional<LeaderInfo>> heard1 = new CopyOnWriteArrayList<>();
        List<Optional<LeaderInfo>> heard2 = new CopyOnWriteArrayList<>();
        LeaderSubscription s1 = observer.onLeaderChange(heard1::add);
        Await.equal("nobody leads yet", List.of(Optional.empty()), LONG, () -> List.copyOf(heard1));
        LeaderSubscription s2 = observer.onLeaderChange(heard2::add);
        assertEquals(List.of(Optional.empty()), heard2, "a later listener hears the leader known");

        ZkLeaderElection a = new ZkLeaderElection(client, PATH, "a");
        ZkLeaderElection b = new ZkLeaderElection(client, PATH, "b");
        Leadership aLead = a.awaitLeadership();
        Await.until("a heard", LONG, () -> heard1.size() == 2 && heard2.size() == 2);
        assertEquals("a", heard1.get(1).orElseThrow().participantId());
        assertEquals(aLead.epoch(), heard1.get(1).orElseThrow().epoch());
        CompletableFuture<Leadership> bLeads = b.leadershipAsync();
        Await.until("b queued", LONG, () -> ZkTesting.children(client, PATH).size() == 2);
        Await.equal("the observer's one watch and b's watch of a's node", 2, LONG, probe::watchCount);

        aLead.close();
        Leadership bLead = bLeads.get(LONG.toSeconds(), TimeUnit.SECONDS);
        Await.until("b heard", LONG, () -> heard1.size() == 3 && heard2.size() == 3);
        assertEquals("b", heard1.get(2).orElseThrow().participantId());
        assertEquals(bLead.epoch(), heard2.get(2).orElseThrow().epoch());

        s1.close();
        assertEquals(1, probe.watchCount(), "the watch stays while a listener is left");
        s2.close();
        Await.equal("no watch left", 0, LONG, probe::watchCount);
        bLead.close();
        assertEquals(3, heard1.size());
    }

    /** An observer and a waiting candidate of one client watch the leader's node together: the observer's end leaves the candidate's watch. */
    @Test
    void observersEndLeavesAWaitingCandidatesWatchOfTheSameClient() throws Exception {
        ZkProbe probe = new ZkProbe(server.getPort());
        Leadership lead = new ZkLeaderElection(client, PATH, "a").awaitLeadership();
        ZkLeaderElection b = new ZkLeaderElection(other, PATH, "b");
        CompletableFuture<Leadership> waiting = b.leadershipAsync();
        Await.equal("b watches a's node", 1, LONG, probe::watchCount);
        List<Optional<LeaderInfo>> heard = new CopyOnWriteArrayList<>();
        LeaderSubscription observing = b.onLeaderChange(heard::add);
        Await.until("a heard", LONG, () -> heard.size() == 1);

        observing.close();
        Thread.sleep(200);                     // a removal, if one were sent, lands in this time
        assertEquals(1, probe.watchCount(), "the candidate's watch on a's node is still there");
        lead.close();
        waiting.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
    }

    /** close() steps down, withdraws waiting candidacies and ends subscriptions: no node and no watch are left. */
    @Test
    void closeLeavesNoNodeAndNoWatch() throws Exception {
        ZkProbe probe = new ZkProbe(server.getPort());
        ZkLeaderElection a = new ZkLeaderElection(client, PATH, "a");
        ZkLeaderElection b = new ZkLeaderElection(other, PATH, "b");
        Leadership lead = a.awaitLeadership();
        CompletableFuture<Leadership> waiting = b.leadershipAsync();
        b.onLeaderChange(leader -> { });
        Await.until("b queued", LONG, () -> ZkTesting.children(client, PATH).size() == 2);

        b.close();
        a.close();
        assertTrue(waiting.isCompletedExceptionally());
        Await.equal("released", LeaseState.RELEASED, LONG, lead::state);
        Await.until("no node left", LONG, () -> ZkTesting.children(client, PATH).isEmpty());
        Await.equal("no watch left", 0, LONG, probe::watchCount);
        assertThrows(IllegalStateException.class, a::awaitLeadership);
        assertThrows(IllegalStateException.class, b::leadershipAsync);
        a.close();
    }

    /** Blank, multi-line and over-long participant ids are refused with their value named. */
    @ParameterizedTest
    @ValueSource(strings = {"", " ", "a\nb"})
    void badParticipantIdsAreRefused(String id) {
        assertThrows(IllegalArgumentException.class, () -> new ZkLeaderElection(client, PATH, id));
        assertThrows(IllegalArgumentException.class, () -> new ZkLeaderElection(client, PATH, null));
        assertThrows(IllegalArgumentException.class, () -> new ZkLeaderElection(client, "bad", "a"));
        assertThrows(IllegalArgumentException.class, () -> new ZkLeaderElection(null, PATH, "a"));
    }
}
