package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.zklock.conformance.harness.Recipe;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.MultiLease;
import io.zklock.testing.Await;
import io.zklock.testing.Sessions;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorClosedException;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Guarded writes ({@link Lease#guard()}, {@link Lease#guards()}) on every recipe (mutex,
 * semaphore, read lock, write lock, multi-lock), against a real server: a transaction that
 * starts with the lease's guards commits while the lease holds, and is refused, having written
 * nothing, after the lease is closed, after another client deletes its node (a forced
 * revocation), and after its session expires; on a closed client no guard is built.
 */
class GuardedWritePropertiesTest extends ServerFaults {

    private String data() {
        return path + "-data";
    }

    private String created() {
        return path + "-created";
    }

    /** The lease's guards, then a write and a create: all or nothing. */
    private void guardedWrite(CuratorFramework on, Lease lease, String value) throws Exception {
        List<CuratorOp> ops = new ArrayList<>(lease.guards());
        ops.add(on.transactionOp().setData().forPath(data(), value.getBytes(StandardCharsets.UTF_8)));
        ops.add(on.transactionOp().create().forPath(created()));
        on.transaction().forOperations(ops);
    }

    private String value() throws Exception {
        return new String(checker.getData().forPath(data()), StandardCharsets.UTF_8);
    }

    private Lease holding(Recipe recipe, CuratorFramework on) throws Exception {
        checker.create().creatingParentsIfNeeded().forPath(data(), "before".getBytes(StandardCharsets.UTF_8));
        DistributedLock lock = recipe.create(on, path);
        return lock.tryAcquire(LONG).orElseThrow(() -> new AssertionError("not granted"));
    }

    private void assertRefusedAndNothingWritten(CuratorFramework on, Lease lease) throws Exception {
        assertThrows(KeeperException.NoNodeException.class, () -> guardedWrite(on, lease, "after"));
        assertEquals("before", value(), "a refused transaction wrote");
        assertNull(checker.checkExists().forPath(created()), "a refused transaction created a node");
    }

    /** While the lease holds, a guarded transaction commits, issued by the holder or by another client. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void aGuardedTransactionCommitsWhileHeld(Recipe recipe) throws Exception {
        CuratorFramework holder = client(SESSION_MS);
        try (Lease lease = holding(recipe, holder)) {
            assertEquals(Recipe.nodesOf(lease),
                    lease.guards().stream().map(g -> g.getTypeAndPath().getForPath()).toList(), "one check per node");
            guardedWrite(holder, lease, "holder");
            assertEquals("holder", value());
            checker.delete().forPath(created());
            guardedWrite(checker, lease, "other");
            assertEquals("other", value());
        }
    }

    /** A closed lease's guarded transaction is refused and writes nothing. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void aGuardedTransactionIsRefusedAfterClose(Recipe recipe) throws Exception {
        CuratorFramework holder = client(SESSION_MS);
        Lease lease = holding(recipe, holder);
        lease.close();
        Await.equal("the lease's state", LeaseState.RELEASED, LONG, lease::state);
        assertRefusedAndNothingWritten(holder, lease);
    }

    /** After another client deletes the lease's node (the last one, for a multi-lease), the holder's guarded transaction is refused. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void aGuardedTransactionIsRefusedAfterAForcedDeletion(Recipe recipe) throws Exception {
        CuratorFramework holder = client(SESSION_MS);
        Lease lease = holding(recipe, holder);
        List<String> nodes = Recipe.nodesOf(lease);
        checker.delete().forPath(nodes.get(nodes.size() - 1));
        assertRefusedAndNothingWritten(holder, lease);
        lease.close();
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /** After the holder's session expires on the server, its guarded transaction is refused, from its own new session or another client. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void aGuardedTransactionIsRefusedAfterSessionExpiry(Recipe recipe) throws Exception {
        CuratorFramework holder = client(SESSION_MS);
        Lease lease = holding(recipe, holder);
        Sessions.expire(holder, server.getConnectString());
        Await.equal("the lease's state", LeaseState.LOST, LONG, lease::state);
        assertRefusedAndNothingWritten(holder, lease);
        assertRefusedAndNothingWritten(checker, lease);
    }

    /** Once the lock's client is closed, its lease's guards cannot be built: guards() throws IllegalStateException carrying Curator's CuratorClosedException. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void noGuardIsBuiltOnAClosedClient(Recipe recipe) throws Exception {
        CuratorFramework holder = client(SESSION_MS);
        Lease lease = holding(recipe, holder);
        holder.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, lease::guards);
        assertTrue(e.getCause() instanceof CuratorClosedException, "cause: " + e.getCause());
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /** A multi-lease has no single guard: guard() says to use guards(); a lease of one node gives exactly guard() in guards(). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void guardAndGuardsAgree(Recipe recipe) throws Exception {
        CuratorFramework holder = client(SESSION_MS);
        try (Lease lease = holding(recipe, holder)) {
            if (lease instanceof MultiLease) {
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, lease::guard);
                assertTrue(e.getMessage().contains("guards()"), e.getMessage());
                assertEquals(Recipe.nodesOf(lease),
                        lease.guards().stream().map(g -> g.getTypeAndPath().getForPath()).toList());
            } else {
                assertEquals(List.of(lease.guard().getTypeAndPath().getForPath()),
                        lease.guards().stream().map(g -> g.getTypeAndPath().getForPath()).toList());
            }
        }
    }
}
