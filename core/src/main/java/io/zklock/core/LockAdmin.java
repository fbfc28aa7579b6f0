package io.zklock.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.zklock.core.internal.inspect.Inspection;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inspection and revocation of locks by path, with no lock object: what {@code zklock status}
 * and {@code zklock revoke} do, for code.
 *
 * <p>{@link #status(String)} shows, for any lock path of any recipe, who holds and who waits,
 * in queue order, each node judged by the driver of its own recipe (the recipe modules on the
 * class path say which kinds are theirs). It costs one listing and one read per node, issued
 * together; it takes no lock and changes nothing.
 *
 * <p>{@link #requestRevocation(String)} asks the holder of one node to let go, by writing a
 * {@link RevocationRequest} into the node's data (never by deleting it). A holder that opted in
 * with {@link Lease#onRevocationRequested} is told and decides; any other holder keeps its
 * lease. The request stays in the node until the node goes, so a holder that was disconnected
 * sees it when it reconnects.
 *
 * <p>Every method blocks until ZooKeeper answered, and throws {@link LockException} when it
 * cannot be read or written (the client is closed, the connection is lost for longer than
 * the client's retry policy rides out, or the ACL of the path refuses this client: the message
 * then says "not authorized (NoAuth) on" the path). A revocation request the node's ACL refuses
 * is not thrown on: it is {@link RevocationResult#NOT_AUTHORIZED}.
 *
 * <pre>{@code
 * LockAdmin admin = new LockAdmin(client);
 * for (Participant p : admin.status("/locks/orders").holders()) {
 *     System.out.println(p.owner() + " holds with token " + p.fencingToken());
 * }
 * admin.requestRevocationOfHolders("/locks/orders");
 * }</pre>
 */
public final class LockAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(LockAdmin.class);

    private final Inspection inspection;
    private final Watcher watcher = this::changed;
    /** The callbacks of each lock path, each told once at the path's next change. */
    private final Map<String, Set<Runnable>> waiting = new ConcurrentHashMap<>();

    /**
     * @param client a started Curator client; may be shared with locks
     * @throws IllegalArgumentException if the client is null
     */
    public LockAdmin(CuratorFramework client) {
        this.inspection = new Inspection(client);
    }

    /**
     * What is at a lock path now: who holds and who waits, in queue order, with owner,
     * fencing token, creation time and any revocation request; a path that is absent, empty,
     * not a lock directory or holds foreign children is reported as such, never thrown on.
     *
     * @param path the lock path, as given to the recipe
     * @return its status
     * @throws IllegalArgumentException if the path is not a valid lock path
     * @throws LockException if ZooKeeper cannot be read
     */
    public LockStatus status(String path) {
        return inspection.status(path, null);
    }

    /**
     * Like {@link #status(String)}, and calls {@code onNextChange} once, on a library thread,
     * at the next change of the path: a node that joins or leaves the queue, a node's data
     * (a revocation request), the directory made or removed. It is a ZooKeeper watch, not a
     * poll; call again to hear of the change after that.
     *
     * @param path the lock path
     * @param onNextChange told once of the next change
     * @return its status now
     * @throws IllegalArgumentException if the path is not a valid lock path or onNextChange is null
     * @throws LockException if ZooKeeper cannot be read
     */
    public LockStatus status(String path, Runnable onNextChange) {
        if (onNextChange == null) {
            throw new IllegalArgumentException("onNextChange is null");
        }
        LockPaths.validate(path);
        waiting.computeIfAbsent(path, p -> ConcurrentHashMap.newKeySet()).add(onNextChange);
        try {
            return inspection.status(path, watcher);
        } catch (RuntimeException e) {
            waiting.computeIfPresent(path, (p, set) -> {
                set.remove(onNextChange);
                return set.isEmpty() ? null : set;
            });
            throw e;
        }
    }

    /*
     * One watcher for every watch this admin sets: ZooKeeper keeps a set of watchers per path,
     * so watching the same node again on every redraw adds nothing, where a new watcher per call
     * would pile up in the client for every node that never changes.
     */
    private void changed(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
            return;
        }
        String path = event.getPath();
        String lockPath = LockNode.parse(ZKPaths.getNodeFromPath(path)).isPresent() ? ZKPaths.getPathAndNode(path).getPath() : path;
        Set<Runnable> toTell = waiting.remove(lockPath);
        if (toTell != null) {
            Thread t = new Thread(() -> toTell.forEach(LockAdmin::tell), "zklock-status-change");
            t.setDaemon(true);
            t.start();
        }
    }

    private static void tell(Runnable onNextChange) {
        try {
            onNextChange.run();
        } catch (RuntimeException e) {
            LOG.warn("a status change callback threw; ignored", e);
        }
    }

    /**
     * The lock directories at or under {@code root}, depth first in name order: every node
     * that has at least one lock node among its children. An idle lock (no holder, no waiter)
     * has no directory, and is not listed.
     *
     * @param root where to start; {@code "/"} walks the whole tree but {@code /zookeeper}
     * @return the lock paths found
     * @throws IllegalArgumentException if the root is not a valid path
     * @throws LockException if ZooKeeper cannot be read
     */
    public List<String> lockPaths(String root) {
        return inspection.lockPaths(root);
    }

    /**
     * Asks the holder of one lock node to let go, on behalf of this process and thread.
     *
     * @param nodePath the node's full path ({@link Participant#nodePath()}, {@link Lease#nodePath()})
     * @return {@link RevocationResult#REQUESTED}, {@link RevocationResult#ALREADY_REQUESTED},
     *         {@link RevocationResult#NODE_GONE} when the node no longer exists (nothing is written), or
     *         {@link RevocationResult#NOT_AUTHORIZED} when the node's ACL refuses this client (nothing is written)
     * @throws IllegalArgumentException if the path is invalid or not a lock node's
     * @throws LockException if ZooKeeper cannot be reached or refuses the write
     */
    public RevocationResult requestRevocation(String nodePath) {
        return requestRevocation(nodePath, RevocationRequest.now());
    }

    /**
     * Asks the holder of one lock node to let go, with the request given (an operator's name, say).
     *
     * @param nodePath the node's full path
     * @param request what to write
     * @return as {@link #requestRevocation(String)}
     * @throws IllegalArgumentException if the path is invalid or not a lock node's, or the request null
     * @throws LockException if ZooKeeper cannot be reached or refuses the write
     */
    public RevocationResult requestRevocation(String nodePath, RevocationRequest request) {
        return inspection.requestRevocation(nodePath, request);
    }

    /**
     * Asks every current holder of a lock path to let go. A holder that leaves between the
     * status read and the write is reported {@link RevocationResult#NODE_GONE}; a waiter is never asked.
     *
     * @param path the lock path
     * @return the result for each holder's node path, in queue order; empty if nobody holds
     * @throws IllegalArgumentException if the path is not a valid lock path
     * @throws LockException if ZooKeeper cannot be reached or refuses a write
     */
    public Map<String, RevocationResult> requestRevocationOfHolders(String path) {
        RevocationRequest request = RevocationRequest.now();
        Map<String, RevocationResult> results = new LinkedHashMap<>();
        for (Participant holder : status(path).holders()) {
            results.put(holder.nodePath(), requestRevocation(holder.nodePath(), request));
        }
        return results;
    }
}
