package io.zklock.benchmarks;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * One measured round of one library, written into a JFR recording ({@code --jfr}) so that
 * {@link JfrCost} can split the recording's events by library: its duration is the round's,
 * and it carries the round's exact counts ({@link ClientCost}, the server's requests).
 */
@Name(RoundEvent.NAME)
@Label("Benchmark round")
@Category("zklock benchmarks")
@Description("One library's measured round of one scenario")
final class RoundEvent extends jdk.jfr.Event {
    static final String NAME = "io.zklock.benchmarks.Round";

    @Label("Scenario")
    String scenario;

    @Label("Library")
    String library;

    @Label("Round")
    int round;

    @Label("Operations")
    long ops;

    @Label("Server requests")
    long requests;

    @Label("Client bytes allocated")
    @DataAmount
    long clientBytes;

    @Label("Client thread waits")
    long clientWaits;
}
