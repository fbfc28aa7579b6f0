package io.zklock.mutex;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    /** Once the directory exists, an uncontended acquire is 2 requests (create, list), a release 1 (delete), a re-entry 0. */
    @Test
    void uncontendedAcquireIsTwoRequestsReleaseOneReentryNone() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkProbe probe = new ZkProbe(server.getPort());
            ZkMutex mutex = new ZkMutex(client, "/locks/rt");
            mutex.acquire().close();           // creates the directory

            long acquire = Long.MAX_VALUE;
            long reenter = Long.MAX_VALUE;
            long release = Long.MAX_VALUE;
            for (int i = 0; i < REPEAT; i++) {
                Lease[] lease = new Lease[2];
                acquire = Math.min(acquire, probe.requestsDuring(() -> lease[0] = mutex.acquire()));
                reenter = Math.min(reenter, probe.requestsDuring(() -> lease[1] = mutex.acquire()));
                lease[1].close();
                release = Math.min(release, probe.requestsDuring(lease[0]::close));
            }
            assertEquals(2, acquire, "requests per uncontended acquire");
            assertEquals(0, reenter, "requests per re-entry");
            assertEquals(1, release, "requests per release");
        }
    }
}
