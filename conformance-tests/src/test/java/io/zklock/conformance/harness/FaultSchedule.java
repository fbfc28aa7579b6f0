package io.zklock.conformance.harness;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A schedule of operations and faults, run in order by {@link FaultScheduleRunner}: what jqwik
 * generates and shrinks, and what the soak nemesis draws at random.
 */
public record FaultSchedule(List<Step> steps) {

    /** The faults, each injected into one client's traffic, one session or the ensemble. */
    public enum Fault {
        /** The session of a client holding a lease is expired on the server. */
        HOLDER_EXPIRY,
        /** The session of a client that waits (and holds nothing) is expired on the server. */
        WAITER_EXPIRY,
        /** Connection loss shorter than the session timeout: cut, then heal after a quarter of it. */
        SHORT_CUT,
        /** Connection loss longer than the session timeout: the session expires meanwhile. */
        LONG_CUT,
        /** The client's traffic is frozen past its session timeout, then delivered. */
        FREEZE_PAST_TIMEOUT,
        /** The client hears nothing for twice its session timeout (it goes LOST), while the server hears it (the session lives on). */
        DEAFEN,
        /** The reply to the client's next create of a lock node is lost (the node was created). */
        LOST_CREATE_REPLY,
        /** The reply to the client's next delete of a lock node is lost (the node was deleted). */
        LOST_DELETE_REPLY,
        /** The reply to the client's next multi() on the lock is lost (the transaction was applied). */
        LOST_MULTI_REPLY,
        /** The empty lock directory is deleted just before the client's next create in it. */
        REAPED_DIRECTORY,
        /**
         * A holder (or, if none holds, the client) frozen as a whole for less than its validity
         * margin: its traffic held both ways and its worker stopped between a validity check and
         * its next write (see FaultScheduleRunner).
         */
        PROCESS_PAUSE,
        /**
         * A holder's (or, if none holds, the client's) clock, on which its leases count their
         * validity, runs slow or fast by up to the validity margin's rate part (1 % by default)
         * for the rest of the run (see FaultScheduleRunner).
         */
        CLOCK_SKEW,
        /** A server of the ensemble is killed and restarted. */
        SERVER_RESTART,
        /** The leader is killed and restarted. */
        LEADER_KILL,
        /** Two of the three servers are killed, then restarted. */
        QUORUM_LOSS;

        /** Whether it is armed and fires on a later request (counted when it fires), rather than applied at once. */
        public boolean armed() {
            return this == LOST_CREATE_REPLY || this == LOST_DELETE_REPLY || this == LOST_MULTI_REPLY || this == REAPED_DIRECTORY;
        }

        public boolean needsCluster() {
            return this == SERVER_RESTART || this == LEADER_KILL || this == QUORUM_LOSS;
        }
    }

    /** One step of a schedule. */
    public sealed interface Step permits Acquire, Inject, Pause {
    }

    /**
     * Client {@code client} requests the lock in a new thread (it does not wait for the grant),
     * holds it {@code holdMs} and releases. {@code variant} picks what is requested where a
     * recipe has several (read or write; which locks of a multi-lock).
     */
    public record Acquire(int client, int variant, int holdMs) implements Step {
        @Override
        public String toString() {
            return "acquire(c" + client + ", v" + variant + ", hold " + holdMs + "ms)";
        }
    }

    /** {@code fault} on client {@code client} (or on server {@code client % 3} for ensemble faults). */
    public record Inject(Fault fault, int client) implements Step {
        @Override
        public String toString() {
            return fault + "(c" + client + ")";
        }
    }

    /** Time passes. */
    public record Pause(int millis) implements Step {
        @Override
        public String toString() {
            return "pause(" + millis + "ms)";
        }
    }

    @Override
    public String toString() {
        return steps.stream().map(Step::toString).collect(Collectors.joining(", ", "[", "]"));
    }
}
