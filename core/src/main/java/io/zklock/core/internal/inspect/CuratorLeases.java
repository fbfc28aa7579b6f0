package io.zklock.core.internal.inspect;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import io.zklock.core.Participant;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.utils.ZKPaths;

/*
 * Curator's semaphore layout (InterProcessSemaphoreV2, and zklock's compatibility mode), as
 * status judges it: the lease nodes _c_<uuid>-lease-<seq> of <path>/leases are judged by
 * Curator's rule, not by a queue: each is a holder, but for at most one, the newest, when its
 * session holds the guard (the head of <path>/locks): that client created it under the guard and
 * may still be waiting for the count to fall (status cannot know maxLeases, which Curator keeps
 * nowhere). Two more reads, for such a path only: the guard's listing and its head's Stat.
 */
/** Curator's rule for a semaphore's leases directory, as {@link Inspection} applies it; see the comment at the top of the class. */
final class CuratorLeases {
    /** The leases directory's name, its nodes' kind, the guard directory's name (CuratorLayoutPermits). */
    static final String LEASES = "leases";
    private static final String LEASE_KIND = "lease";
    static final String GUARD = "locks";

    private final String path;
    private final LockNode newest;
    private final long guardSession;       // the session holding the guard, or 0 if none

    private CuratorLeases(String path, LockNode newest, long guardSession) {
        this.path = path;
        this.newest = newest;
        this.guardSession = guardSession;
    }

    /** Whether {@code path} is a semaphore's leases directory in Curator's layout: named leases, every node a lease. */
    static boolean isLayout(String path, List<LockNode> sorted) {
        return ZKPaths.getNodeFromPath(path).equals(LEASES) && !sorted.isEmpty()
                && sorted.stream().allMatch(n -> n.kind().equals(LEASE_KIND));
    }

    /**
     * The judge of {@code path}'s nodes if it is a leases directory ({@link #isLayout}), after
     * reading who holds its guard; empty, with nothing read, if it is not.
     */
    static Optional<CuratorLeases> of(ZkPort port, String path, List<LockNode> sorted) {
        if (!isLayout(path, sorted)) {
            return Optional.empty();
        }
        LockNode newest = sorted.stream().max(Comparator.comparingLong(LockNode::sequence)).orElseThrow();
        return Optional.of(new CuratorLeases(path, newest, guardHolderSession(port, path)));
    }

    /** The session holding the guard of a leases directory (the head of {@code ../locks}), or 0 if none. */
    private static long guardHolderSession(ZkPort port, String leasesPath) {
        String guard = ZKPaths.makePath(ZKPaths.getPathAndNode(leasesPath).getPath(), GUARD);
        ZkPort.Reply listing = Inspection.read(port.children(guard, null, null), guard);
        List<LockNode> queue = listing.ok() ? LockNode.sorted(listing.children()) : List.of();
        if (queue.isEmpty()) {
            return 0;
        }
        ZkPort.Reply head = Inspection.read(port.exists(ZKPaths.makePath(guard, queue.get(0).name()), null), guard);
        return head.ok() ? head.stat().getEphemeralOwner() : 0;
    }

    /** A lease node, judged by Curator's rule: a holder unless it is the guard holder's newest. */
    Participant judge(LockNode node, ZkPort.Reply data) {
        boolean holding = !(node.equals(newest) && guardSession != 0 && data.stat().getEphemeralOwner() == guardSession);
        String whose = Inspection.whose(node, data);
        String mode = LEASE_KIND + (whose.isEmpty() ? " [zklock, curator layout]" : whose);   // a lease is Curator's layout
        return new Participant(ZKPaths.makePath(path, node.name()), mode, node.sequence(), NodeData.owner(data.data()), holding,
                data.stat().getCzxid(), Instant.ofEpochMilli(data.stat().getCtime()), NodeData.revocationRequest(data.data()));
    }
}
