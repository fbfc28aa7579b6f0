package io.zklock.core.internal.request;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import io.zklock.core.LockException;
import io.zklock.core.internal.Failures;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.Backoff;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * One multi-lock transaction: a node in every lock's directory, created together by one
 * multi() on the ZooKeeper handle (never retried behind our back, so never applied twice), each
 * named like a single lock's node and created with create2, so the reply carries every node's
 * Stat. The uuid in each name finds the nodes again when the outcome is unknown ({@link #sweep}).
 */
final class MultiTransaction {
    private final List<LockContext> contexts;
    private final ZkPort port;
    private final List<String> uuids;
    private final AcquireTally tally;

    /** A transaction over {@code contexts}' directories, with a new uuid for each; its reads count into {@code tally}. */
    MultiTransaction(List<LockContext> contexts, AcquireTally tally) {
        this.contexts = contexts;
        this.tally = tally;
        this.port = contexts.get(0).port();
        this.uuids = contexts.stream().map(e -> UUID.randomUUID().toString()).toList();
    }

    /** Sends it; completes with its reply, or with the failure to build or issue it. */
    CompletableFuture<ZkPort.Reply> send(byte[] ownerData) {
        List<Op> ops;
        try {
            ops = IntStream.range(0, contexts.size()).mapToObj(i -> contexts.get(i).port().createOp(ZKPaths.makePath(
                    contexts.get(i).path(), LockNode.protectedName(uuids.get(i), contexts.get(i).namePrefix())), ownerData)).toList();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return port.multi(ops, null);
    }

    /**
     * The applied transaction's nodes, each with its Stat, read with exists() from a server that
     * returns none (ZOOKEEPER-4026) and read again through connection trouble while
     * {@code mayRetry} holds; a null element for a node gone before its Stat was read (its
     * session ended: the round must be made again).
     */
    CompletableFuture<List<QueuedNode>> nodes(List<OpResult> results, BooleanSupplier mayRetry) {
        List<CompletableFuture<QueuedNode>> nodes = new ArrayList<>();
        for (int i = 0; i < contexts.size(); i++) {
            OpResult.CreateResult created = (OpResult.CreateResult) results.get(i);
            String path = contexts.get(i).port().clientPath(created.getPath());
            LockNode node = LockNode.parse(NodePaths.name(path)).orElse(null);
            if (node == null) {
                nodes.add(CompletableFuture.failedFuture(new LockException("created node " + path + " has an unexpected name")));
            } else if (created.getStat() != null) {
                nodes.add(CompletableFuture.completedFuture(
                        new QueuedNode(path, node, created.getStat().getCzxid(), created.getStat().getEphemeralOwner(), QueuedNode.Known.NOTHING)));
            } else {
                contexts.get(i).monitor().multiCreateWithoutStat();
                nodes.add(readStat(path, node, mayRetry));
            }
        }
        return all(nodes);
    }

    private CompletableFuture<QueuedNode> readStat(String path, LockNode node, BooleanSupplier mayRetry) {
        tally.issued();
        return port.exists(path, null).thenCompose(reply -> {
            if (reply.ok() && reply.stat() != null) {
                return CompletableFuture.completedFuture(
                        new QueuedNode(path, node, reply.stat().getCzxid(), reply.stat().getEphemeralOwner(), QueuedNode.Known.NOTHING));
            }
            if (reply.ok() || reply.noNode()) {
                return CompletableFuture.completedFuture(null);
            }
            if (reply.connectionTrouble() && !port.isClosed() && mayRetry.getAsBoolean()) {
                return later(Backoff.TRANSACTION_RETRY_MS).thenCompose(v -> readStat(path, node, mayRetry));
            }
            return CompletableFuture.failedFuture(Failures.of("read of node " + path, reply.rc(), path));
        });
    }

    /** Deletes whatever node of this transaction exists, in every directory; completes when they are gone. */
    CompletableFuture<Void> sweep() {
        return CompletableFuture.allOf(IntStream.range(0, contexts.size())
                .mapToObj(i -> contexts.get(i).cleanup().sweep(uuids.get(i))).toArray(CompletableFuture[]::new));
    }

    static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> futures) {
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                .thenApply(v -> futures.stream().map(CompletableFuture::join).toList());
    }

    static CompletableFuture<Void> later(long ms) {
        Executor delayed = CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS, Threads.TIMER);
        return CompletableFuture.runAsync(() -> { }, delayed);
    }
}
