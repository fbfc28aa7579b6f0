package io.zklock.core.internal.zk;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.zookeeper.KeeperException;

/*
 * Server-side watches. ZooKeeper keeps one watch per path and session, whatever number of
 * client-side watchers share it, and removing one watcher does not remove the server's watch:
 * only "remove all watches of this path" does. So the client keeps a Book that counts its
 * waiters watching each path, and asks the server to remove the watch only when the last of
 * them gives up. Registration and removal are issued under the book's lock, so a removal can
 * never overtake a registration issued before it (one session's requests are processed in
 * order). A registration whose outcome is unknown is not uncounted: an overcount leaves a watch
 * until its node goes, an undercount could remove a watch a waiter relies on.
 *
 * The book counts for one session, its epoch. The rule at a session change:
 *   - The first time the book sees a new session id (at a registration, an answer or an end, or
 *     told by the monitor at a reconnection), the epoch ends and every count is dropped: the
 *     server dropped the old session's watches with it, so nothing is left to remove, and an
 *     unknown outcome of the old session is known at last.
 *   - Each registration carries the epoch it was counted in. Ending or firing one of an earlier
 *     epoch uncounts nothing and removes nothing.
 *   - A registration of an earlier epoch answered OK is counted again in the current epoch: Curator
 *     retries a call through connection loss and session expiry, so it may have set its watch on
 *     the new session, and leaving it uncounted would let another waiter's end remove that watch.
 *     If it was set on the old session instead, the extra count is an overcount, dropped with the
 *     next epoch.
 *   - Between the change and that answer the registration is uncounted, so a removal may remove
 *     the watch it is setting; the watcher then hears a watch-removed event, and every watcher
 *     of ours takes any event but a connection event as "look again". Nobody is stranded.
 *
 * Each wait keeps its own registrations here too (used under its owner's lock): which calls
 * that register a watch are in flight, which registrations the server confirmed (by the step
 * that issued them and their key: one step may watch several paths), and, once the wait ends,
 * the removal of every confirmed one. A
 * registration still in flight when the wait ends is removed when its reply arrives, and
 * endAll() completes only after that.
 */
/** The watch registrations of one wait, counted in its client's {@link Book} (see the comment above). */
public final class Watches {
    private final Book book;
    private final ZkPort port;
    private final Map<Slot, Counted> confirmed = new HashMap<>();
    /** Per key, the epochs of the registrations in flight, in the order they were issued. */
    private final Map<WatchKey, List<Integer>> inFlight = new HashMap<>();
    private final List<CompletableFuture<Void>> removals = new ArrayList<>();
    private final CompletableFuture<Void> allEnded = new CompletableFuture<>();
    private boolean ending;

    /** A registration counted in the book's epoch {@code epoch}. */
    private record Counted(WatchKey key, int epoch) { }

    /** Which confirmed registration: the step that issued it, and its key. */
    private record Slot(int step, WatchKey key) { }

    public Watches(Book book, ZkPort port) {
        this.book = book;
        this.port = port;
    }

    /** Issues a call that registers {@code key}'s watch, counted in the book and here. */
    public <T> CompletableFuture<T> register(WatchKey key, Supplier<CompletableFuture<T>> call) {
        int[] epoch = new int[1];
        CompletableFuture<T> reply = book.issued(key, call, epoch);
        inFlight.computeIfAbsent(key, k -> new ArrayList<>()).add(epoch[0]);
        return reply;
    }

    /**
     * The reply (result code {@code rc}) of the call that registered {@code key} at {@code step};
     * null if the call could not even be issued.
     */
    public void answered(KeeperException.Code rc, WatchKey key, int step) {
        boolean ok = rc == KeeperException.Code.OK;
        Counted counted = book.answered(key, takeInFlight(key, ok), ok);
        if (rc == null || rc == KeeperException.Code.NONODE) {
            book.ended(counted, false, port);  // a call never sent, or on a missing node, leaves no watch
        } else if (ok) {
            if (ending) {
                removals.add(book.ended(counted, true, port));   // the wait ended while it was in flight
            } else {
                confirmed.put(new Slot(step, key), counted);
            }
        }
        completeIfEnded();
    }

    /**
     * Which in-flight registration of {@code key} an answer is for. Replies to one key may come
     * in another order than the calls across a session change; an OK answer takes one of the
     * current epoch first (its count stands), any other answer one of an earlier epoch (nothing
     * to uncount), which never counts less than the truth.
     */
    private int takeInFlight(WatchKey key, boolean ok) {
        List<Integer> epochs = inFlight.get(key);
        if (epochs == null || epochs.isEmpty()) {
            throw new IllegalStateException("an answer for " + key + " with no registration in flight");
        }
        int current = book.epoch();
        int index = 0;
        for (int i = 0; i < epochs.size(); i++) {
            if ((epochs.get(i) == current) == ok) {
                index = i;
                break;
            }
        }
        int epoch = epochs.remove(index);
        if (epochs.isEmpty()) {
            inFlight.remove(key);
        }
        return epoch;
    }

    /** {@return whether a registration of this wait is unanswered (of any step)} */
    public boolean anyInFlight() {
        return !inFlight.isEmpty();
    }

    /** The watch registered at {@code step} fired: the server has dropped it. For a step that registered one key. */
    public void fired(int step) {
        confirmed.keySet().stream().filter(slot -> slot.step() == step).toList().forEach(slot -> fired(step, slot.key()));
    }

    /** The watch of {@code key} registered at {@code step} fired: the server has dropped it. */
    public void fired(int step, WatchKey key) {
        Counted counted = confirmed.remove(new Slot(step, key));
        if (counted != null) {
            book.ended(counted, false, port);
        }
    }

    /**
     * Ends every registration: confirmed ones are removed now, those in flight when answered.
     * Completes once every removal was answered; the same future on every call.
     */
    public CompletableFuture<Void> endAll() {
        if (!ending) {
            ending = true;
            confirmed.values().forEach(counted -> removals.add(book.ended(counted, true, port)));
            confirmed.clear();
            completeIfEnded();
        }
        return allEnded;
    }

    private void completeIfEnded() {
        if (ending && inFlight.isEmpty() && !allEnded.isDone()) {
            CompletableFuture.allOf(removals.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> allEnded.complete(null));
        }
    }

    /** The count of one client's waiters per server watch, for its current session (see the comment above). */
    public static final class Book {
        private final LongSupplier sessionId;
        // guarded by this
        private final Map<WatchKey, Integer> refs = new HashMap<>();
        private long session;
        private int epoch;

        /** @param sessionId the client's current session id, 0 when it has none */
        public Book(LongSupplier sessionId) {
            this.sessionId = sessionId;
        }

        /** The client is on {@code session} (0: none yet): a new one ends the epoch and its counts. */
        public synchronized void seen(long session) {
            if (session != 0 && session != this.session) {
                this.session = session;
                epoch++;
                refs.clear();
            }
        }

        private synchronized int epoch() {
            seen(sessionId.getAsLong());
            return epoch;
        }

        /** Issues a watch registration and counts it; its epoch is left in {@code epochOut[0]}. */
        synchronized <T> T issued(WatchKey key, Supplier<T> issue, int[] epochOut) {
            epochOut[0] = epoch();
            refs.merge(key, 1, Integer::sum);
            return issue.get();
        }

        /** A registration counted in {@code counted}'s epoch was answered: an OK of an earlier epoch is counted again now. */
        synchronized Counted answered(WatchKey key, int countedIn, boolean ok) {
            int now = epoch();
            if (ok && countedIn != now) {
                refs.merge(key, 1, Integer::sum);
                return new Counted(key, now);
            }
            return new Counted(key, countedIn);
        }

        /**
         * One registration is over. If it was counted in the current epoch, it is uncounted; if it
         * was the last of its key and {@code remove} is set, the server's watch is removed through
         * {@code port}; the future completes after that call was answered (a removal that fails is
         * dropped: a leftover watch fires once, harmlessly).
         */
        synchronized CompletableFuture<Void> ended(Counted counted, boolean remove, ZkPort port) {
            if (counted.epoch() != epoch()) {
                return CompletableFuture.completedFuture(null);   // its session, and its watch, are gone
            }
            Integer left = refs.computeIfPresent(counted.key(), (k, n) -> n <= 1 ? null : n - 1);
            if (left == null && remove) {
                return port.removeWatches(counted.key()).handle((reply, error) -> null);
            }
            return CompletableFuture.completedFuture(null);
        }

        /** How many registrations are counted on {@code key} in the current session: for tests. */
        public synchronized int count(WatchKey key) {
            epoch();
            return refs.getOrDefault(key, 0);
        }
    }
}
