package io.zklock.mutex;

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
 * too, so each figure is the least over a few repetitions with a session whose pings are 20 s
 * apart: a ping can only add, never hide a request.
 */
class RoundTripTest {
    private static final int REPEAT = 5;

    /**
     * Once the directory exists, an acquire after another session's turn is 2 requests (create,
     * list), a release 1 (delete), a re-entry 0.
     */
    @Test
    void acquireAfterAnotherSessionsTurnIsTwoRequestsReleaseOneReentryNone() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000);
             CuratorFramework other = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkProbe probe = new ZkProbe(server.getPort());
            ZkMutex mutex = new ZkMutex(client, "/locks/rt");
            ZkMutex others = new ZkMutex(other, "/locks/rt");
            mutex.acquire().close();           // creates the directory

            long acquire = Long.MAX_VALUE;
            long reenter = Long.MAX_VALUE;
            long release = Long.MAX_VALUE;
            for (int i = 0; i < REPEAT; i++) {
                others.acquire().close();      // a creation this client has not seen: no inference
                Lease[] lease = new Lease[2];
                acquire = Math.min(acquire, probe.requestsDuring(() -> lease[0] = mutex.acquire()));
                reenter = Math.min(reenter, probe.requestsDuring(() -> lease[1] = mutex.acquire()));
                lease[1].close();
                release = Math.min(release, probe.requestsDuring(lease[0]::close));
            }
            assertEquals(2, acquire, "requests per acquire after another session's turn");
            assertEquals(0, reenter, "requests per re-entry");
            assertEquals(1, release, "requests per release");
        }
    }

    /**
     * A client that re-acquires a lock nobody else touched since its last look pays the write
     * floor: 1 request to acquire (one transaction, no listing), 1 to release.
     */
    @Test
    void reacquireOfALockNobodyElseTouchedIsOneRequest() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkProbe probe = new ZkProbe(server.getPort());
            ZkMutex mutex = new ZkMutex(client, "/locks/again");
            long first = probe.requestsDuring(() -> mutex.acquire().close());

            long acquire = Long.MAX_VALUE;
            long release = Long.MAX_VALUE;
            for (int i = 0; i < REPEAT; i++) {
                Lease[] lease = new Lease[1];
                acquire = Math.min(acquire, probe.requestsDuring(() -> lease[0] = mutex.acquire()));
                release = Math.min(release, probe.requestsDuring(lease[0]::close));
            }
            assertEquals(1, acquire, "requests per re-acquire");
            assertEquals(1, release, "requests per release");
            assertTrue(first >= 3, "the first cycle had no view to infer from: create, list, delete; was " + first);
        }
    }
}
