package io.zklock.cli;

import java.util.List;

/** One recipe's part of the demo: it runs on a {@link Stage} and reports what it saw. */
interface Story {

    /** Runs the story, printing progress; returns its row of the summary. */
    Result run(Stage stage) throws Exception;

    /** A property the story checked, with what was measured. */
    record Check(String name, boolean passed, String detail) {
        static Check of(String name, boolean passed, String detail) {
            return new Check(name, passed, detail);
        }
    }

    /**
     * A summary row: {@code operations} grants in {@code elapsedNanos} of contended running,
     * at most {@code peakHolders} leases held at once.
     */
    record Result(String recipe, int sessions, long operations, long elapsedNanos, int peakHolders, List<Check> checks) {
        double throughput() {
            return elapsedNanos <= 0 ? 0 : operations * 1e9 / elapsedNanos;
        }

        long passed() {
            return checks.stream().filter(Check::passed).count();
        }

        long failed() {
            return checks.size() - passed();
        }
    }
}
