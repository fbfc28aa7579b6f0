package io.zklock.conformance.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.zklock.testing.FaultProxy;
import io.zklock.conformance.harness.ServerFaults;
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

    private static LockConfiguration config(String job, Duration lockAtMostFor) {
        return new LockConfiguration(Instant.now(), job, lockAtMostFor, Duration.ZERO);
    }

    /** Whether {@code provider} can lock and unlock {@code job} now. */
    private static boolean lockable(ZkLockProvider provider, String job) {
        try {
            Optional<SimpleLock> lock = provider.lock(config(job, Duration.ofMinutes(10)));
            lock.ifPresent(SimpleLock::unlock);
            return lock.isPresent();
        } catch (LockException e) {
            return false;
        }
    }

    /**
     * The one timer thread of every provider never waits for a job's ZooKeeper traffic: while an
     * extend of job a gets no reply and a's lockAtMostFor passes, job b's lockAtMostFor still
     * frees b; the extend, answered later, finds its lock expired.
     */
    @Test
    void aStuckExtendDelaysNoOtherJobsLockAtMostFor() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        ZkLockProvider stuck = new ZkLockProvider(proxied(proxy, SESSION_MS), path);
        ZkLockProvider direct = new ZkLockProvider(client(SESSION_MS), path);
        ZkLockProvider observer = new ZkLockProvider(client(SESSION_MS), path);
        SimpleLock a = stuck.lock(config("a", Duration.ofSeconds(1))).orElseThrow();
        direct.lock(config("b", Duration.ofMillis(1_500))).orElseThrow();
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        proxy.beforeRequest((opcode, node) -> {
            if (opcode == OpCode.multi) {
                writing.countDown();
                answer.await();
            }
        });
        CompletableFuture<Optional<SimpleLock>> extending = CompletableFuture.supplyAsync(
                () -> a.extend(Duration.ofMinutes(10), Duration.ZERO));
        try {
            assertTrue(writing.await(20, TimeUnit.SECONDS), "the extend never wrote");
            Await.until("job b is free after its lockAtMostFor", Duration.ofSeconds(10), () -> lockable(observer, "b"));
            assertFalse(extending.isDone(), "the extend was answered meanwhile");
        } finally {
            answer.countDown();
        }
        assertTrue(extending.get(60, TimeUnit.SECONDS).isEmpty(), "an extend that outlived its lockAtMostFor was granted");
        Await.until("job a is free", LONG, () -> lockable(observer, "a"));
        Await.equal("nodes left", List.of(), LONG, this::nodes);
    }

    /**
     * The timer thread never waits for the release of an expired lease: while the delete of job
     * a's node gets no reply, job b's lockAtMostFor still frees b on time (well within the
     * close's own wait of 10 s for its delete).
     */
    @Test
    void aStuckReleaseDelaysNoOtherJobsLockAtMostFor() throws Exception {
        FaultProxy proxy = FaultProxy.to(server.getConnectString());
        ZkLockProvider stuck = new ZkLockProvider(proxied(proxy, SESSION_MS), path);
        ZkLockProvider direct = new ZkLockProvider(client(SESSION_MS), path);
        ZkLockProvider observer = new ZkLockProvider(client(SESSION_MS), path);
        CountDownLatch deleting = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        proxy.beforeRequest((opcode, node) -> {
            if (opcode == OpCode.delete && node != null && node.startsWith(path + "/jobs/a/")) {
                deleting.countDown();
                answer.await();
            }
        });
        stuck.lock(config("a", Duration.ofSeconds(1))).orElseThrow();
        direct.lock(config("b", Duration.ofMillis(1_500))).orElseThrow();
        try {
            assertTrue(deleting.await(20, TimeUnit.SECONDS), "a's lockAtMostFor never released it");
            Await.until("job b is free after its lockAtMostFor", Duration.ofSeconds(5), () -> lockable(observer, "b"));
            assertEquals(1, answer.getCount(), "a's delete was answered meanwhile");
        } finally {
            answer.countDown();
        }
        Await.until("job a is free", LONG, () -> lockable(observer, "a"));
        Await.equal("nodes left", List.of(), LONG, this::nodes);
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
