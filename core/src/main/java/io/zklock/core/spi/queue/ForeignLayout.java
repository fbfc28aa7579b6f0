package io.zklock.core.spi.queue;

import java.util.List;

/**
 * Where another library's clients of the same lock keep their nodes, below the lock directory,
 * out of the queue a driver decides on: Curator's {@code InterProcessSemaphoreV2} keeps its
 * guard mutex in {@code <path>/locks} and its leases in {@code <path>/leases}. A driver that
 * cannot be safe beside those clients names their directories ({@link LockDriver#foreignLayout()});
 * when a listing of the lock directory shows one, the engine lists it (a request paid only
 * then) and, if a lock node there is not zklock's ({@link LockNode#zklockMarked()}), refuses
 * the request with a {@code LockException} naming the path and those nodes.
 *
 * @param owner whose clients write the layout, as a refusal names it
 *        ({@code Curator's InterProcessSemaphoreV2})
 * @param directories the child directories of the lock directory that hold their nodes
 */
public record ForeignLayout(String owner, List<String> directories) {
    /** No foreign layout to look for. */
    public static final ForeignLayout NONE = new ForeignLayout("", List.of());

    /** @throws IllegalArgumentException if an argument is null or a directory is not a plain child name */
    public ForeignLayout {
        if (owner == null || directories == null) {
            throw new IllegalArgumentException("owner and directories must not be null");
        }
        directories = List.copyOf(directories);
        for (String d : directories) {
            if (d.isEmpty() || d.contains("/")) {
                throw new IllegalArgumentException("not a child name: '" + d + "'");
            }
        }
    }

    /** {@return the directories among {@code children} (a listing of the lock directory), in this layout's order} */
    public List<String> shownIn(List<String> children) {
        if (directories.isEmpty()) {
            return List.of();
        }
        return directories.stream().filter(children::contains).toList();
    }
}
