package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.zklock.conformance.harness.PropertyTry;
import io.zklock.conformance.harness.Recipe;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;


/**
 * The properties of a recipe whose blocking acquisitions re-enter (mutex, read lock, write
 * lock, multi-lock; not the semaphore, whose every lease is a permit), kept besides those of
 * {@link LockPromises} that every recipe keeps.
 */
public interface ReentrantPromises extends PropertyTry {

    /** The recipe under test: the factory of the locks each property judges. */
    Recipe recipe();

    /**
     * Re-entry: nested blocking acquisitions by one thread share one node and one token; the
     * node outlives every close but the last, whatever the order the leases are closed in and
     * whichever thread closes them, and is deleted at the last.
     */
    @Property(tries = 8, shrinking = ShrinkingMode.BOUNDED)
    default void reentryKeepsOneNodeAndDeletesItAtTheLastClose(
            @ForAll("closeOrders") List<Integer> closeOrder,
            @ForAll boolean closeOnAnotherThread) throws Exception {
        DistributedLock lock = locksOnNewSessions(1).get(0);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < closeOrder.size(); i++) {
            leases.add(i % 2 == 0 ? lock.acquire() : lock.tryAcquire(Duration.ZERO).orElseThrow());
        }
        for (Lease lease : leases) {
            assertEquals(leases.get(0).nodePath(), lease.nodePath(), "re-entered node");
            assertEquals(leases.get(0).fencingToken(), lease.fencingToken(), "re-entered token");
        }
        assertEquals(1, lockNodes(), "nodes while re-entered " + leases.size() + " times");
        for (int k = 0; k < closeOrder.size(); k++) {
            Lease lease = leases.get(closeOrder.get(k));
            if (closeOnAnotherThread) {
                joinAll(List.of(start("closer", lease::close)));
            } else {
                lease.close();
            }
            assertEquals(LeaseState.RELEASED, lease.state());
            boolean last = k == closeOrder.size() - 1;
            assertEquals(last && !recipe().cached() ? 0 : 1, lockNodes(), "nodes after close " + (k + 1) + " of " + closeOrder.size()
                    + (recipe().cached() ? " (a cached node stays after the last)" : ""));
            assertEquals(!last, lock.isHeldByCurrentThread(), "held after close " + (k + 1));
        }
        assertClean();
    }

    /**
     * As {@link LockPromises#closeWhileCutOffIsNotReleasedUntilTheNodeIsGone}, for the last of several
     * re-entered leases of a reentrant recipe: closing the others first releases nothing.
     */
    @Example
    default void lastReenteredCloseWhileCutOffIsNotReleasedUntilTheNodeIsGone() throws Exception {
        closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone((client, p) -> {
            DistributedLock lock = recipe().create(client, p);
            Lease first = lock.acquire();
            Lease second = lock.acquire();
            first.close();
            assertEquals(LeaseState.RELEASED, first.state(), "an inner close while the thread still holds");
            assertTrue(lock.isHeldByCurrentThread(), "held through the second lease");
            return second;
        });
    }

    @Provide
    default Arbitrary<List<Integer>> closeOrders() {
        return Arbitraries.integers().between(1, 5).flatMap(n -> {
            List<Integer> indexes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                indexes.add(i);
            }
            return Arbitraries.shuffle(indexes);
        });
    }

}
