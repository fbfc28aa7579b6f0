package io.zklock.core.internal.lease;

/**
 * What keeps a node's lease after use: a lease cache (see {@code io.zklock.core.internal.cache}).
 * The one hook a {@link ZkLease} has for it, set once with {@link ZkLease#keptBy(Keeper)}: the
 * lease asks it how loud a loss is, and its revocation watch tells it of a write into the node.
 */
public interface Keeper {
    /** {@return whether no lease is in use on the node now: its loss with the session is then logged quietly} */
    boolean idle();

    /**
     * The node was written (a data event), or a read found an ask in it: a waiter asks it back,
     * or an operator requests its revocation. Told once, on a library thread.
     */
    void askedBack();
}
