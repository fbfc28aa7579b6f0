package io.zklock.conformance.faults;

import static io.zklock.conformance.harness.MixedFleet.Library.CURATOR;
import static io.zklock.conformance.harness.MixedFleet.Library.ZKLOCK_COMPAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.zklock.conformance.harness.MixedFleet;
import io.zklock.conformance.harness.MixedFleet.CountingResource;
import io.zklock.conformance.harness.MixedFleet.Participant;
import io.zklock.conformance.harness.MixedFleet.Shape;
import io.zklock.conformance.harness.ServerFaults;
import io.zklock.core.LockException;
import io.zklock.testing.FaultProxy;
import io.zklock.testing.ZkTesting;
import org.apache.zookeeper.ZooDefs;
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
}
