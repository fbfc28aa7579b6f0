package io.zklock.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an unreachable ensemble at start-up into a one-line report naming the connect string,
 * instead of a stack of bean creation exceptions.
 */
public class EnsembleUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<EnsembleUnreachableException> {
    /** Made by Spring Boot from {@code META-INF/spring.factories}. */
    public EnsembleUnreachableFailureAnalyzer() {
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, EnsembleUnreachableException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Start ZooKeeper at " + cause.connectString() + ", or set zklock.connect-string to an ensemble that runs.",
                cause);
    }
}
