package io.zklock.conformance.properties;

import static io.zklock.conformance.harness.ConformanceSupport.LONG;
import static io.zklock.conformance.harness.ConformanceSupport.firstGranted;
import static io.zklock.conformance.harness.ConformanceSupport.indexes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.zklock.conformance.harness.PropertyTry;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.testing.Await;
import io.zklock.testing.FencedResource;
import io.zklock.testing.Sessions;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;


/**
 * The properties of a recipe whose holder excludes every other (mutex, write lock,
 * multi-lock), kept besides those of {@link LockPromises} that every recipe keeps: fencing
 * tokens of successive holders increase, grants follow the queue exactly, and a holder whose
 * session expired is fenced out. Nothing here assumes re-entry ({@link ReentrantPromises}).
 */
public interface ExclusivePromises extends PropertyTry {

    /** The recipe under test: the factory of the locks each property judges. */
    Recipe recipe();

    /**
     * Fencing: for an exclusive recipe, the tokens of successive holders strictly increase,
     * whatever mix of blocking, timed and asynchronous acquisitions produced them.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    default void fencingTokensStrictlyIncreaseAcrossSuccessiveHolders(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @Size(min = 2, max = 8) List<@IntRange(min = 0, max = 2) Integer> styles) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(sessions);
        List<Long> tokensInGrantOrder = Collections.synchronizedList(new ArrayList<>());
        runThreads(styles.size(), t -> {
            DistributedLock lock = locks.get(t % sessions);
            Lease lease = switch (styles.get(t)) {
                case 0 -> lock.acquire();
                case 1 -> lock.tryAcquire(LONG).orElseThrow();
                default -> lock.acquireAsync(LONG).get(LONG.toSeconds(), TimeUnit.SECONDS);
            };
            try (lease) {
                tokensInGrantOrder.add(lease.fencingToken());
            }
        });
        assertEquals(styles.size(), tokensInGrantOrder.size());
        for (int i = 1; i < tokensInGrantOrder.size(); i++) {
            assertTrue(tokensInGrantOrder.get(i - 1) < tokensInGrantOrder.get(i), "tokens in grant order " + tokensInGrantOrder);
        }
        assertClean();
    }

    /**
     * Session expiry: a held lease turns LOST and tells its listener; the next holder's token
     * is larger, so the fenced resource refuses the old holder; closing the lost lease is a
     * no-op, and the old client can acquire again on its new session.
     */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    default void sessionExpiryLosesTheLeaseAndTheNextHolderFencesItOut(
            @ForAll @IntRange(min = 0, max = 3) int waitersOnOtherSessions) throws Exception {
        List<DistributedLock> locks = locksOnNewSessions(1 + Math.max(1, waitersOnOtherSessions));
        FencedResource resource = new FencedResource(1, true);
        Lease old = locks.get(0).acquire();
        List<LeaseState> told = new CopyOnWriteArrayList<>();
        old.addListener((lease, state) -> told.add(state));
        assertTrue(resource.enter(old.fencingToken()));
        resource.exit(old.fencingToken());
        List<CompletableFuture<Lease>> next = new ArrayList<>();
        for (int i = 1; i < locks.size(); i++) {
            next.add(locks.get(i).acquireAsync(LONG));
        }
        Await.equal("waiters queued", locks.size(), LONG, this::lockNodes);

        Sessions.expire(clients().get(0), zk().connectString());

        Lease successor = firstGranted(next);
        assertTrue(successor.fencingToken() > old.fencingToken(), "successor token larger");
        Await.until("the old lease is LOST", LONG, () -> old.state() == LeaseState.LOST);
        Await.until("listener told LOST", LONG, () -> told.contains(LeaseState.LOST));
        assertFalse(told.contains(LeaseState.RELEASED), "states told " + told);
        assertFalse(old.isValid());
        assertTrue(resource.enter(successor.fencingToken()));
        resource.exit(successor.fencingToken());
        assertFalse(resource.enter(old.fencingToken()), "stale holder refused");
        old.close();
        assertEquals(LeaseState.LOST, old.state());
        successor.close();
        while (!next.isEmpty()) {
            firstGranted(next).close();
        }
        try (Lease again = locks.get(0).tryAcquire(LONG).orElseThrow()) {
            assertTrue(again.fencingToken() > successor.fencingToken(), "token after re-acquire");
        }
        assertClean();
    }

    /**
     * FIFO: waiters queued one after another behind a holder are granted in the order they
     * queued, which is the order of their nodes' sequence numbers.
     */
    @Property(tries = 6, shrinking = ShrinkingMode.BOUNDED)
    default void grantsFollowQueueOrder(
            @ForAll @IntRange(min = 1, max = 3) int sessions,
            @ForAll @IntRange(min = 2, max = 6) int waiters) throws Exception {
        Granted granted = queueBehindHoldersAndRelease(sessions, waiters);
        List<Long> sortedSequences = new ArrayList<>(granted.sequences());
        Collections.sort(sortedSequences);
        assertEquals(indexes(waiters), granted.order(), "grant order of waiters queued 0.." + (waiters - 1));
        assertEquals(sortedSequences, granted.sequences(), "sequence numbers in grant order");
        assertClean();
    }
}
