package io.zklock.core.internal.lease;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.zklock.core.internal.LockContext;
import org.apache.curator.framework.CuratorFramework;

/*
 * Overview.
 *
 * A multi-lock's nodes are not thread holds of its components (one transaction deletes them
 * all), so a reentrant component cannot re-enter them. A blocking acquisition of such a
 * component by the thread that holds it through a multi-lock would queue behind the thread's
 * own node and wait forever. This registry lets the component see that and refuse instead:
 * an entry {owner id, client, lock directory} -> holder is made when a blocking multi-lock
 * acquisition creates a node in that directory for that owner, and removed when the
 * multi-lock's last lease closes or is LOST. An entry whose holder is no longer live (closed,
 * LOST, or none of its open leases reachable: a lease dropped unclosed) is dropped by the next
 * lookup of it and by the next registration (of any entries), so it does not outlive its lease.
 * Owner ids are thread ids (the SPI's Owners.current()); no Thread object is retained.
 */
/**
 * Which lock directories each thread holds through a multi-lock, so that a reentrant lock
 * refuses at once a blocking acquisition that would wait for the thread's own multi-lock node.
 * Its holders are {@link MultiGrant}s; the SPI's re-entry supports register and consult them.
 */
public final class MultiLockHolds {
    private static final Map<Key, Holder> HOLDS = new ConcurrentHashMap<>();

    private MultiLockHolds() {
    }

    /** Whatever holds the directories: a multi-lock's grant. */
    public interface Holder {
        /** False once the grant's last lease is closed, the grant is LOST, or none of its open leases is reachable. */
        boolean isLive();

        /** Names the holder in an error message, e.g. the multi-lock and its paths. */
        String describe();
    }

    private record Key(Long owner, CuratorFramework client, String path) {
        static Key of(Long owner, LockContext directory) {
            return new Key(owner, directory.client(), directory.path());
        }
    }

    /** Records that {@code owner} holds {@code directory} through {@code holder}. */
    public static void register(Long owner, LockContext directory, Holder holder) {
        registerAll(owner, java.util.List.of(directory), holder);
    }

    /**
     * Records that {@code owner} holds each of {@code directories} through {@code holder}; the
     * entries no longer live are dropped once for them all (a sweep per directory would cost a
     * multi-lock over n locks n sweeps of its n entries on every acquisition).
     */
    public static void registerAll(Long owner, java.util.List<LockContext> directories, Holder holder) {
        HOLDS.values().removeIf(h -> !h.isLive());   // entries of leases closed, lost or dropped unclosed
        for (LockContext directory : directories) {
            HOLDS.put(Key.of(owner, directory), holder);
        }
    }

    /** Removes the record {@link #register} made, if it is still {@code holder}'s. */
    public static void unregister(Long owner, LockContext directory, Holder holder) {
        HOLDS.remove(Key.of(owner, directory), holder);
    }

    /** The live holder through which {@code owner} holds {@code directory}, if any. */
    public static Optional<Holder> holder(Long owner, LockContext directory) {
        if (HOLDS.isEmpty()) {
            return Optional.empty();           // no multi-lock holds anything: every reentrant acquisition asks, so no key is hashed
        }
        Key key = Key.of(owner, directory);
        Holder holder = HOLDS.get(key);
        if (holder != null && !holder.isLive()) {
            HOLDS.remove(key, holder);
            return Optional.empty();
        }
        return Optional.ofNullable(holder);
    }

    /**
     * Refuses a blocking acquisition of {@code directory}'s lock by {@code owner}, the current
     * thread, if the thread holds that directory through a multi-lock.
     *
     * @throws IllegalStateException naming the path and the multi-lock
     */
    public static void refuseIfHeldThroughMultiLock(Long owner, LockContext directory) {
        Optional<Holder> holder = holder(owner, directory);
        if (holder.isPresent()) {
            throw new IllegalStateException("refused: the current thread holds " + directory.path() + " through "
                    + holder.get().describe() + ", which this lock cannot re-enter; a blocking acquisition of "
                    + directory.path() + " by this thread (alone or in another multi-lock) would queue behind the"
                    + " thread's own node and wait for itself forever. Close the multi-lease first, or acquire"
                    + " that same multi-lock again (it re-enters)");
        }
    }
}
