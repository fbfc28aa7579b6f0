package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * {@link Lease#guard()} of the engine's lease and of a re-entered view, against a real server: a
 * guarded transaction commits while the node exists and writes nothing once it is gone.
 */
class LeaseGuardTest extends EmbeddedServerTest {
    private static final String DATA = "/guarded/data";

    private LockEngine engine(CuratorFramework on) {
        return new LockEngine(on, "/guarded/lock", new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1));
    }

    private void guardedWrite(CuratorFramework on, Lease lease, String value) throws Exception {
        on.transaction().forOperations(lease.guard(),
                on.transactionOp().setData().forPath(DATA, value.getBytes(StandardCharsets.UTF_8)));
    }

    private String data() throws Exception {
        return new String(client.getData().forPath(DATA), StandardCharsets.UTF_8);
    }

    private void assertRefused(Lease lease, String what) throws Exception {
        assertThrows(KeeperException.NoNodeException.class, () -> guardedWrite(other, lease, what),
                "a guarded write " + what + " commits");
        assertEquals("before", data(), "a refused transaction wrote nothing");
    }

    private void seed() throws Exception {
        client.create().creatingParentsIfNeeded().forPath(DATA, "before".getBytes(StandardCharsets.UTF_8));
    }

    /** The guard is a check of the lease's node (any version) and sends no request when built. */
    @Test
    void theGuardChecksTheLeasesNodeAtAnyVersion() throws Exception {
        try (Lease lease = engine(client).acquire()) {
            CuratorOp guard = lease.guard();
            assertEquals(lease.nodePath(), guard.getTypeAndPath().getForPath());
            assertEquals(List.of(guard.getTypeAndPath().getForPath()),
                    lease.guards().stream().map(g -> g.getTypeAndPath().getForPath()).toList());
        }
    }

    /** While the lease is held a guarded write commits, even issued by another client on the ensemble. */
    @Test
    void aGuardedTransactionCommitsWhileHeld() throws Exception {
        seed();
        try (Lease lease = engine(client).acquire()) {
            lease.onRevocationRequested(l -> { });      // its own data may change: the guard ignores the version
            client.setData().forPath(lease.nodePath(), "touched".getBytes(StandardCharsets.UTF_8));
            List<CuratorTransactionResult> results = other.transaction().forOperations(lease.guard(),
                    other.transactionOp().setData().forPath(DATA, "after".getBytes(StandardCharsets.UTF_8)));
            assertEquals(2, results.size());
            assertEquals("after", data());
        }
    }

    /** A closed lease's guard fails the transaction with NoNode, and nothing is written. */
    @Test
    void aGuardedTransactionIsRefusedAfterClose() throws Exception {
        seed();
        Lease lease = engine(client).acquire();
        lease.close();
        assertEquals(LeaseState.RELEASED, lease.state());
        assertRefused(lease, "after close");
    }

    /** A node deleted by another client (a forced revocation) refuses the holder's guarded write. */
    @Test
    void aGuardedTransactionIsRefusedAfterAForcedDeletion() throws Exception {
        seed();
        Lease lease = engine(client).acquire();
        other.delete().forPath(lease.nodePath());
        assertThrows(KeeperException.NoNodeException.class, () -> guardedWrite(client, lease, "forced"));
        assertEquals("before", data());
        lease.close();
    }

    /** After the session's expiry on the server, the holder's guarded write is refused. */
    @Test
    void aGuardedTransactionIsRefusedAfterSessionExpiry() throws Exception {
        seed();
        CuratorFramework holder = ZkTesting.client(server.getConnectString(), 20_000);
        try {
            Lease lease = engine(holder).acquire();
            Sessions.expire(holder, server.getConnectString());
            Await.equal("the lease's state", LeaseState.LOST, LONG, lease::state);
            assertRefused(lease, "after session expiry");
            assertThrows(KeeperException.NoNodeException.class, () -> guardedWrite(holder, lease, "expired"));
            assertEquals("before", data());
        } finally {
            holder.close();
        }
    }

    /** The guard carries the lock client's namespace: it checks the right node from a client without one. */
    @Test
    void theGuardCarriesTheNamespaceOfTheLocksClient() throws Exception {
        seed();
        CuratorFramework namespaced = client.usingNamespace("tenant");
        try (Lease lease = engine(namespaced).acquire()) {
            Stat stat = client.checkExists().forPath("/tenant" + lease.nodePath());
            assertNotNull(stat);
            assertNull(client.checkExists().forPath(lease.nodePath()), "no such node outside the namespace");
            guardedWrite(other, lease, "namespaced");
            assertEquals("namespaced", data());
        }
    }

    /** A re-entered view guards with its hold's node: it passes while another view keeps the node, and not after the last close. */
    @Test
    void aReenteredViewsGuardFollowsItsHold() throws Exception {
        seed();
        ReentrantLockSupport lock = new ReentrantLockSupport(engine(client));
        Lease outer = lock.acquire();
        Lease inner = lock.acquire();
        assertEquals(outer.nodePath(), inner.guard().getTypeAndPath().getForPath());
        inner.close();
        guardedWrite(other, inner, "inner closed, outer open");
        assertEquals("inner closed, outer open", data());
        client.setData().forPath(DATA, "before".getBytes(StandardCharsets.UTF_8));
        outer.close();
        assertRefused(inner, "after the last view closed");
        assertRefused(outer, "after the last view closed");
        assertTrue(ZkTesting.lockNodesBelow(client, "/guarded").isEmpty());
    }
}
