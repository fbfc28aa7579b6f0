package io.zklock.conformance.harness;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.zklock.conformance.harness.ConformanceSupport.Abandon;
import io.zklock.conformance.harness.ConformanceSupport.Body;
import io.zklock.conformance.harness.ConformanceSupport.LeaseMaker;
import io.zklock.conformance.harness.ConformanceSupport.Request;
import io.zklock.conformance.harness.ConformanceSupport.Step;
import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LockAdmin;
import io.zklock.core.LockStatus;
import org.apache.curator.framework.CuratorFramework;

/**
 * One try of a property, as a promise group (an interface of default property methods) sees
 * it: the try's path, clients and server, and the harness's helpers. {@link ConformanceSupport}
 * implements it and says what each method does; a recipe's conformance class extends
 * {@code ConformanceSupport}, implements the groups its recipe keeps, and names the recipe
 * (each group declares {@code Recipe recipe()}, the factory of the locks it judges).
 */
public interface PropertyTry {

    /** The try's fresh lock path. */
    String path();

    /** The try's clients, closed after the try. */
    List<CuratorFramework> clients();

    /** The embedded server the properties run on. */
    SharedServer zk();

    List<DistributedLock> locksOnNewSessions(int sessions);

    List<Lease> shutOut(CuratorFramework client) throws Exception;

    /** The order in which the waiters of {@link #queueBehindHoldersAndRelease} were granted, and their nodes' sequence numbers. */
    record Granted(List<Integer> order, List<Long> sequences) {
    }

    Granted queueBehindHoldersAndRelease(int sessions, int waiters) throws Exception;

    void abandonWhileHeld(DistributedLock lock, Abandon how, int timeoutMillis, int queued, int watches) throws Exception;

    void touchAll() throws Exception;

    CuratorFramework quietClient();

    CompletableFuture<Lease> queue(Request request) throws Exception;

    void awaitQuiet(Set<Long> sessions) throws InterruptedException;

    Map<Long, Long> packets(Set<Long> sessions);

    LockAdmin admin();

    void assertStatusMatchesServer(LockStatus status, List<Lease> granted, List<String> kindsInQueueOrder,
            String recipeName, int maxLeases) throws Exception;

    int lockNodes();

    String inspectedPath();

    void assertClean();

    int cachingSessions();

    void releaseCaches();

    void closeWhileCutOffKeepsTheLeaseUntilItsNodeIsGone(LeaseMaker make) throws Exception;

    void awaitReaped();

    int nextSequence() throws Exception;

    void runThreads(int n, Body body) throws Exception;

    Thread start(String name, Step step);

    void joinAll(List<Thread> threads) throws Exception;
}
