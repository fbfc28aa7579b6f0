package io.zklock.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a bad {@code zklock.} setting at start-up into a one-line report naming the property,
 * instead of a stack of bean creation exceptions.
 */
public class InvalidZkLockPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidZkLockPropertyException> {
    /** Made by Spring Boot from {@code META-INF/spring.factories}. */
    public InvalidZkLockPropertyFailureAnalyzer() {
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidZkLockPropertyException cause) {
        return new FailureAnalysis(cause.getMessage(), "Set " + cause.property() + " to a valid value.", cause);
    }
}
