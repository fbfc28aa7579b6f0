package io.zklock.spring.boot;

/**
 * A {@code zklock.} setting is blank, missing or out of range at start-up. Its message is one
 * line that names the property, its value and what is wrong with it, and
 * {@link InvalidZkLockPropertyFailureAnalyzer} makes it the whole start-up failure report.
 */
public class InvalidZkLockPropertyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The property, e.g. {@code zklock.root}. */
    private final String property;

    /**
     * @param property the property, e.g. {@code zklock.root}
     * @param value its value, null if it has none
     * @param reason what is wrong with it
     */
    public InvalidZkLockPropertyException(String property, String value, String reason) {
        super(property + (value == null ? " has no value" : " = '" + value + "'") + " is not valid: " + reason);
        this.property = property;
    }

    /** {@return the property, e.g. {@code zklock.root}} */
    public String property() {
        return property;
    }
}
