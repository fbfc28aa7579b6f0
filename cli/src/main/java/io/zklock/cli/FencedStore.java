package io.zklock.cli;

/**
 * The protected resource of the fencing story: a value that accepts a write only with a
 * fencing token at least as high as the highest it has seen. A holder that lost its lease
 * without knowing it (frozen past its session timeout) still carries its old token, lower than
 * its successor's, so its late write is refused instead of overwriting the successor's.
 */
final class FencedStore {
    /** The outcome of one write. */
    record Write(boolean accepted, long token, long highestSeen) {
    }

    private long highest = Long.MIN_VALUE;
    private String value = "";

    synchronized Write write(long token, String newValue) {
        if (token < highest) {
            return new Write(false, token, highest);
        }
        highest = token;
        value = newValue;
        return new Write(true, token, highest);
    }

    synchronized String value() {
        return value;
    }
}
