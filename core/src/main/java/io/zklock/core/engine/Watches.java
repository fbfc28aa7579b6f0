package io.zklock.core.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.apache.zookeeper.KeeperException;

/**
 * The watch registrations of one wait, used under its request's lock: which calls that
 * register a watch are still in flight, which registrations the server confirmed (by the step
 * that issued them), and, once the wait ends, the removal of every confirmed one. A
 * registration still in flight when the wait ends is removed when its reply arrives, and
 * {@link #endAll()} completes only after that.
 */
final class Watches {
    private final WatchBook book;
    private final ZkPort port;
    private final Map<Integer, WatchKey> confirmed = new HashMap<>();
    private final List<CompletableFuture<Void>> removals = new ArrayList<>();
    private final CompletableFuture<Void> allEnded = new CompletableFuture<>();
    private int inFlight;
    private boolean ending;

    Watches(WatchBook book, ZkPort port) {
        this.book = book;
        this.port = port;
    }

    /** Issues a call that registers {@code key}'s watch, counted in the book and here. */
    <T> CompletableFuture<T> register(WatchKey key, Supplier<CompletableFuture<T>> call) {
        inFlight++;
        return book.issued(key, call);
    }

    /** The reply (result code {@code rc}) of the call that registered {@code key} at {@code step}. */
    void answered(KeeperException.Code rc, WatchKey key, int step) {
        inFlight--;
        if (rc == KeeperException.Code.NONODE) {
            book.ended(key, false, port);      // a call on a missing node leaves no watch
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
    void fired(int step) {
        WatchKey key = confirmed.remove(step);
        if (key != null) {
            book.ended(key, false, port);
        }
    }

    /**
     * Ends every registration: confirmed ones are removed now, those in flight when answered.
     * Completes once every removal was answered; the same future on every call.
     */
    CompletableFuture<Void> endAll() {
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
}
