/**
 * The user's API: what an application that takes a lock sees, whichever recipe it uses.
 *
 * <ul>
 *   <li><b>Locks and leases.</b> {@link io.zklock.core.DistributedLock} is what every recipe
 *       offers (blocking, timed and asynchronous acquisition); a grant is a
 *       {@link io.zklock.core.Lease} with a fencing token, a {@link io.zklock.core.LeaseState}
 *       and {@link io.zklock.core.LeaseListener}s; a multi-lock's grant is a
 *       {@link io.zklock.core.MultiLease} with one lease per component. Start with the javadoc of
 *       {@code DistributedLock} and {@code Lease}: they state what a caller can rely on
 *       (timeouts, interrupts, session loss).</li>
 *   <li><b>Errors.</b> {@link io.zklock.core.LockException}: ZooKeeper failures, with the cause.
 *       Misuse is {@link IllegalArgumentException} or {@link IllegalStateException}.</li>
 *   <li><b>Inspection and revocation, with no lock object.</b>
 *       {@link io.zklock.core.LockAdmin} reads a lock path's {@link io.zklock.core.LockStatus}
 *       ({@link io.zklock.core.Participant}s in queue order, each with its
 *       {@link io.zklock.core.OwnerInfo}) and writes
 *       {@link io.zklock.core.RevocationRequest}s ({@link io.zklock.core.RevocationResult}).</li>
 *   <li><b>Validity.</b> A lease's {@code validFor()} keeps a {@link io.zklock.core.LeaseValidity}
 *       margin (per lock with {@link io.zklock.core.LockOptions}) and is counted on the client's
 *       {@link io.zklock.core.ValidityClock}, the monotonic clock unless another is given.</li>
 *   <li><b>Paths.</b> {@link io.zklock.core.LockPaths} validates a lock path and maps a name a
 *       user gives (a lock key, a job name) to one node name; the integrations build their
 *       paths with it.</li>
 * </ul>
 *
 * <p>The recipes live in their own modules ({@code io.zklock.mutex}, {@code io.zklock.semaphore},
 * {@code io.zklock.readwrite}, {@code io.zklock.multilock}). What they are built on is in
 * {@code io.zklock.core.spi} and its vocabulary {@code io.zklock.core.spi.queue}; metrics bind to {@code io.zklock.core.observe}; everything under
 * {@code io.zklock.core.internal} is the engine's own and may change in any release.
 */
package io.zklock.core;
