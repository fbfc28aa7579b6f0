package io.zklock.conformance.faults;

import static io.zklock.conformance.harness.MixedFleet.Library.CURATOR;
import static io.zklock.conformance.harness.MixedFleet.Library.ZKLOCK_COMPAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.zklock.conformance.harness.MixedFleet;
import io.zklock.conformance.harness.MixedFleet.CountingResource;
import io.zklock.conformance.harness.MixedFleet.Participant;
import io.zklock.conformance.harness.MixedFleet.Shape;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.core.LockCompatibility;
import io.zklock.core.LockException;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.semaphore.ZkSemaphore;
import io.zklock.testing.Await;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.Sessions;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A mixed fleet under faults on the zklock side: two of Curator's clients and two zklock
 * clients in compatibility mode share one path, while the zklock clients' connections are cut
 * (within the session, then past it: expiry) and a create's reply is lost. No two holders that
 * still believe they hold are ever inside beyond what the lock admits (a zklock holder told
 * SUSPENDED or LOST no longer counts), both sides keep being granted, and nothing is left once
 * the clients are done.
 */
class CuratorMixedFleetFaultsTest extends ServerFaults {
    private static final int ZKLOCK_SESSION_MS = 3000;

    /** Cuts, an expiry and a lost reply on the zklock side never put one holder too many inside. */
    @ParameterizedTest
    @EnumSource(value = Shape.class, names = {"READ_WRITE", "SEMAPHORE"})   // the mutex's layout is one for both libraries
    void faultsOnTheZklockSideKeepExclusion(Shape shape) throws Exception {
        CountingResource resource = new CountingResource(shape);
        List<Participant> fleet = new ArrayList<>();
        List<FaultProxy> zklockProxies = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            fleet.add(new Participant("curator-" + i, CURATOR, MixedFleet.handle(CURATOR, shape, client(SESSION_MS), path),
                    resource, shape == Shape.READ_WRITE).start());
        }
        for (int i = 0; i < 2; i++) {
            FaultProxy proxy = FaultProxy.to(server.getConnectString());
            zklockProxies.add(proxy);
            fleet.add(new Participant("zklock-" + i, ZKLOCK_COMPAT,
                    MixedFleet.handle(ZKLOCK_COMPAT, shape, proxied(proxy, ZKLOCK_SESSION_MS), path), resource,
                    shape == Shape.READ_WRITE).start());
        }
        FaultProxy a = zklockProxies.get(0);
        FaultProxy b = zklockProxies.get(1);
        Thread.sleep(800);
        a.cut();                               // a connection loss within the session
        Thread.sleep(800);
        a.heal();
        Thread.sleep(500);
        b.cut();                               // past the session: expiry
        Thread.sleep(ZKLOCK_SESSION_MS + 1500);
        b.heal();
        a.dropReplyTo(op -> op == ZooDefs.OpCode.multi || op == ZooDefs.OpCode.create2, p -> true);   // a lost create
        Thread.sleep(2500);
        for (Participant p : fleet) {
            p.stop();
        }
        System.out.println("mixed fleet under faults: " + shape + " " + fleet + ", at most " + resource.mostInside()
                + " inside, " + a.repliesDropped() + " reply dropped");
        assertEquals(0, resource.violations(), fleet + "; " + resource.firstViolations());
        for (Participant p : fleet) {
            assertTrue(p.grants.get() > 0, "starved: " + p);
            assertTrue(p.errors.stream().allMatch(e -> e instanceof LockException), p + ": " + p.errors);
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        List<String> left = ZkTesting.lockNodesBelow(checker, path);
        while (!left.isEmpty() && System.nanoTime() < until) {
            Thread.sleep(100);
            left = ZkTesting.lockNodesBelow(checker, path);
        }
        assertEquals(List.of(), left, "nodes left behind");
    }

    /**
     * A compatibility-mode semaphore client whose session expires while it waits in the lease
     * step (guard held, its lease node counted) starts the whole protocol again: a Curator client
     * that took the guard meanwhile is granted once the holder goes, then ours; no deadlock of two
     * waiters in the leases directory, never two holders of the one permit, nothing left behind.
     */
    @Test
    void expiryInTheLeaseStepStartsOverWithTheGuard() throws Exception {
        String leases = path + "/leases";
        InterProcessSemaphoreV2 holderSide = new InterProcessSemaphoreV2(client(SESSION_MS), path, 1);
        Lease holder = holderSide.acquire();
        CuratorFramework ourClient = client(SESSION_MS);
        ZkSemaphore ours = new ZkSemaphore(ourClient, path, 1, LockCompatibility.CURATOR);
        CompletableFuture<Optional<io.zklock.core.Lease>> oursGranted = CompletableFuture.supplyAsync(() -> {
            try {
                return ours.tryAcquire(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Await.until("ours waiting in the lease step", LONG, () -> children(leases).size() == 2);
        InterProcessSemaphoreV2 curatorSide = new InterProcessSemaphoreV2(client(SESSION_MS), path, 1);
        CompletableFuture<Lease> curatorGranted = CompletableFuture.supplyAsync(() -> {
            try {
                return curatorSide.acquire(15, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Await.until("Curator's client queued at the guard", LONG, () -> children(path + "/locks").size() == 2);

        Sessions.expire(ourClient, server.getConnectString());
        Await.until("Curator's client in the lease step", LONG, () -> marked(leases, false) == 2);
        Await.until("ours queued again on its new session", LONG, () -> marked(leases, true) + marked(path + "/locks", true) > 0);
        holderSide.returnLease(holder);
        Lease curators = curatorGranted.get(20, TimeUnit.SECONDS);
        assertNotNull(curators, "Curator's client never granted: a deadlock with our re-queued lease node " + children(leases));
        assertFalse(oursGranted.isDone() && oursGranted.get().isPresent(), "ours granted beside Curator's holder");
        curatorSide.returnLease(curators);
        io.zklock.core.Lease lease = oursGranted.get(10, TimeUnit.SECONDS).orElseThrow(() -> new AssertionError("ours timed out"));
        assertTrue(lease.isValid());
        assertEquals(1, children(leases).size(), "one lease node while ours holds: " + children(leases));
        lease.close();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        List<String> left = ZkTesting.lockNodesBelow(checker, path);
        while (!left.isEmpty() && System.nanoTime() < until) {
            Thread.sleep(100);
            left = ZkTesting.lockNodesBelow(checker, path);
        }
        assertEquals(List.of(), left, "nodes left behind");
    }

    /** How many lock nodes of {@code dir} are zklock's ({@code zklocks}) or not. */
    private long marked(String dir, boolean zklocks) {
        return LockNode.sorted(children(dir)).stream().filter(n -> n.zklockMarked() == zklocks).count();
    }

    private List<String> children(String dir) {
        try {
            return checker.getChildren().forPath(dir);
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
