package io.zklock.core.internal.zk;

import java.util.List;
import java.util.Set;

import io.zklock.core.spi.queue.LockNode;

/**
 * What a client's {@link TreeWatch} tells of the lock directories under its roots, from the
 * {@link DirectoryCounts} it keeps (see both): counts for a cached semaphore's miss, the lock
 * nodes a holder of cached permits judges a creation by, and, for a waiter of the client that
 * waits for nodes ahead to go (HEAR), their deletions and the queue they leave.
 */
public final class Hearing {
    private final ZkPort port;
    private final DirectoryCounts counts;
    private final TreeWatch tree;

    Hearing(ZkPort port, DirectoryCounts counts, TreeWatch tree) {
        this.port = port;
        this.counts = counts;
        this.tree = tree;
    }

    /**
     * A listing of the lock directory at {@code dir} (a server path), sent on {@code session},
     * was answered; on the event thread, in the order of the replies (see DirectoryCounts,
     * BASE: it is one only if the root's watch was COVERED on that same session).
     */
    public void listed(String dir, long session, ZkPort.Reply reply) {
        DirectoryCounts.tell(counts.listed(dir, reply.children(), reply.ok() ? tree.coveredGeneration(dir + "/-", session) : -1));
    }

    /**
     * HEAR: tells {@code then} once, on the event thread, when a node named in {@code names} goes
     * from the directory at {@code dir} (a server path) or this client's watch can no longer
     * tell; {@return how to call it off, or null if it cannot tell now or one of them is gone}
     */
    public Runnable await(String dir, Set<String> names, Runnable then) {
        long session = port.sessionId();
        return port.isConnected() ? counts.await(dir, tree.coveredGeneration(dir + "/-", session), names, then) : null;
    }

    /** HEAR: {@return the directory's lock nodes in queue order, as exact as a listing made now, or null if it cannot tell} */
    public List<LockNode> exactLockNodes(String dir) {
        long session = port.sessionId();
        return port.isConnected() ? counts.exact(dir, tree.coveredGeneration(dir + "/-", session)) : null;
    }

    /**
     * {@return the lock nodes in the directory at {@code dir} (a server path) as this client's
     * watch tells them, or -1 if it cannot tell (see DirectoryCounts)}; the directory is counted
     * from now on.
     */
    public int lockNodes(String dir) {
        long session = port.sessionId();
        return port.isConnected() ? counts.nodes(dir, tree.coveredGeneration(dir + "/-", session)) : -1;
    }

    /** {@return the lock nodes in the directory at {@code dir} in queue order as this client's watch tells them, or null} */
    public List<LockNode> sortedLockNodes(String dir) {
        long session = port.sessionId();
        return port.isConnected() ? counts.sorted(dir, tree.coveredGeneration(dir + "/-", session)) : null;
    }
}
