package io.zklock.core;

import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * One lock path as {@link LockAdmin#status(String)} found it: what is there, who holds and who
 * waits, in queue order.
 *
 * @param path the lock path, as given
 * @param state what the path is
 * @param recipe the recipe whose nodes the directory holds ({@code mutex}, {@code semaphore},
 *               {@code readwrite}), {@code mixed} for nodes of more than one, or empty when
 *               there are no lock nodes
 * @param maxLeases holders admitted at once: a semaphore's configured {@code maxLeases} (that
 *                  of its earliest node), 1 for the exclusive recipes, empty without lock nodes
 * @param participants the lock nodes in queue order
 * @param foreignChildren children whose names are not lock nodes (ignored by every recipe)
 * @param problems what is wrong with the directory, plainly; empty when nothing is
 */
public record LockStatus(String path, State state, String recipe, OptionalInt maxLeases, List<Participant> participants,
        List<String> foreignChildren, List<String> problems) {

    /** What a lock path is. */
    public enum State {
        /** No node at the path: nobody holds or waits (an idle lock's directory is removed by the server). */
        ABSENT,
        /** The directory exists and has no children. */
        EMPTY,
        /** The directory holds lock nodes (and possibly foreign children). */
        LOCK,
        /** The node has children, and none of them is a lock node: it is not a lock directory. */
        NOT_A_LOCK
    }

    /**
     * Checks and keeps the components; each is described above.
     *
     * @param path the {@link #path()}
     * @param state the {@link #state()}
     * @param recipe the {@link #recipe()}
     * @param maxLeases the {@link #maxLeases()}
     * @param participants the {@link #participants()}
     * @param foreignChildren the {@link #foreignChildren()}
     * @param problems the {@link #problems()}
     * @throws IllegalArgumentException if a reference argument is null
     */
    public LockStatus {
        if (path == null || state == null || recipe == null || maxLeases == null || participants == null
                || foreignChildren == null || problems == null) {
            throw new IllegalArgumentException("no argument of a LockStatus may be null");
        }
        participants = List.copyOf(participants);
        foreignChildren = List.copyOf(foreignChildren);
        problems = List.copyOf(problems);
    }

    /** {@return the participants that hold the lock now} */
    public List<Participant> holders() {
        return participants.stream().filter(Participant::holding).collect(Collectors.toUnmodifiableList());
    }

    /** {@return the participants that wait, in queue order} */
    public List<Participant> waiters() {
        return participants.stream().filter(p -> !p.holding()).collect(Collectors.toUnmodifiableList());
    }
}
