package io.zklock.core.spi;

import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.inspect.HeadWatch;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;

/**
 * A watch on the head of a lock directory's queue (its first lock node), for a recipe whose
 * users observe who is first with no lock object: an election's leader. One watch per client and
 * directory, shared by every subscriber on them, counted with the client's waiters' watches (so
 * ending one never removes a watch the other relies on) and read again at each reconnection;
 * nothing is polled. How it reads is told at the top of {@code HeadWatch}
 * ({@code io.zklock.core.internal.inspect}).
 */
public final class QueueHeadWatch {
    private QueueHeadWatch() {
    }

    /**
     * The head of a queue as read.
     *
     * @param nodePath the node's full path
     * @param node the node, parsed from its name
     * @param czxid the node's czxid: the fencing token of its lease once granted
     * @param createdAt when the server created the node
     * @param participantId the participant its data names (see {@link LockEngine#withParticipant}), if any
     */
    public record Head(String nodePath, LockNode node, long czxid, Instant createdAt, Optional<String> participantId) {
    }

    /**
     * Tells {@code subscriber} the head of {@code path}'s queue once it is read (at once if the
     * client's watch already knows it), then each time another node becomes the head, until the
     * returned action is run. Calls come on a ZooKeeper event thread (the first may come on the
     * subscribing thread), one at a time and in order; a subscriber must not block. Two quick
     * changes may be told as one.
     *
     * @param client a Curator client
     * @param path the lock directory
     * @param subscriber told the new head, or empty when the queue is empty or the path missing
     * @return ends the subscription (the client's watch ends with its last one); idempotent
     * @throws IllegalArgumentException if an argument is null or the path is invalid
     */
    public static Runnable subscribe(CuratorFramework client, String path, Consumer<Optional<Head>> subscriber) {
        if (subscriber == null) {
            throw new IllegalArgumentException("subscriber is null");
        }
        return HeadWatch.of(client, path).subscribe(head -> subscriber.accept(head.map(QueueHeadWatch::head)));
    }

    static Head head(HeadWatch.Head read) {
        return new Head(read.nodePath(), read.node(), read.stat().getCzxid(), Instant.ofEpochMilli(read.stat().getCtime()),
                NodeData.participantId(read.data()));
    }
}
