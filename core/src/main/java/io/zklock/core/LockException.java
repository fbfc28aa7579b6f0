package io.zklock.core;

/**
 * A ZooKeeper failure that retrying cannot fix (authorisation, a closed client, an unexpected
 * server answer), with the ZooKeeper exception as its cause where there is one.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure without a cause.
     *
     * @param message what failed
     */
    public LockException(String message) {
        super(message);
    }

    /**
     * A failure caused by another exception.
     *
     * @param message what failed
     * @param cause the exception that caused it, usually ZooKeeper's
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
