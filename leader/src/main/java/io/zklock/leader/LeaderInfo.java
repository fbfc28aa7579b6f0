package io.zklock.leader;

import java.time.Instant;

/**
 * Who leads an election, as any client reads it ({@link ZkLeaderElection#currentLeader()},
 * {@link ZkLeaderElection#onLeaderChange}).
 *
 * @param participantId the leader's participant id, as written in its node's owner data
 *        ({@code "?"} for a node whose data names none)
 * @param epoch the leader's epoch: its node's czxid, the {@link Leadership#epoch()} it holds
 * @param since when the server created the leader's node: it has led for at most the time
 *        since (it may have waited in the queue first; an election writes nothing at the grant,
 *        so the moment of the grant is not on the server)
 * @param nodePath the full path of the leader's node
 */
public record LeaderInfo(String participantId, long epoch, Instant since, String nodePath) {

    /**
     * Checks the components; each is described above.
     *
     * @param participantId the {@link #participantId()}
     * @param epoch the {@link #epoch()}
     * @param since the {@link #since()}
     * @param nodePath the {@link #nodePath()}
     * @throws IllegalArgumentException if a reference argument is null
     */
    public LeaderInfo {
        if (participantId == null || since == null || nodePath == null) {
            throw new IllegalArgumentException("no argument of a LeaderInfo may be null");
        }
    }
}
