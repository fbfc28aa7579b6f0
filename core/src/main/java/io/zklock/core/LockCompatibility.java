package io.zklock.core;

/**
 * Which node layout and protocol a lock writes on its path: zklock's own, or the one Curator's
 * recipe of the same kind writes, so that a fleet can move from Curator's
 * {@code InterProcessMutex}, {@code InterProcessReadWriteLock} and
 * {@code InterProcessSemaphoreV2} to zklock one replica at a time, on the same lock paths.
 *
 * <p>Both modes <b>read</b> both layouts: a lock of either mode excludes zklock clients of the
 * other mode, so switching from {@link #CURATOR} to {@link #DEFAULT} is itself a rolling update.
 * Only {@link #CURATOR} is safe beside Curator's own clients, because Curator's clients do not
 * read zklock's layout: they queue as if zklock's default-mode nodes were not there (the mutex
 * excepted, whose layout is Curator's in both modes).
 *
 * <table>
 *   <caption>What each recipe does in each mode</caption>
 *   <tr><th>recipe</th><th>{@code CURATOR}</th><th>{@code DEFAULT}, on a path with Curator's nodes</th></tr>
 *   <tr><td>mutex</td><td>{@code _c_<uuid>-lock-<seq>}, granted at the head (the default's layout)</td>
 *       <td>honours them: both libraries queue by the same numbers</td></tr>
 *   <tr><td>read-write lock</td><td>{@code __READ__}/{@code __WRIT__} names, Curator's order and rules</td>
 *       <td>refuses with a {@link LockException} naming the path and Curator's nodes
 *       (Curator's clients would be granted beside ours)</td></tr>
 *   <tr><td>semaphore</td><td>Curator's guard lock under {@code <path>/locks} and leases under
 *       {@code <path>/leases}, plus a permit of zklock's own in {@code <path>}</td>
 *       <td>refuses with a {@link LockException} naming the path and Curator's lease or guard
 *       nodes, which it reads (a request) only when its listing shows Curator's directories;
 *       a Curator client arriving after its grant cannot see it, so check the path with
 *       {@code zklock status} before switching</td></tr>
 * </table>
 *
 * <p>What {@link #CURATOR} gives up: cached leases (a Curator waiter never asks a cached node
 * back; a lock given both throws {@code IllegalArgumentException}); for the semaphore, the
 * herd-free hand-off and the request counts of the default mode (it takes a guard lock and two
 * nodes per permit), its place in a multi-lock, and a non-blocking {@code acquireAsync} (the
 * protocol is Curator's blocking one, run on a thread of its own).
 */
public enum LockCompatibility {
    /** zklock's own layout and protocol; reads Curator's layout and never grants beside it knowingly. */
    DEFAULT,
    /** The layout and protocol of Curator's recipe of the same kind; safe beside Curator's clients. */
    CURATOR
}
