package io.zklock.core;

/** What a request to revoke one node found; see {@link LockAdmin#requestRevocation(String)}. */
public enum RevocationResult {
    /** The request was written into the node's data; a holder that opted in is told. */
    REQUESTED,
    /** The node already carried a request; nothing was written. */
    ALREADY_REQUESTED,
    /** The node does not exist (its lease was released or lost): nothing was written, nothing else changed. */
    NODE_GONE
}
