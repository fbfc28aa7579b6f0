package io.zklock.core;

/** What a request to revoke one node found; see {@link LockAdmin#requestRevocation(String)}. */
public enum RevocationResult {
    /** The request was written into the node's data; a holder that opted in is told. */
    REQUESTED,
    /** The node already carried a request; nothing was written. */
    ALREADY_REQUESTED,
    /**
     * The node does not exist now (its lease was released or lost): nothing is left to write
     * into and nothing else changed. One case blurs this: when the reply to the write was lost
     * with the connection, the write may have reached the node, and its holder may have let go,
     * before the client sent it again and found the node gone.
     */
    NODE_GONE,
    /**
     * The server refused this client's identity (NoAuth): the node's ACL does not let it read or
     * write the node. Nothing was written and the holder's lease is untouched; a client of
     * another tenant cannot ask for a lock it has no rights on.
     */
    NOT_AUTHORIZED
}
