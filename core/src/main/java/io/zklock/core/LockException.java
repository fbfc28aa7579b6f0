package io.zklock.core;

/**
 * A ZooKeeper failure that retrying cannot fix (authorisation, a closed client, an unexpected
 * server answer), with the ZooKeeper exception as its cause where there is one.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
