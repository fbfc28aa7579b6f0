/**
 * Cached leases ({@link io.zklock.core.LeaseCaching}): a process keeps a node after its last
 * local lease closes and grants the lock again locally, with no request; a conflicting waiter
 * asks the node back. This comment is the one statement of the algorithm; the classes point
 * here.
 *
 * <h2>Glossary</h2>
 * <dl>
 *   <dt>cached node</dt>
 *   <dd>a node granted through ZooKeeper that its process may keep after use: its name's uuid is
 *       of the caching version ({@link io.zklock.core.spi.queue.LockNode#caches()}), so every
 *       client sees it is one. One {@link io.zklock.core.internal.cache.LeaseCache} per client,
 *       lock directory, kind and {@code maxLeases} keeps them ({@code LeaseCaches}, the client's
 *       registry, drops a cache left empty).</dd>
 *   <dt>local grant</dt>
 *   <dd>a lease on a cached node handed out with no request ({@code CachedLease}, the cache's
 *       own view of the node's base lease): same node, same fencing token.</dd>
 *   <dt>local wait</dt>
 *   <dd>a thread that waits inside its process for what its client holds or is queueing,
 *       instead of queueing a node: a permit's wait for a busy permit of its client, a reader's
 *       wait for the read node another reader of its client is queueing (the lead).</dd>
 *   <dt>ask</dt>
 *   <dd>a waiter's request that a cached node ahead of it be let go: a read of the node and a
 *       conditional write of an {@code asked-back-by} line into its data ({@code AskBack};
 *       which nodes, {@code WhoAsks}). The holder, which watches its node, hears it. It is not a
 *       revocation request: the leases' revocation handlers never hear it. A holder of a cached
 *       read node or of a lock of one holder at a time that hears a conflicting node of another
 *       client created behind it takes that as the ask (see ASKED), and says so in its node's
 *       name, so that such a waiter does not ask it at once (see ASK).</dd>
 *   <dt>heard node</dt>
 *   <dd>a cached node whose uuid says its holder hears creations
 *       ({@link io.zklock.core.spi.queue.LockNode#hearsCreations()}: {@code ce} after the
 *       version digit, and its client's tag, random per client, at the start of the last
 *       group): made by a read lock's or a one-at-a-time lock's cache once a tree watch was
 *       added on its client and its caches hear creations (ClientTag.hearing: never on a server
 *       without them, nor with them turned off; a client's first cached node is not marked). A
 *       claim: its holder may miss a create (cut off, a root's addWatch refused, a node queued
 *       under a root not watched yet, its client moved to a 3.5 member of a mixed ensemble,
 *       more than 16 creations heard while its node was on its way into the cache: see
 *       ADOPT).</dd>
 *   <dt>tree watch</dt>
 *   <dd>how a client watches its cached nodes: on a server with persistent recursive watches
 *       (ZooKeeper 3.6+), one such watch per lock root (the parent of a lock directory) and
 *       session ({@code io.zklock.core.internal.zk.TreeWatch}), whatever the number of nodes;
 *       on an older server (addWatch answered UNIMPLEMENTED), a data watch per node.</dd>
 *   <dt>escalation</dt>
 *   <dd>of a lock of several holders (a semaphore), a waiter first asks only the cached nodes it
 *       needs gone; once it has waited the escalation bound (25 ms) it asks every cached node
 *       ahead that conflicts with it, and a local wait goes to ZooKeeper after the same bound:
 *       a cached permit idles at most that long while a request needs it. Of a lock of one
 *       holder at a time, a waiter asks the heard nodes of other clients ahead once it has
 *       waited four bounds (100 ms).</dd>
 * </dl>
 *
 * <h2>Overview</h2>
 * An engine picks its {@link io.zklock.core.internal.cache.LeaseStrategy} once: uncached, or
 * one of three cached ones (one-at-a-time nodes: a mutex's; permits: a semaphore's; shared
 * reads: a read lock's). A cached acquisition:
 * <ol>
 *   <li><b>LOCAL.</b> A node whose base is HELD, not asked back, younger than ten idle periods
 *       since ZooKeeper granted it (the age limit: it bounds what a waiter that cannot ask, its
 *       ask refused by an ACL, waits for a node its holder keeps granting again), and with room
 *       (a read node: any number of local leases at once; any other node: one) is granted
 *       locally.</li>
 *   <li><b>WAIT.</b> Nothing to take:
 *     <ul>
 *       <li>permits: while a node is in use, not asked and kept, and every permit of the lock is
 *           taken and nobody is queued, the thread waits for a local lease to close (a local
 *           wait, oldest first) instead of queueing, for at most the escalation bound.
 *           {@code LocalWait} lists the directory with a watch: any other count of nodes than
 *           {@code maxLeases}, any change of the children or any failure sends the thread to
 *           ZooKeeper (a free permit never sits idle while it waits, a permit is never handed
 *           over locally ahead of a waiter queued before, and a node another client queued comes
 *           with its ask). Where the client's tree watch counts the directory's lock nodes (a
 *           listing under it, then the creations and deletions it hears:
 *           {@code io.zklock.core.internal.zk.DirectoryCounts}) and the count is another than
 *           {@code maxLeases}, the thread goes to ZooKeeper with no listing, so a miss while
 *           permits are free costs what a grant through ZooKeeper costs. The count is a hint:
 *           it only ever skips a listing that could only have sent the thread there. An ask of any node, a loss, or the end of the last node to wait for
 *           sends every local wait to ZooKeeper, where it queues behind the asker. A mutex's
 *           thread queues at once, so the mutex's grants follow the order its waiters
 *           started in.</li>
 *       <li>shared reads: one reader queues a node (the lead); the readers that miss meanwhile,
 *           with a deadline at most the escalation bound after the lead's, wait for its
 *           acquisition to end and try the cache again, so readers of one process that miss
 *           together queue one node, granted to all when each one's own would have been
 *           ({@code ReaderLead}).</li>
 *     </ul></li>
 *   <li><b>ADOPT.</b> Otherwise the request queues a node; the grant comes with its granting
 *       listing (a {@code Grant}), and the cache keeps the node with one lease in use. If the
 *       listing shows a waiter behind it that asks it ({@code WhoAsks.askedAtGrant}), the node
 *       starts asked: that waiter's ask may be in the node already, and readers that joined the
 *       lead try the cache at once; granting them would put them ahead of a writer that queued
 *       before them. The node's watch (its revocation watch) starts at once: routed through the
 *       client's tree watch (one addWatch per root and session, the first time), then one
 *       getData with no watch; on a server without tree watches, one getData with a data watch.
 *       No getData where the tree watch covered the node's root when its create was answered
 *       and heard nothing of the node until its route ({@code io.zklock.core.internal.zk.TreeWatch},
 *       FRESH): every write into the node after its create comes as an event after that reply,
 *       which either reaches the route or makes the adoption read, so an ask written at any
 *       time after the create is heard; the node holds the data it was created with (no ask),
 *       and a miss costs what a grant through ZooKeeper costs.
 *       A covered node is read again at every reconnection, since a persistent watch does not
 *       replay what it missed while cut off. The client keeps its last 16 creations heard; a
 *       node adopted looks there, once in its cache, for a conflicting one behind it heard on
 *       its way (a creation heard later finds it in the cache).</li>
 *   <li><b>CLOSE.</b> The last local lease on a node closes: if the node was asked, the cache
 *       cleared, or the base is not HELD (a node whose session may be ending is not worth
 *       keeping), the base is released (the closing lease follows it until the node is gone);
 *       otherwise the node goes to the oldest local wait (still in use: no request), or goes
 *       idle, and a timer releases it after the idle period.</li>
 *   <li><b>ASK.</b> A waiter queued behind cached nodes that conflict with it asks them
 *       ({@code AskBack}, from each of its decisions, once per node and wait): of a lock of one
 *       holder at a time every such node ahead; of a lock of several holders, at index {@code i},
 *       the first {@code i - maxLeases + 1} of them, and all of them after the escalation bound.
 *       A heard node of another client (its tag is not the waiter's client's) is left out until
 *       the waiter has waited four escalation bounds: its holder takes the waiter's create as the
 *       ask, and the late ask covers a holder that missed it. A waiter's own client's heard nodes
 *       are asked at once, as their holder ignores its own client's creates: a mutex's threads
 *       of one process queue behind its node all the time, and keep what they did before heard
 *       nodes (letting go at their creates showed no difference in scenario c4 within its
 *       noise; docs/cached-leases.md).
 *       The ask is a read of the node and a write at the version read: no write without the
 *       read, since a conditional write replaces the whole data and the holder's owner lines
 *       (what status and revoke show) must stay. Nodes that are not cached cost nothing.</li>
 *   <li><b>ASKED.</b> The holder hears the write at its watch's event (any write into a cached
 *       node means "let it go", so it does not wait for the read) or finds the line in a read;
 *       or, of a cached read node or a node of a lock of one holder at a time, the tree watch
 *       tells it of a conflicting node of another client (not of its tag) created in the
 *       directory behind it: that create is its ask, heard one notification after it. Nothing
 *       more is granted on the node, every local wait goes to ZooKeeper, and an idle node is
 *       released at once, a node in use at its last close. An operator's revocation request
 *       does the same, and also reaches the leases' revocation handlers. A holder of cached
 *       permits acts on a creation too, where its tree watch knows the directory's lock nodes
 *       ({@code io.zklock.core.internal.zk.DirectoryCounts}: a listing under the watch, then the
 *       creations and deletions it hears): when the node created is the one waiter past the
 *       permits (index {@code maxLeases}) and its ask will name this node ({@code WhoAsks},
 *       before any escalation), the node is asked, so that waiter waits one notification, not
 *       its ask's read and write, nor a re-grant made before its ask lands (scenario c5). Behind
 *       a longer queue the permit's holder leaves it to the asks: a creation is judged on the
 *       directory as it was then, and deletions already on their way made the waiters' own
 *       listings name fewer nodes (acting on every creation let more permits go than were
 *       needed, and scenario c3 fell to 2-3x). Permits are never marked as heard: their
 *       waiters ask at once.</li>
 *   <li><b>FINAL.</b> The base LOST (session loss, forced deletion) or RELEASED: the node leaves
 *       the cache; the leases in use hear LOST through the base.</li>
 * </ol>
 * So a conflicting waiter waits for the leases in use and one notification, never for the
 * idle period: behind heard nodes of other clients, the notification of its own create, with
 * no ask at all; the one waiter behind cached permits, under a tree watch, the notification of
 * its own create (its ask's read and write are then off its critical path). The waiter's side
 * does not depend on the holder hearing creations: an unheard node is asked at once, a heard
 * one after the bound, so holders of any version, holders cut off and servers without tree
 * watches keep the protocol whole (a waiter behind a heard node whose holder missed its create
 * waits the bound more); a waiter that never asks (Curator's) is served by a holder that hears
 * it, not by one that misses it. A local grant keeps the node's fencing token (a later node's
 * is larger), and a local hand-over never passes a queued waiter.
 *
 * <h2>Serialisation</h2>
 * A cache's nodes (each one's {@code Use}, one value, and its idle timer), its local waits and
 * its lead are guarded by the cache's monitor, for bookkeeping only; releases and ZooKeeper
 * calls are made after it is let go. What puts something into a cache runs under the
 * registry's lock of its key, which a drop takes too. The waiter's side ({@code AskBack}) runs
 * as steps of its request, timers included. A creation heard (ASKED) is acted on where it is
 * heard, on the client's event thread, before that thread delivers anything later: the node
 * stops granting at once, and an idle one's delete is sent from there (bookkeeping and a
 * background call: nothing that waits, no user code; a hop to another thread cost the waiter
 * a thread's wake-up, and let local grants go on meanwhile). A written ask reaches the holder
 * on a library thread ({@code RevocationWatch}).
 */
package io.zklock.core.internal.cache;
