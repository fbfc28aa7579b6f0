package io.zklock.core.internal.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.ClientTag;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.TreeWatch;
import io.zklock.core.spi.queue.LockNode;

/**
 * The lease caches of one client, one per lock directory, node name prefix and
 * {@code maxLeases} (every lock object of the client there shares it), attached to the client's
 * {@link SessionMonitor}. A cache left with no node, no local wait and no lead is dropped; what
 * puts something into a cache ({@link #adding}) runs under the registry's lock of that key, so
 * nothing is ever put into a cache that was dropped.
 */
public final class LeaseCaches {
    /**
     * How long a request waits, by default, on cached permits it needs before it asks every
     * cached permit ahead of it (AskBack), and how long a thread waits inside its process for
     * its own client's busy permit before it queues a node (a local wait): a cached permit
     * idles at most this long while a request needs it. The escalation bound.
     */
    static final Duration ESCALATION = Duration.ofMillis(25);

    /**
     * How many escalation bounds a waiter of a lock of one holder at a time (a mutex, a
     * read-write lock) waits before it asks the nodes ahead whose holder hears creations
     * (LockNode#hearsCreations): its create was their ask; this ask covers a holder that did
     * not hear it (cut off, on a server without tree watches). Longer than the escalation bound
     * so that a holder keeping its lease a little longer, or a loaded machine, costs no ask.
     */
    static final int HEARD_BOUND_IN_ESCALATIONS = 4;

    /** How many of the last creations heard a node adopted just now checks (see heardIn). */
    private static final int RECENT = 16;

    /** A creation heard: the directory (the server's path) and the node. */
    private record Heard(String directory, LockNode node) { }

    /** What one cache is for: a lock directory (the server's path), a node name prefix, and maxLeases. */
    record Key(String serverPath, String namePrefix, int maxLeases) {
        static Key of(LockContext context) {
            return new Key(context.port().serverPath(context.path()), context.namePrefix(), context.maxLeases());
        }
    }

    private final ConcurrentHashMap<Key, LeaseCache> caches = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Set<Key>> byDirectory = new ConcurrentHashMap<>();   // changed with caches, under its lock of the key
    private volatile boolean hearing;          // the client's tree watch tells us of creations
    private volatile String ownTag;            // the client's tag: its own creations are not heard (its waiters ask)
    private final Heard[] recent = new Heard[RECENT];   // guarded by itself: the last creations heard, a ring
    private int recentNext;                    // guarded by recent
    private volatile long escalationNanos = ESCALATION.toNanos();

    private LeaseCaches() {
    }

    /** {@return the registry of {@code monitor}'s client, made the first time} */
    static LeaseCaches of(SessionMonitor monitor) {
        return monitor.attachment(LeaseCaches.class, LeaseCaches::new);
    }

    /** {@return the registry of {@code monitor}'s client if one was made, else null} */
    static LeaseCaches existing(SessionMonitor monitor) {
        return monitor.existingAttachment(LeaseCaches.class);
    }

    /** {@return the cache of {@code key} now, or null if it has none} */
    LeaseCache get(Key key) {
        return caches.get(key);
    }

    /**
     * Runs {@code add} on the cache of {@code key} (made if there is none) under the registry's
     * lock of that key, which a drop takes too: what {@code add} puts in the cache stays in a
     * cache of the registry. {@code add} does bookkeeping only.
     */
    <T> T adding(Key key, boolean shared, Function<LeaseCache, T> add) {
        Object[] out = new Object[1];
        caches.compute(key, (k, cache) -> {
            LeaseCache live = cache != null ? cache : made(k, shared);
            out[0] = add.apply(live);
            return live;
        });
        @SuppressWarnings("unchecked")
        T result = (T) out[0];
        return result;
    }

    private LeaseCache made(Key key, boolean shared) {
        byDirectory.computeIfAbsent(key.serverPath(), d -> ConcurrentHashMap.newKeySet()).add(key);
        return new LeaseCache(this, key, shared);
    }

    /** Drops {@code cache} if it is still the one of {@code key} and holds nothing; call without its monitor. */
    void dropIfEmpty(Key key, LeaseCache cache) {
        caches.computeIfPresent(key, (k, now) -> {
            if (now != cache || !cache.isEmpty()) {
                return now;
            }
            byDirectory.computeIfPresent(k.serverPath(), (d, keys) -> keys.remove(k) && keys.isEmpty() ? null : keys);
            return null;
        });
        if (caches.isEmpty()) {
            synchronized (recent) {            // nothing cached: nothing to check creations for; keep no node
                Arrays.fill(recent, null);
            }
        }
    }

    /** From a kept node on, the client's tree watch tells the caches of each directory of the nodes created there (ASKED). */
    void hearCreations(LockContext context) {
        if (!hearing) {
            ownTag = ClientTag.of(context.monitor());
            hearing = true;
            TreeWatch tree = TreeWatch.of(context.monitor(), context.port());
            tree.onCreated((directory, name) -> created(tree, directory, name));
        }
    }

    private void created(TreeWatch tree, String directory, String name) {
        LockNode created = LockNode.parse(name).orElse(null);
        if (created == null || created.taggedBy(ownTag)) {
            return;                            // not a lock node, or our own client's: its waiter asks at once
        }
        synchronized (recent) {                // before the caches are looked at: see heardIn
            recent[recentNext] = new Heard(directory, created);
            recentNext = (recentNext + 1) % recent.length;
        }
        Set<Key> keys = byDirectory.get(directory);
        if (keys != null) {
            List<LockNode> nodes = keys.stream().anyMatch(k -> k.maxLeases() > 1) ? tree.hearing().sortedLockNodes(directory) : null;
            keys.forEach(k -> {
                LeaseCache cache = caches.get(k);
                if (cache != null) {
                    cache.created(created, nodes);
                }
            });
        }
    }

    /**
     * The creations in the directory at {@code serverPath} among the last {@code RECENT} heard:
     * what a node adopted just now checks, after it is in its cache, for a creation heard while
     * it was on its way there (a creation heard before this call was written before it; one
     * heard after finds the node in its cache).
     */
    List<LockNode> heardIn(String serverPath) {
        List<LockNode> found = new ArrayList<>();
        synchronized (recent) {
            for (Heard h : recent) {
                if (h != null && h.directory().equals(serverPath)) {
                    found.add(h.node());
                }
            }
        }
        return found;
    }

    /** {@return the caches of the lock directory at {@code serverPath}, any kind} */
    List<LeaseCache> on(String serverPath) {
        return caches.entrySet().stream().filter(e -> e.getKey().serverPath().equals(serverPath)).map(e -> e.getValue()).toList();
    }

    /** {@return the escalation bound of this client's waits, in nanoseconds (see ESCALATION)} */
    long escalationNanos() {
        return escalationNanos;
    }

    /** {@return how long this client's waiter behind a node whose holder hears creations waits before it asks it, in nanoseconds} */
    long heardBoundNanos() {
        return escalationNanos * HEARD_BOUND_IN_ESCALATIONS;
    }

    /** Another escalation bound for this client's waits: what a test in this package sets so that none happens within it. */
    void escalateAfter(Duration bound) {
        escalationNanos = bound.toNanos();
    }
}
