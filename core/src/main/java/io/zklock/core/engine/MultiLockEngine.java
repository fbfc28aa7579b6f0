package io.zklock.core.engine;

import io.zklock.core.Lease;
import io.zklock.core.LockException;
import io.zklock.core.OwnerInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * All-or-nothing acquisition of several locks of one session. Repeatedly:
 *   1. One multi() transaction creates a node in every lock's directory, each named like a
 *      single lock's node (_c_<uuid>-<prefix>-<seq>) and created with create2, so the reply
 *      carries every node's Stat (czxid: the fencing token; ephemeralOwner). Every node of a
 *      transaction takes its place in every queue at the same point of ZooKeeper's total
 *      order, so two multi-locks can never wait for each other in a cycle, whatever order
 *      their locks are listed in.
 *      - NoNode: a directory is missing; make the missing ones as containers, then 1 again.
 *      - connection trouble: the transaction may or may not have been applied. List the
 *        directories, delete any node carrying one of our uuids, then 1 again with new uuids.
 *        (The transaction is sent on the ZooKeeper handle, which never retries it, so it is
 *        never applied twice.)
 *   2. Each node then waits as a single lock's node does (Acquisition, adopted), all at once,
 *      under the one deadline: N listings issued together.
 *   3. All granted: done. One gives up: every other gives up too (their nodes are deleted,
 *      a grant that raced is released). If it gave up because its node vanished (session
 *      expiry), go back to 1 with the time left; otherwise fail with its reason.
 * Release deletes every node in one multi(); if that fails, each lease releases itself.
 */
/**
 * The engine of a multi-lock: acquires one node in each of several locks' directories, all or
 * none, with one transaction. The SPI behind {@code ZkMultiLock}.
 */
public final class MultiLockEngine {
    private static final Logger LOG = LoggerFactory.getLogger(MultiLockEngine.class);

    private final List<LockEngine> engines;
    private final CuratorFramework client;
    private final SessionMonitor monitor;

    /**
     * @param engines the component locks' engines, in the caller's order
     * @throws IllegalArgumentException if the list is empty, holds one directory twice, or
     *         mixes Curator clients (one transaction needs one session)
     */
    public MultiLockEngine(List<LockEngine> engines) {
        if (engines == null || engines.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock");
        }
        Set<String> paths = new HashSet<>();
        for (LockEngine e : engines) {
            if (e == null) {
                throw new IllegalArgumentException("null lock in " + engines);
            }
            if (e.client().getZookeeperClient() != engines.get(0).client().getZookeeperClient()) {
                throw new IllegalArgumentException("locks " + engines.get(0).path() + " and " + e.path()
                        + " use different CuratorFramework clients; one transaction needs one session");
            }
            if (!namespaceOf(e).equals(namespaceOf(engines.get(0)))) {
                throw new IllegalArgumentException("locks " + engines.get(0).path() + " and " + e.path()
                        + " use different namespaces of one client ('" + namespaceOf(engines.get(0)) + "', '"
                        + namespaceOf(e) + "'); give every lock of a multi-lock the same namespace");
            }
            if (!paths.add(e.serverPath(e.path()))) {
                throw new IllegalArgumentException("lock path " + e.path() + " appears twice in the multi-lock");
            }
        }
        this.engines = List.copyOf(engines);
        this.client = engines.get(0).client();
        this.monitor = engines.get(0).monitor();
    }

    public List<LockEngine> engines() {
        return engines;
    }

    private static String namespaceOf(LockEngine e) {
        String ns = e.client().getNamespace();
        return ns == null ? "" : ns;
    }

    /** Waits as long as it takes; the leases come in the order of {@link #engines()}. */
    public List<Lease> acquire() throws InterruptedException {
        return await(start(-1)).orElseThrow(() -> new LockException("multi-lock acquisition ended without a grant"));
    }

    /** Empty if not every lock is granted within {@code timeout}; then no node is left. */
    public Optional<List<Lease>> tryAcquire(Duration timeout) throws InterruptedException {
        return await(start(LockEngine.timeoutNanos(timeout)));
    }

    /** Completes with the leases, or with TimeoutException; {@code cancel()} withdraws the request. */
    public CompletableFuture<List<Lease>> acquireAsync(Duration timeout) {
        long nanos = LockEngine.timeoutNanos(timeout);
        Attempt attempt;
        try {
            attempt = start(nanos);
        } catch (LockException e) {
            return CompletableFuture.failedFuture(e);   // a closed client fails the future, as while waiting
        }
        CompletableFuture<List<Lease>> user = new CompletableFuture<>();
        attempt.result.whenCompleteAsync((leases, error) -> {
            if (leases == null) {
                user.completeExceptionally(error);
            } else if (!user.complete(leases)) {
                releaseAll(leases);            // cancelled while the grant was on its way
            }
        }, Threads.COMPLETION);
        user.whenComplete((leases, error) -> {
            if (error != null) {
                attempt.giveUp(new LockEngine.Withdrawn("cancelled"));
            }
        });
        return user;
    }

    /**
     * Releases leases this engine granted: one multi() deletes every node; if it cannot, each
     * lease releases itself (retried until it succeeds or the session ends). Waits for the
     * attempt as {@link Lease#close()} does.
     */
    public void releaseAll(List<Lease> leases) {
        List<ZkLease> mine = new ArrayList<>();
        for (Lease lease : leases) {
            if (lease instanceof ZkLease z && z.claimRelease()) {
                mine.add(z);
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        List<Op> ops = new ArrayList<>();
        for (ZkLease lease : mine) {
            ops.add(Op.delete(serverPath(lease.nodePath()), -1));
        }
        try {
            client.getZookeeperClient().getZooKeeper().multi(ops, (rc, path, ctx, results) -> {
                if (rc == KeeperException.Code.OK.intValue()) {
                    mine.forEach(ZkLease::deletedByCaller);
                } else {
                    mine.forEach(ZkLease::retryDelete);   // one by one: NoNode for a lost one must not stop the rest
                }
            }, null);
        } catch (Exception e) {
            mine.forEach(ZkLease::retryDelete);
        }
        mine.forEach(ZkLease::awaitFirstDeleteAttempt);
    }

    private Attempt start(long timeoutNanos) {
        LockEngine.checkStarted(client, "multi-lock " + paths());
        Attempt attempt = new Attempt(timeoutNanos);
        attempt.transaction();
        return attempt;
    }

    private Optional<List<Lease>> await(Attempt attempt) throws InterruptedException {
        if (Thread.interrupted()) {
            attempt.giveUp(new LockEngine.Withdrawn("interrupted"));
            throw new InterruptedException();
        }
        return LockEngine.await(attempt.result, () -> attempt.giveUp(new LockEngine.Withdrawn("interrupted")),
                this::releaseAll, "multi-lock acquisition");
    }

    private String paths() {
        return String.join(",", engines.stream().map(LockEngine::path).toList());
    }

    private String serverPath(String path) {
        return ZKPaths.fixForNamespace(client.getNamespace(), path);
    }

    /** One acquisition, through as many transactions as session loss requires. */
    private final class Attempt {
        final CompletableFuture<List<Lease>> result = new CompletableFuture<>();
        private final long timeoutNanos;
        private final long deadline;
        private final byte[] ownerData = OwnerInfo.current().toBytes();
        private final AtomicReference<Throwable> withdrawal = new AtomicReference<>();
        private volatile List<Acquisition> waits = List.of();

        Attempt(long timeoutNanos) {
            this.timeoutNanos = timeoutNanos;
            this.deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        }

        private long remaining() {
            if (timeoutNanos <= 0) {
                return timeoutNanos;           // unbounded, or the single attempt of a zero timeout
            }
            return Math.max(1, deadline - System.nanoTime());
        }

        private boolean expired() {
            return timeoutNanos > 0 && deadline - System.nanoTime() <= 0;
        }

        boolean giveUp(Throwable reason) {
            if (result.isDone() || !withdrawal.compareAndSet(null, reason)) {
                return false;
            }
            List<Acquisition> current = waits;
            if (current.isEmpty()) {
                return true;                   // the transaction's reply will see the withdrawal
            }
            current.forEach(a -> a.giveUp(reason));
            return true;
        }

        // ---- 1. the transaction ---------------------------------------------------------

        void transaction() {
            if (withdrawal.get() != null) {
                result.completeExceptionally(withdrawal.get());
                return;
            }
            List<String> uuids = new ArrayList<>();
            List<Op> ops = new ArrayList<>();
            try {
                for (LockEngine e : engines) {
                    String uuid = UUID.randomUUID().toString();
                    uuids.add(uuid);
                    ops.add(e.createOp(e.path() + "/_c_" + uuid + "-" + e.namePrefix() + "-", ownerData));
                }
                client.getZookeeperClient().getZooKeeper().multi(ops,
                        (rc, path, ctx, results) -> transacted(KeeperException.Code.get(rc), results, uuids), null);
            } catch (Exception e) {
                fail(e, uuids);
            }
        }

        private void transacted(KeeperException.Code rc, List<OpResult> results, List<String> uuids) {
            try {
                onTransaction(rc, results, uuids);
            } catch (RuntimeException | Error e) {
                fail(e, uuids);
            }
        }

        /**
         * Ends the attempt on a failure no retry can fix: the closed client as every recipe
         * reports it, anything else with its cause; whatever the transaction created is
         * deleted first (found by its uuids), and the waits it started are given up.
         */
        private void fail(Throwable e, List<String> uuids) {
            Throwable reason = clientClosed() ? LockEngine.clientClosed("multi-lock " + paths())
                    : e instanceof LockException ? e : new LockException("multi-lock " + paths() + " failed: " + e, e);
            waits.forEach(a -> a.giveUp(reason));
            if (clientClosed()) {
                result.completeExceptionally(reason);
                return;
            }
            sweep(uuids, () -> result.completeExceptionally(reason));
        }

        private void onTransaction(KeeperException.Code rc, List<OpResult> results, List<String> uuids) {
            if (rc == KeeperException.Code.OK) {
                List<Acquisition> started = new CopyOnWriteArrayList<>();
                waits = started;                   // a failure half-way gives up those already started
                for (int i = 0; i < engines.size(); i++) {
                    OpResult.CreateResult created = (OpResult.CreateResult) results.get(i);
                    started.add(Acquisition.adopting(engines.get(i), remaining(),
                            engines.get(i).clientPath(created.getPath()), created.getStat()));
                }
                if (withdrawal.get() != null) {
                    started.forEach(a -> a.giveUp(withdrawal.get()));
                }
                collect(started);
            } else if (rc == KeeperException.Code.NONODE) {
                makeDirectories();
            } else if (isConnectionTrouble(rc) && !clientClosed()) {
                LOG.debug("multi-lock transaction failed with {}; cleaning up and retrying", rc);
                Threads.TIMER.schedule(() -> sweep(uuids, this::retryOrTimeOut), 50, TimeUnit.MILLISECONDS);
            } else {
                fail(KeeperException.create(rc), uuids);
            }
        }

        /** Makes the missing directories as containers; part of the same attempt, also for a zero timeout. */
        private void makeDirectories() {
            AtomicInteger left = new AtomicInteger(engines.size());
            AtomicBoolean retry = new AtomicBoolean();
            for (LockEngine e : engines) {
                try {
                    client.create().creatingParentContainersIfNeeded().withMode(CreateMode.CONTAINER)
                            .inBackground((c, event) -> guard(() -> {
                                KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
                                if (isConnectionTrouble(rc) || rc == KeeperException.Code.NONODE) {
                                    retry.set(true);       // NoNode: a parent was reaped while the chain was made
                                } else if (rc != KeeperException.Code.OK && rc != KeeperException.Code.NODEEXISTS) {
                                    result.completeExceptionally(new LockException("could not create lock directory "
                                            + e.path(), KeeperException.create(rc)));
                                }
                                if (left.decrementAndGet() == 0 && !result.isDone()) {
                                    if (retry.get()) {
                                        Threads.TIMER.schedule(this::makeDirectoriesOrTimeOut, 100, TimeUnit.MILLISECONDS);
                                    } else if (timeoutNanos > 0 && expired()) {
                                        result.completeExceptionally(new TimeoutException("timed out waiting for multi-lock"));
                                    } else {
                                        transaction();
                                    }
                                }
                            })).forPath(e.path());
                } catch (Exception ex) {
                    result.completeExceptionally(new LockException("could not create lock directory " + e.path(), ex));
                    return;
                }
            }
        }

        private void makeDirectoriesOrTimeOut() {
            if (clientClosed()) {
                result.completeExceptionally(LockEngine.clientClosed("multi-lock " + paths()));
            } else if (timeoutNanos == 0 || expired()) {
                result.completeExceptionally(new TimeoutException("timed out waiting for multi-lock"));
            } else {
                makeDirectories();
            }
        }

        /**
         * A step of the waits; whatever it throws fails the attempt with every wait given up and
         * every grant, now or later, released.
         */
        private void guardWaits(List<Acquisition> started, Runnable step) {
            try {
                step.run();
            } catch (RuntimeException | Error e) {
                LockException failure = new LockException("multi-lock " + paths() + " failed: " + e, e);
                started.forEach(a -> {
                    a.giveUp(failure);
                    a.result.thenAccept(ZkLease::release);
                });
                result.completeExceptionally(failure);
            }
        }

        /** A reply step; whatever it throws fails the attempt, never silently. */
        private void guard(Runnable step) {
            try {
                step.run();
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(new LockException("multi-lock " + paths() + " failed: " + e, e));
            }
        }

        /**
         * After a transaction with an unknown outcome, or a failure: list every directory,
         * delete whatever the transaction created, wait for those deletes, then {@code then}
         * (a new transaction, or the failure). A directory that cannot be listed yet is listed
         * again later: nothing goes on while an old transaction's nodes may be left.
         */
        private void sweep(List<String> uuids, Runnable then) {
            AtomicInteger left = new AtomicInteger(engines.size());
            AtomicBoolean unlisted = new AtomicBoolean();
            List<CompletableFuture<Void>> deletes = Collections.synchronizedList(new ArrayList<>());
            for (LockEngine e : engines) {
                try {
                    client.getChildren().inBackground((c, event) -> guard(() -> {
                        KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
                        if (rc == KeeperException.Code.OK) {
                            for (String child : event.getChildren()) {
                                for (String uuid : uuids) {
                                    if (child.startsWith("_c_" + uuid + "-")) {
                                        deletes.add(e.deleteGuaranteed(e.path() + "/" + child));
                                    }
                                }
                            }
                        } else if (rc != KeeperException.Code.NONODE) {
                            unlisted.set(true);
                        }
                        if (left.decrementAndGet() == 0) {
                            if (unlisted.get() && !clientClosed()) {
                                Threads.TIMER.schedule(() -> sweep(uuids, then), 100, TimeUnit.MILLISECONDS);
                            } else {
                                CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new))
                                        .whenComplete((v, x) -> then.run());
                            }
                        }
                    })).forPath(e.path());
                } catch (Exception ex) {
                    result.completeExceptionally(new LockException("could not list " + e.path(), ex));
                    return;
                }
            }
        }

        private void retryOrTimeOut() {
            if (clientClosed()) {
                result.completeExceptionally(LockEngine.clientClosed("multi-lock " + paths()));
            } else if (timeoutNanos == 0 || expired()) {
                result.completeExceptionally(new TimeoutException("timed out waiting for multi-lock"));
            } else {
                transaction();
            }
        }

        // ---- 2, 3. the waits --------------------------------------------------------------

        private void collect(List<Acquisition> started) {
            AtomicInteger pending = new AtomicInteger(started.size());
            AtomicBoolean failed = new AtomicBoolean();
            List<ZkLease> granted = Collections.synchronizedList(new ArrayList<>(Collections.nCopies(started.size(), null)));
            IdentityHashMap<Acquisition, Integer> index = new IdentityHashMap<>();
            for (int i = 0; i < started.size(); i++) {
                index.put(started.get(i), i);
            }
            for (Acquisition a : started) {
                a.result.whenComplete((lease, error) -> guardWaits(started, () -> {
                    if (error != null && failed.compareAndSet(false, true)) {
                        started.forEach(other -> other.giveUp(error));   // all or nothing
                    }
                    if (lease != null) {
                        granted.set(index.get(a), lease);
                    }
                    if (pending.decrementAndGet() == 0) {
                        finish(started, granted, failed.get());
                    }
                }));
            }
        }

        private void finish(List<Acquisition> started, List<ZkLease> granted, boolean failed) {
            if (!failed && (withdrawal.get() != null)) {
                releaseQuietly(granted);       // granted just as the caller withdrew
                result.completeExceptionally(withdrawal.get());
                return;
            }
            if (!failed) {
                if (!result.complete(new ArrayList<>(granted))) {
                    releaseQuietly(granted);
                }
                return;
            }
            releaseQuietly(granted);           // grants that raced the failure
            Throwable reason = null;
            for (Acquisition a : started) {
                try {
                    a.result.getNow(null);
                } catch (Exception e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    if (reason == null || cause instanceof Acquisition.MustRequeue) {
                        reason = cause;
                    }
                }
            }
            if (reason instanceof Acquisition.MustRequeue && withdrawal.get() == null) {
                LOG.info("multi-lock re-queueing: {}", reason.getMessage());
                waits = List.of();
                retryOrTimeOut();
            } else {
                result.completeExceptionally(withdrawal.get() != null ? withdrawal.get() : reason);
            }
        }

        private void releaseQuietly(List<ZkLease> leases) {
            for (ZkLease lease : leases) {
                if (lease != null) {
                    lease.release();
                }
            }
        }
    }

    private boolean clientClosed() {
        return monitor.isClosed() || client.getState() == CuratorFrameworkState.STOPPED;
    }

    private static boolean isConnectionTrouble(KeeperException.Code rc) {
        return rc == KeeperException.Code.CONNECTIONLOSS || rc == KeeperException.Code.SESSIONEXPIRED
                || rc == KeeperException.Code.SESSIONMOVED || rc == KeeperException.Code.OPERATIONTIMEOUT
                || rc == KeeperException.Code.REQUESTTIMEOUT;
    }
}
