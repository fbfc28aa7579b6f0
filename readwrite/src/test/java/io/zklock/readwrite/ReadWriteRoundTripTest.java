package io.zklock.readwrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
            ZkProbe probe = new ZkProbe(server.getPort());
            ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/rt");
            ZkReadWriteLock others = new ZkReadWriteLock(other, "/locks/rt");
            lock.writeLock().acquire().close();        // creates the directory

            long[] read = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};     // acquire, re-enter, release
            long[] write = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
            long downgrade = Long.MAX_VALUE;
            for (int i = 0; i < REPEAT; i++) {
                others.writeLock().acquire().close();   // creations this client has not seen: no inference
                Lease[] r = new Lease[2];
                read[0] = Math.min(read[0], probe.requestsDuring(() -> r[0] = lock.readLock().acquire()));
                read[1] = Math.min(read[1], probe.requestsDuring(() -> r[1] = lock.readLock().acquire()));
                r[1].close();
                read[2] = Math.min(read[2], probe.requestsDuring(r[0]::close));

                others.readLock().acquire().close();
                Lease[] w = new Lease[3];
                write[0] = Math.min(write[0], probe.requestsDuring(() -> w[0] = lock.writeLock().acquire()));
                write[1] = Math.min(write[1], probe.requestsDuring(() -> w[1] = lock.writeLock().acquire()));
                w[1].close();
                others.readLock().tryAcquire(java.time.Duration.ZERO);   // queues behind the writer, gives up
                downgrade = Math.min(downgrade, probe.requestsDuring(() -> w[2] = lock.readLock().acquire()));
                w[2].close();
                write[2] = Math.min(write[2], probe.requestsDuring(w[0]::close));
            }
            assertEquals(2, read[0], "requests per read acquire after another session's turn");
            assertEquals(0, read[1], "requests per read re-entry");
            assertEquals(1, read[2], "requests per read release");
            assertEquals(2, write[0], "requests per write acquire after another session's turn");
            assertEquals(0, write[1], "requests per write re-entry");
            assertEquals(1, write[2], "requests per write release");
            assertEquals(2, downgrade, "requests per downgrade");
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
            ZkProbe probe = new ZkProbe(server.getPort());
            ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/again");
            lock.writeLock().acquire().close();        // creates the directory

            long[] read = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};     // acquire, re-enter, release
            long[] write = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
            long downgrade = Long.MAX_VALUE;
            for (int i = 0; i < REPEAT; i++) {
                Lease[] r = new Lease[2];
                read[0] = Math.min(read[0], probe.requestsDuring(() -> r[0] = lock.readLock().acquire()));
                read[1] = Math.min(read[1], probe.requestsDuring(() -> r[1] = lock.readLock().acquire()));
                r[1].close();
                read[2] = Math.min(read[2], probe.requestsDuring(r[0]::close));

                Lease[] w = new Lease[3];
                write[0] = Math.min(write[0], probe.requestsDuring(() -> w[0] = lock.writeLock().acquire()));
                write[1] = Math.min(write[1], probe.requestsDuring(() -> w[1] = lock.writeLock().acquire()));
                w[1].close();
                downgrade = Math.min(downgrade, probe.requestsDuring(() -> w[2] = lock.readLock().acquire()));
                w[2].close();
                write[2] = Math.min(write[2], probe.requestsDuring(w[0]::close));
            }
            assertEquals(1, read[0], "requests per read re-acquire");
            assertEquals(0, read[1], "requests per read re-entry");
            assertEquals(1, read[2], "requests per read release");
            assertEquals(1, write[0], "requests per write re-acquire");
            assertEquals(0, write[1], "requests per write re-entry");
            assertEquals(1, write[2], "requests per write release");
            assertEquals(1, downgrade, "requests per downgrade");
        }
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
