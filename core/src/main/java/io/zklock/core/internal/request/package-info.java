/**
 * One request for a lock, from its start to its lease or its give-up. Read the Overview at the
 * top of {@code Acquisition} first, then {@code NodeCreation} (obtaining a node) and
 * {@code GrantWait} (waiting for its grant); {@code MultiAcquisition} and
 * {@code MultiTransaction} do the same for a multi-lock, as composed futures. The stages take
 * the directory's {@link io.zklock.core.internal.LockContext} and hand each other immutable
 * values ({@code QueuedNode}, {@code WaitEnd}); nothing reaches back. Around them:
 * {@code RequestLock} (the request's serialiser), {@code PendingRetry} (retry or fail),
 * {@code Cleanup} (guaranteed deletes, sweeps by uuid), {@code Blocking} (the blocking and
 * asynchronous wrappers every entry point uses) and {@code AcquireTally} (what a request tells
 * the observers).
 */
package io.zklock.core.internal.request;
