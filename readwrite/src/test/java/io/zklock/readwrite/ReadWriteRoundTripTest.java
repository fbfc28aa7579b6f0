package io.zklock.readwrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.zklock.core.Lease;
import io.zklock.testing.ZkProbe;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * Round trips counted by the server: requests received while one operation runs. Pings count
 * too, so each figure is the least over a few repetitions with a session whose pings are many
 * seconds apart: a ping can only add, never hide a request.
 */
class ReadWriteRoundTripTest {
    private static final int REPEAT = 5;

    /**
     * Once the directory exists, a read acquire and a write acquire after another session's
     * turn are 2 requests each (create, list), a release 1 (delete), a re-entry of either half
     * 0, and a downgrade (read acquire by the writer) 2.
     */
    @Test
    void acquireAfterAnotherSessionsTurnIsTwoRequestsReleaseOneReentryNoneDowngradeTwo() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkReadWriteLock others = new ZkReadWriteLock(other, "/locks/rt");
            long[] least = leastRequests(new ZkProbe(server.getPort()), new ZkReadWriteLock(client, "/locks/rt"),
                    step -> {                  // creations this client has not seen: no inference
                        switch (step) {
                            case 0 -> others.writeLock().acquire().close();
                            case 1 -> others.readLock().acquire().close();
                            default -> others.readLock().tryAcquire(Duration.ZERO);   // queues behind the writer, gives up
                        }
                    });
            assertEquals(List.of(2L, 0L, 1L, 2L, 0L, 1L, 2L), toList(least),
                    "requests per read acquire, re-entry, release; write acquire, re-entry, release; downgrade");
        }
    }

    /**
     * A client re-acquiring a lock nobody else touched since its last look pays the write
     * floor: read acquire, write acquire and downgrade 1 request each (one transaction, no
     * listing: sequence-gap inference), a release 1.
     */
    @Test
    void reacquireOfALockNobodyElseTouchedIsOneRequestPerAcquire() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            long[] least = leastRequests(new ZkProbe(server.getPort()), new ZkReadWriteLock(client, "/locks/again"),
                    step -> { });
            assertEquals(List.of(1L, 0L, 1L, 1L, 0L, 1L, 1L), toList(least),
                    "requests per read acquire, re-entry, release; write acquire, re-entry, release; downgrade");
        }
    }

    /** What another session does before step 0 (read acquire), 1 (write acquire) or 2 (downgrade). */
    interface Between {
        void before(int step) throws Exception;
    }

    /**
     * The least request counts over {@link #REPEAT} rounds of: read acquire, read re-entry,
     * read release, write acquire, write re-entry, write release and downgrade.
     */
    private static long[] leastRequests(ZkProbe probe, ZkReadWriteLock lock, Between between) throws Exception {
        lock.writeLock().acquire().close();            // creates the directory
        long[] least = new long[7];
        Arrays.fill(least, Long.MAX_VALUE);
        for (int i = 0; i < REPEAT; i++) {
            Lease[] r = new Lease[2];
            between.before(0);
            least[0] = Math.min(least[0], probe.requestsDuring(() -> r[0] = lock.readLock().acquire()));
            least[1] = Math.min(least[1], probe.requestsDuring(() -> r[1] = lock.readLock().acquire()));
            r[1].close();
            least[2] = Math.min(least[2], probe.requestsDuring(r[0]::close));

            Lease[] w = new Lease[3];
            between.before(1);
            least[3] = Math.min(least[3], probe.requestsDuring(() -> w[0] = lock.writeLock().acquire()));
            least[4] = Math.min(least[4], probe.requestsDuring(() -> w[1] = lock.writeLock().acquire()));
            w[1].close();
            between.before(2);
            least[6] = Math.min(least[6], probe.requestsDuring(() -> w[2] = lock.readLock().acquire()));
            w[2].close();
            least[5] = Math.min(least[5], probe.requestsDuring(w[0]::close));
        }
        return least;
    }

    private static List<Long> toList(long[] values) {
        return Arrays.stream(values).boxed().toList();
    }

    /**
     * A reader joining readers that hold costs what a reader alone costs (shared holders are no
     * contention): 2 requests the first time, then 1 while nobody else creates a node there.
     */
    @Test
    void readerJoiningReadersCostsWhatAReaderAloneCosts() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkProbe probe = new ZkProbe(server.getPort());
            ZkReadWriteLock mine = new ZkReadWriteLock(client, "/locks/rt2");
            try (Lease held = new ZkReadWriteLock(other, "/locks/rt2").readLock().acquire()) {
                Lease[] r = new Lease[1];
                long first = probe.requestsDuring(() -> r[0] = mine.readLock().acquire());
                r[0].close();
                long join = Long.MAX_VALUE;
                for (int i = 0; i < REPEAT; i++) {
                    join = Math.min(join, probe.requestsDuring(() -> r[0] = mine.readLock().acquire()));
                    r[0].close();
                }
                assertTrue(first >= 2, "first read acquire beside another reader: create, list; was " + first);
                assertEquals(1, join, "requests per read re-acquire beside another reader");
                assertTrue(held.isValid());
            }
        }
    }
}
