/**
 * One request for a lock, from its start to its lease or its give-up. Read the Overview at the
 * top of {@code Acquisition} first, then {@code NodeCreation} (obtaining a node) and
 * {@code GrantWait} (waiting for its grant); {@code MultiAcquisition} and
 * {@code MultiTransaction} do the same for a multi-lock, as composed futures. The stages take
 * the directory's {@link io.zklock.core.internal.LockContext} and hand each other immutable
 * values ({@code QueuedNode}, {@code WaitEnd}); nothing reaches back. Around them:
 * {@code AcquisitionQueue} (an engine's requests, as its lease strategy starts them),
 * {@code RequestLock} (the request's serialiser), {@code PendingRetry} (retry or fail),
 * {@code Blocking} (the blocking and asynchronous wrappers every entry point uses) and
 * {@code AcquireTally} (what a request tells the observers). The wait's parts:
 * {@code ListedQueue} (what a listing shows the node), {@code ForeignLayoutCheck},
 * {@code GrantAnnouncements} and {@code LockDelayWait}; {@code LeaseMaking} makes a granted
 * node's lease, and {@code CuratorYielding} is a multi-lock's yielding to nodes that may be
 * Curator's. A give-up's deletes (guaranteed deletes, sweeps by uuid) are the directory's
 * {@link io.zklock.core.internal.Cleanup}, which the lease's release shares.
 *
 * <h2>Serialisation</h2>
 * Every step of a request (a reply, a watch event, the deadline's timer, a retry, a kick from
 * the session monitor, a give-up) runs under the request's one {@code RequestLock}, whichever
 * stage it belongs to; so each stage's state (one value per class: {@code Acquisition}'s
 * phase, {@code NodeCreation}'s and {@code GrantWait}'s state) is read and changed by one step
 * at a time, and needs no lock of its own. A step only does bookkeeping and issues background
 * calls, which never answer inside the call; completing a future somebody else waits on runs
 * their code, so it is deferred with {@code RequestLock.later} until the outermost step has
 * released the lock. What a request shares with other requests of the session (the watch
 * counts, the directory views, the releases pending) is guarded by its own monitor, taken
 * for bookkeeping only and never while calling out.
 */
package io.zklock.core.internal.request;
