package io.zklock.core;

import java.time.Instant;
import java.util.Optional;

/**
 * One node of a lock directory, as {@link LockAdmin#status(String)} and the recipes'
 * {@code participants()} show it.
 *
 * @param nodePath full path of the node
 * @param mode what the node asks for: {@code mutex}, {@code read}, {@code write},
 *             {@code permit} (a semaphore's), {@code multi} (one of a multi-lock's nodes), or the
 *             kind written in the node's name when no recipe on the class path knows it
 * @param sequence the sequence number ZooKeeper gave the node
 * @param owner who created it
 * @param holding whether the recipe's driver grants it, given the directory as listed
 * @param fencingToken the node's czxid: the token its lease carries once granted
 * @param createdAt when the server created the node (the request's arrival; a holder has held
 *                  for at most the time since)
 * @param revocationRequest the revocation request written into the node, if any
 * @param participantId the participant the node's data names (a leader election's candidate),
 *                      if any
 * @param lockDelayUntil when the lock-delay a granted node waits out ends, if it waits one (see
 *        {@link LockDelay}): its request is not yet HELD
 */
public record Participant(String nodePath, String mode, long sequence, OwnerInfo owner, boolean holding,
        long fencingToken, Instant createdAt, Optional<RevocationRequest> revocationRequest, Optional<String> participantId,
        Optional<Instant> lockDelayUntil) {

    /**
     * Whether the node is granted but waits out a lock-delay at {@code now}.
     *
     * @param now the time to judge at
     * @return whether it holds and its lock-delay has not ended
     */
    public boolean inLockDelay(Instant now) {
        return holding && lockDelayUntil.map(now::isBefore).orElse(false);
    }

    /**
     * Checks and keeps the components; each is described above.
     *
     * @param nodePath the {@link #nodePath()}
     * @param mode the {@link #mode()}
     * @param sequence the {@link #sequence()}
     * @param owner the {@link #owner()}
     * @param holding the {@link #holding()}
     * @param fencingToken the {@link #fencingToken()}
     * @param createdAt the {@link #createdAt()}
     * @param revocationRequest the {@link #revocationRequest()}
     * @param participantId the {@link #participantId()}
     * @param lockDelayUntil the {@link #lockDelayUntil()}
     * @throws IllegalArgumentException if a reference argument is null
     */
    public Participant {
        if (nodePath == null || mode == null || owner == null || createdAt == null || revocationRequest == null
                || participantId == null || lockDelayUntil == null) {
            throw new IllegalArgumentException("no argument of a Participant may be null");
        }
    }

    /**
     * A participant whose node names no participant id and waits out no lock-delay; each argument
     * is described above.
     *
     * @param nodePath the {@link #nodePath()}
     * @param mode the {@link #mode()}
     * @param sequence the {@link #sequence()}
     * @param owner the {@link #owner()}
     * @param holding the {@link #holding()}
     * @param fencingToken the {@link #fencingToken()}
     * @param createdAt the {@link #createdAt()}
     * @param revocationRequest the {@link #revocationRequest()}
     * @throws IllegalArgumentException if a reference argument is null
     */
    public Participant(String nodePath, String mode, long sequence, OwnerInfo owner, boolean holding,
            long fencingToken, Instant createdAt, Optional<RevocationRequest> revocationRequest) {
        this(nodePath, mode, sequence, owner, holding, fencingToken, createdAt, revocationRequest, Optional.empty(),
                Optional.empty());
    }

    /**
     * Whether the node's process may keep it after its last lease closes (a cached lease, see
     * {@link LeaseCaching}): a holder marked so may be idle, granted to nobody in its process,
     * and goes once a conflicting waiter asks for it or its idle period ends.
     *
     * @return whether the node is a caching one, as its name says
     */
    public boolean cached() {
        return io.zklock.core.spi.queue.LockNode.parse(nodeName()).map(io.zklock.core.spi.queue.LockNode::caches).orElse(false);
    }

    /** {@return the node's name, relative to its lock directory} */
    public String nodeName() {
        return nodePath.substring(nodePath.lastIndexOf('/') + 1);
    }
}
