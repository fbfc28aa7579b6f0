package io.zklock.core.internal.zk;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.apache.zookeeper.KeeperException;

/*
 * Server-side watches. ZooKeeper keeps one watch per path and session, whatever number of
 * client-side watchers share it, and removing one watcher does not remove the server's watch:
 * only "remove all watches of this path" does. So each session keeps a Book that counts its
 * waiters watching each path, and asks the server to remove the watch only when the last of
 * them gives up. Registration and removal are issued under the book's lock, so a removal can
 * never overtake a registration issued before it (one session's requests are processed in
 * order). A registration whose outcome is unknown is never uncounted: an overcount leaves a
 * watch until its node goes, an undercount could strand a waiter.
 *
 * Each wait keeps its own registrations here too (used under its request's lock): which calls
 * that register a watch are in flight, which registrations the server confirmed (by the step
 * that issued them), and, once the wait ends, the removal of every confirmed one. A
 * registration still in flight when the wait ends is removed when its reply arrives, and
 * endAll() completes only after that.
 */
/** The watch registrations of one wait, counted in its session's {@link Book} (see the comment above). */
public final class Watches {
    private final Book book;
    private final ZkPort port;
    private final Map<Integer, WatchKey> confirmed = new HashMap<>();
    private final List<CompletableFuture<Void>> removals = new ArrayList<>();
    private final CompletableFuture<Void> allEnded = new CompletableFuture<>();
    private int inFlight;
    private boolean ending;

    public Watches(Book book, ZkPort port) {
        this.book = book;
        this.port = port;
    }

    /** Issues a call that registers {@code key}'s watch, counted in the book and here. */
    public <T> CompletableFuture<T> register(WatchKey key, Supplier<CompletableFuture<T>> call) {
        inFlight++;
        return book.issued(key, call);
    }

    /**
     * The reply (result code {@code rc}) of the call that registered {@code key} at {@code step};
     * null if the call could not even be issued.
     */
    public void answered(KeeperException.Code rc, WatchKey key, int step) {
        inFlight--;
        if (rc == null || rc == KeeperException.Code.NONODE) {
            book.ended(key, false, port);      // a call never sent, or on a missing node, leaves no watch
        } else if (rc == KeeperException.Code.OK) {
            if (ending) {
                removals.add(book.ended(key, true, port));   // the wait ended while it was in flight
            } else {
                confirmed.put(step, key);
            }
        }
        completeIfEnded();
    }

    /** The watch registered at {@code step} fired: the server has dropped it. */
    public void fired(int step) {
        WatchKey key = confirmed.remove(step);
        if (key != null) {
            book.ended(key, false, port);
        }
    }

    /**
     * Ends every registration: confirmed ones are removed now, those in flight when answered.
     * Completes once every removal was answered; the same future on every call.
     */
    public CompletableFuture<Void> endAll() {
        if (!ending) {
            ending = true;
            confirmed.values().forEach(key -> removals.add(book.ended(key, true, port)));
            confirmed.clear();
            completeIfEnded();
        }
        return allEnded;
    }

    private void completeIfEnded() {
        if (ending && inFlight == 0 && !allEnded.isDone()) {
            CompletableFuture.allOf(removals.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> allEnded.complete(null));
        }
    }

    /** The count of one session's waiters per server watch. */
    public static final class Book {
        private final Map<WatchKey, Integer> refs = new HashMap<>();   // guarded by this

        /** Issues a watch registration and counts it. */
        synchronized <T> T issued(WatchKey key, Supplier<T> issue) {
            refs.merge(key, 1, Integer::sum);
            return issue.get();
        }

        /**
         * One registration is over. If it was the last of its key and {@code remove} is set,
         * the server's watch is removed through {@code port}; the future completes after that
         * call was answered (a removal that fails is dropped: a leftover watch fires once,
         * harmlessly).
         */
        synchronized CompletableFuture<Void> ended(WatchKey key, boolean remove, ZkPort port) {
            Integer left = refs.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
            if (left == null && remove) {
                return port.removeWatches(key).handle((reply, error) -> null);
            }
            return CompletableFuture.completedFuture(null);
        }

        /** How many registrations are counted on {@code key}: for tests. */
        public synchronized int count(WatchKey key) {
            return refs.getOrDefault(key, 0);
        }
    }
}
