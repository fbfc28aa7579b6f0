package io.zklock.core.engine;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/*
 * Server-side watches of one session. ZooKeeper keeps one watch per path and session, whatever
 * number of client-side watchers share it, and removing one watcher does not remove the server's
 * watch: only "remove all watches of this path" does. So the book counts the waiters of this
 * session watching each path, and asks the server to remove the watch only when the last of
 * them gives up. Registration and removal are issued under the book's lock, so a removal can
 * never overtake a registration issued before it (one session's requests are processed in
 * order). A registration whose outcome is unknown is never uncounted: an overcount leaves a
 * watch until its node goes, an undercount could strand a waiter.
 */
/** The count of this session's waiters per server watch (see the comment above). */
final class WatchBook {
    private final Map<WatchKey, Integer> refs = new HashMap<>();   // guarded by this

    /** Issues a watch registration and counts it. */
    synchronized <T> T issued(WatchKey key, Supplier<T> issue) {
        refs.merge(key, 1, Integer::sum);
        return issue.get();
    }

    /**
     * One registration is over. If it was the last of its key and {@code remove} is set, the
     * server's watch is removed through {@code port}; the future completes after that call was
     * answered (a removal that fails is dropped: a leftover watch fires once, harmlessly).
     */
    synchronized CompletableFuture<Void> ended(WatchKey key, boolean remove, ZkPort port) {
        Integer left = refs.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
        if (left == null && remove) {
            return port.removeWatches(key).handle((reply, error) -> null);
        }
        return CompletableFuture.completedFuture(null);
    }

    /** How many registrations are counted on {@code key}: for tests. */
    synchronized int count(WatchKey key) {
        return refs.getOrDefault(key, 0);
    }
}
