/**
 * The engine's internals: not an API, imported by nothing outside {@code zklock-core} (a test
 * in core fails when another module does). The packages are grouped by what they own, and
 * listed here bottom first: each imports only the ones above it in this list (and the API and
 * the vocabulary, {@code io.zklock.core.spi.queue}); the facades of {@code io.zklock.core.spi}
 * stand above them all. {@code PackageBoundariesTest} checks that order.
 * <ul>
 *   <li>{@link io.zklock.core.internal.zk}: the ZooKeeper door ({@code ZkPort}, every call the
 *       engine makes), the client's session monitor, watch bookkeeping and the directory views
 *       of sequence-gap inference;</li>
 *   <li>{@code internal} (this package): what every stage shares.
 *       {@link io.zklock.core.internal.LockContext}, the one context of a lock directory that the
 *       stages take as their parameter; {@link io.zklock.core.internal.Cleanup}, the directory's
 *       deletes of our nodes (a request's give-up and a lease's release both find it in the
 *       context, which is handed it); {@link io.zklock.core.internal.NodeData}, the node-data
 *       line formats (owner, grant, multi-lock, revocation request) in one codec, whose owner's
 *       lines are {@code OwnerLines}'; and
 *       {@code Failures}, how a ZooKeeper failure becomes a {@code LockException};</li>
 *   <li>{@link io.zklock.core.internal.lease}: a granted lease, its states, its listeners and its
 *       revocation watch;</li>
 *   <li>{@link io.zklock.core.internal.cache}: cached leases, both sides: the cache that keeps a
 *       client's nodes and grants them locally, the strategy an engine picks once (uncached
 *       included), and a waiter's asks (its package-info holds the one Overview);</li>
 *   <li>{@link io.zklock.core.internal.request}: one request, from its start to its lease or its
 *       give-up;</li>
 *   <li>{@link io.zklock.core.internal.inspect}: status and revocation requests for
 *       {@link io.zklock.core.LockAdmin}.</li>
 * </ul>
 *
 * <h2>The life of a request</h2>
 * <ol>
 *   <li><b>Start.</b> A recipe calls {@code LockEngine.acquire}; the engine starts an
 *       {@code Acquisition} on the directory's {@code LockContext}, under one {@code Deadline}
 *       (read the Overview at the top of {@code Acquisition} first).</li>
 *   <li><b>Creation.</b> {@code NodeCreation} obtains a node: a protected ephemeral-sequential
 *       create with the first listing sent right behind it, or the one-request
 *       {@code InferenceTransaction} when the session's {@code DirectoryView} is exact. It
 *       rides out connection loss (protected creates) and reaped directories. Its result is
 *       a {@code QueuedNode}: node, fencing token, session, and the first listing.</li>
 *   <li><b>Queued node, wait.</b> {@code GrantWait} lists, asks the driver, watches the node
 *       (or two) the driver names, or the directory, and lists again on the event (or, for a
 *       driver whose grants stand, decides on its last listing less the one node it watched, when
 *       that node goes), until the driver
 *       grants ({@code WaitEnd.Granted}) or the node is gone with its session
 *       ({@code WaitEnd.NodeLost}: the request queues again with a new node).</li>
 *   <li><b>Lease.</b> The grant becomes a {@code ZkLease} bound to the node's session: HELD,
 *       SUSPENDED on connection loss, LOST on session loss, RELEASED once its node is deleted.
 *       A give-up (timeout, interrupt, cancel, closed client) deletes the node before the
 *       caller hears.</li>
 * </ol>
 * A multi-lock's request ({@code MultiAcquisition}) makes every node in one transaction and
 * then runs step 3 for each node together.
 *
 * <h2>Serialisation</h2>
 * A request's steps run under its {@code RequestLock} and only do bookkeeping and issue
 * background calls; what must run outside it is deferred with {@code later}. A lease's state
 * (a {@code ZkLease} or a lease view), and a revocation watch's, is one value that changes under
 * one monitor of its own; listeners and handlers are told outside every lock (the rule is
 * written once, in {@code LeaseView}'s Overview).
 */
package io.zklock.core.internal;
