package io.zklock.spring.boot;

import java.time.Duration;

/**
 * The ZooKeeper ensemble could not be reached at start-up. Its message is one line that names
 * the connect string, and {@link EnsembleUnreachableFailureAnalyzer} makes it the whole
 * start-up failure report.
 */
public class EnsembleUnreachableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The connect string that could not be reached. */
    private final String connectString;

    /**
     * @param connectString the ensemble the client tried
     * @param waited how long it waited for a connection
     */
    public EnsembleUnreachableException(String connectString, Duration waited) {
        super("cannot reach ZooKeeper at " + connectString + " within " + waited.toMillis() + " ms");
        this.connectString = connectString;
    }

    /** {@return the ensemble the client tried} */
    public String connectString() {
        return connectString;
    }
}
