package io.zklock.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.zklock.shedlock.ZkLockProvider;
import io.zklock.testing.Await;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.Test;

/**
 * zklock-shedlock's {@link ZkLockProvider} under faults of one client's traffic (a proxy): the
 * reply to the guarded marker write lost, the connection cut in the middle of a lock and of an
 * unlock. Each time: never two holders, nothing left behind, the job free again afterwards.
 */
class ShedLockFaultsTest extends ServerFaults {

    private LockConfiguration config() {
        return new LockConfiguration(Instant.now(), "job", Duration.ofMinutes(10), Duration.ZERO);
    }

    private boolean lockable(ZkLockProvider provider) {
        try {
            Optional<SimpleLock> lock = provider.lock(config());
            lock.ifPresent(SimpleLock::unlock);
            return lock.isPresent();
        } catch (LockException e) {
            return false;
        }
    }

    /** Before the marker's read, arms {@code action} for the request after it: the guarded marker write. */
    private static void atTheMarkerWrite(FaultProxy proxy, String root, Runnable action) {
        AtomicBoolean armed = new AtomicBoolean();
        proxy.beforeRequest((opcode, node) -> {
            if (opcode == OpCode.getData && node != null && node.startsWith(root + "/marks/") && armed.compareAndSet(false, true)) {
                action.run();
            }
        });
    }

    /** The reply to the guarded marker write is lost: Curator sends it again, it fails on the version, and the provider knows the first copy as its own. */
    @Test
    void aLostReplyToTheMarkerWriteStillLocksOnce() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework proxied = proxied(proxy, SESSION_MS);
        ZkLockProvider provider = new ZkLockProvider(proxied, path);
        ZkLockProvider other = new ZkLockProvider(client(SESSION_MS), path);
        atTheMarkerWrite(proxy, path, () -> proxy.dropReplyTo(OpCode.multi, node -> true));
        SimpleLock lock = provider.lock(config()).orElseThrow(() -> new AssertionError("not locked after a lost reply"));
        assertEquals(1, proxy.repliesDropped());
        assertTrue(other.lock(config()).isEmpty(), "a second holder");
        assertEquals(1, nodes().size());
        lock.unlock();
        Await.until("the job is free", LONG, () -> lockable(other));
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /** The connection is cut as the lock writes the marker: the lock completes after the heal or fails cleanly, never leaving a node or a second holder. */
    @Test
    void aConnectionCutDuringLockLeavesNothingBehind() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework proxied = proxied(proxy, SESSION_MS);
        ZkLockProvider provider = new ZkLockProvider(proxied, path);
        ZkLockProvider other = new ZkLockProvider(client(SESSION_MS), path);
        atTheMarkerWrite(proxy, path, () -> {
            proxy.cut();
            CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS).execute(proxy::heal);
        });
        try {
            Optional<SimpleLock> lock = provider.lock(config());
            assertTrue(lock.isPresent(), "the job was free: the lock either succeeds or fails, it is not refused");
            assertTrue(other.lock(config()).isEmpty(), "a second holder");
            lock.get().unlock();
        } catch (LockException expected) {
            // ZooKeeper could not be reached in time: the job is not locked, and its lease is released
        }
        proxy.heal();
        Await.until("the job is free", LONG, () -> lockable(other));
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /** An unlock while the connection is cut returns; the delete lands once it heals and the job is free. */
    @Test
    void anUnlockDuringACutFreesTheJobOnceHealed() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        CuratorFramework proxied = proxied(proxy, SESSION_MS);
        ZkLockProvider provider = new ZkLockProvider(proxied, path);
        ZkLockProvider other = new ZkLockProvider(client(SESSION_MS), path);
        SimpleLock lock = provider.lock(config()).orElseThrow();
        proxy.cut();
        lock.unlock();
        assertTrue(other.lock(config()).isEmpty(), "freed while the delete could not be sent");
        proxy.heal();
        Await.until("the job is free once healed", LONG, () -> lockable(other));
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }
}
