package io.zklock.spring.integration;

/**
 * Hears a {@link ZkRegistryLock} whose lease was lost while a thread of this process held it:
 * its ZooKeeper session expired, or its node was deleted by another client. Another client may
 * hold the lock from then on; the holding thread learns it at its next re-entry (refused) or
 * unlock ({@link java.util.ConcurrentModificationException}), and a listener lets the
 * application stop the work sooner. A time to live running out is not a loss: the holder chose it.
 *
 * <p>Called on a ZooKeeper event thread: be quick, never block, never wait for ZooKeeper. A
 * listener that throws is logged and ignored.
 */
@FunctionalInterface
public interface LockLostListener {
    /**
     * A held lock's lease was lost.
     *
     * @param lock the lock (its {@link ZkRegistryLock#key() key} and path)
     * @param nodePath the lost lease's node
     * @param fencingToken the lost lease's fencing token: a resource that checks tokens refuses it
     *        once a later holder's token reached it
     */
    void lockLost(ZkRegistryLock lock, String nodePath, long fencingToken);
}
