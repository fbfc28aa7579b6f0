package io.zklock.core.engine;

import io.zklock.core.LockException;
import io.zklock.core.OwnerInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * One Acquisition is one request for a lock: it owns at most one queue node at a time and
 * completes `result` exactly once, with a lease or with the reason it gave up. It never blocks
 * a thread: every ZooKeeper call is a background call, and every callback re-enters the state
 * machine below under `lock`, which is only held for bookkeeping, never across a call.
 *
 * Repeatedly:
 *   1. CREATING  protected ephemeral-sequential create of <dir>/_c_<uuid>-<kind>-<seq> under a
 *                container parent; the czxid (fencing token) and ephemeralOwner come from the
 *                create's own Stat (one exists() call only when Curator found the node again
 *                after a connection loss and so returned no Stat).
 *                Or, when this session's DirectoryView of the directory is exact, one
 *                multi() that sets the directory's (empty) data and creates the node: the
 *                directory's Stat in its reply lets the view vouch for the children as of
 *                the create (sequence-gap inference, see DirectoryView); if the driver grants
 *                on them, the request is granted without step 2. A transaction whose outcome
 *                was lost to the connection is resolved by listing the directory for its
 *                uuid: the node is adopted if it is there, else a new one is created.
 *                A create that finds the directory (or a parent) reaped under it creates
 *                again, inside the deadline. A server that returns no Stat for a create in
 *                multi() (before 3.7.2 / 3.8.2 / 3.9.0) has it read with exists(), and the
 *                client creates plainly from then on.
 *   2. LISTING   getChildren(dir); parse with LockNode, sort by sequence. The reply's Stat
 *                makes the session's DirectoryView exact again. After a plain create the
 *                first listing is sent right behind the create, not after its reply: one
 *                session's requests are answered in order, so it sees our node, and it is
 *                used only once the create's reply has come (else created() lists again).
 *                - our node missing, or owned by a session that is no longer ours (the old
 *                  session's ephemerals can still be listed just after expiry: CURATOR-604):
 *                  delete it and go back to 1 with a new node (re-queue);
 *                - the driver grants: complete with a lease;
 *                - the deadline has passed, or this was the single attempt of a zero
 *                  timeout: give up;
 *                - otherwise go to 3.
 *   3. WATCHING  the driver names one node to watch: getData(node) with a fresh watcher.
 *                NoNode: back to 2 at once (a vanished node leaves no watch); data already
 *                changed (the node announced its own grant, see below): back to 2. Otherwise
 *                wait; the watch event goes to 2. Or the driver asks to watch the directory:
 *                list again with a children watch (or keep the one this listing left) and
 *                wait for any child to come or go.
 *
 * Drivers whose waiters watch a node that can be granted without going away (a semaphore's
 * next waiter watches the waiter ahead of it) announce grants: a node granted while a node
 * follows it in the listing touches its own data once, which wakes exactly that follower.
 *
 * A call that fails on the connection goes to BACKOFF and is issued again after a short delay
 * or as soon as the SessionMonitor reports the connection back, whichever comes first; the
 * monitor also kicks every waiter on reconnection and session loss, since a new session has
 * none of the old watches. Each call carries a step number and a callback of an older step
 * only does bookkeeping, so kicks and events never run two loops at once.
 *
 * Giving up (deadline, interrupt, cancel, unrecoverable error) deletes our node with a delete
 * that is retried until it succeeds, and ends every watch registration the server confirmed
 * to us (a registration still in flight is ended when its reply arrives). The server keeps one
 * watch per path and session, so the SessionMonitor removes it only when the last waiter of
 * this session that registered it has ended its registration. While connected, `result` completes only after
 * those calls answered, so a caller who sees the timeout sees no node of ours; while
 * disconnected it completes at once and the retried delete finishes the job. A grant that
 * races the give-up is decided under `lock`: exactly one of them wins.
 *
 * Every reply, event and timer step runs through guard(): whatever it throws gives the
 * request up with that cause (its node deleted), so no wait outlives a callback that died.
 */
final class Acquisition {
    private static final Logger LOG = LoggerFactory.getLogger(Acquisition.class);
    private static final long MAX_BACKOFF_MS = 1_000;
    private static final long CLEANUP_WAIT_MS = 5_000;
    private static final byte[] EMPTY = new byte[0];
    /** Creates in a row that may find the directory reaped before the request gives up. */
    private static final int MAX_REAPED_UNDER_CREATE = 100;

    private enum Phase { CREATING, LISTING, WATCHING, BACKOFF, DONE }

    private final LockEngine engine;
    private final CuratorFramework client;
    private final SessionMonitor monitor;
    private final long deadline;          // System.nanoTime() based; ignored when unbounded
    private final boolean unbounded;
    private final boolean singleAttempt;
    private final byte[] ownerData;
    private final ReentrantLock lock = new ReentrantLock();

    /** Completed on a ZooKeeper thread with a {@link ZkLease}, or exceptionally. */
    final CompletableFuture<ZkLease> result = new CompletableFuture<>();

    // guarded by lock
    private Phase phase = Phase.CREATING;
    private boolean createInFlight;
    private int step;
    private String ourPath;
    private LockNode ourNode;
    private long czxid;
    private long ephemeralOwner;
    private final Map<Integer, WatchKey> confirmedWatches = new HashMap<>();   // step -> server watch
    private boolean watchingDirectory;     // the last decision was WATCH_DIRECTORY
    private final List<CompletableFuture<Void>> cleanups = new ArrayList<>();
    private int watchSetsInFlight;
    private ScheduledFuture<?> timer;
    private ScheduledFuture<?> retry;
    private Supplier<Runnable> retryAction;
    private long backoffMs;
    private Throwable giveUpReason;
    private String unresolvedUuid;         // a transaction's uuid whose outcome is not known yet
    private int earlyStep;                 // the step of a listing sent behind the create, 0 if none
    private int reapedUnderCreate;         // creates that found the directory gone, in a row

    /** Set when the node was created for us by a multi-lock transaction: we may not re-queue alone. */
    private final boolean adopted;

    Acquisition(LockEngine engine, long timeoutNanos) {
        this(engine, timeoutNanos, false);
    }

    private Acquisition(LockEngine engine, long timeoutNanos, boolean adopted) {
        this.adopted = adopted;
        this.engine = engine;
        this.client = engine.client();
        this.monitor = engine.monitor();
        this.unbounded = timeoutNanos < 0;
        this.singleAttempt = timeoutNanos == 0;
        this.deadline = unbounded ? 0 : System.nanoTime() + timeoutNanos;
        this.ownerData = OwnerInfo.current().toBytes();
    }

    /**
     * A request for a node that already exists, created with others in one transaction by a
     * multi-lock: it starts at step 2, and where it would re-queue it gives up with
     * {@link MustRequeue} instead, since a new node must again be created with the others.
     */
    static Acquisition adopting(LockEngine engine, long timeoutNanos, String nodePath, Stat stat) {
        Acquisition a = new Acquisition(engine, timeoutNanos, true);
        a.monitor.waiting.add(a);
        Runnable after;
        a.lock.lock();
        try {
            a.createInFlight = false;
            a.ourPath = nodePath;
            a.ourNode = LockNode.parse(nodePath.substring(nodePath.lastIndexOf('/') + 1)).orElse(null);
            if (!a.unbounded && !a.singleAttempt) {
                long remaining = a.deadline - System.nanoTime();
                a.timer = Threads.TIMER.schedule(() -> a.guard(a::timeout), Math.max(0, remaining), TimeUnit.NANOSECONDS);
            }
            if (a.ourNode == null) {
                after = a.giveUpLocked(new LockException("created node " + nodePath + " has an unexpected name"));
            } else if (stat == null) {
                after = a.fetchStat();         // a server before 3.7.2 / 3.8.2 / 3.9.0 (ZOOKEEPER-4026)
            } else {
                a.recordStat(stat);
                after = a.list();
            }
        } finally {
            a.lock.unlock();
        }
        run(after);
        return a;
    }

    /** Why an adopted request gave up: its node is gone, and only a new transaction can replace it. */
    static final class MustRequeue extends Exception {
        private static final long serialVersionUID = 1L;

        MustRequeue(String why) {
            super(why, null, false, false);
        }
    }

    /** Starts the request; returns at once. */
    Acquisition start() {
        monitor.waiting.add(this);
        Runnable after;
        lock.lock();
        try {
            if (!unbounded && !singleAttempt) {
                long remaining = deadline - System.nanoTime();
                timer = Threads.TIMER.schedule(() -> guard(this::timeout), Math.max(0, remaining), TimeUnit.NANOSECONDS);
            }
            after = create();
        } finally {
            lock.unlock();
        }
        run(after);
        return this;
    }

    // ---- 1. create ----------------------------------------------------------------------

    private Runnable create() {
        phase = Phase.CREATING;
        watchingDirectory = false;
        createInFlight = true;
        ourPath = null;
        ourNode = null;
        czxid = 0;
        ephemeralOwner = 0;
        DirectoryView view = engine.view();
        long session = monitor.sessionId();
        if (view.usable(session) && monitor.multiCreateReturnsStat() && createInferring(view, session)) {
            return null;
        }
        Stat stat = new Stat();
        try {
            client.create()
                    .storingStatIn(stat)
                    .creatingParentContainersIfNeeded()
                    .withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .inBackground((c, event) -> guard(() -> created(event, stat)))
                    .forPath(engine.path() + "/" + engine.namePrefix() + "-", ownerData);
        } catch (Exception e) {
            createInFlight = false;
            return giveUpLocked(refused("create under " + engine.path(), e));
        }
        listEarly();
        return null;
    }

    /**
     * Sends step 2's listing right behind the create, without waiting for its reply: the
     * server answers one session's requests in order, so the listing sees our node, and its
     * reply comes after the create's. It is used only if the create's reply made us LISTING
     * first; otherwise (the create was retried, or made the directory) created() lists again.
     */
    private void listEarly() {
        int s = ++step;
        earlyStep = s;
        try {
            client.getChildren().inBackground((c, event) -> guard(() -> listed(event, s, null))).forPath(engine.path());
        } catch (Exception e) {
            earlyStep = 0;                     // created() lists the ordinary way
        }
    }

    /**
     * Step 1 as one transaction, sent on the ZooKeeper handle (never retried behind our back):
     * an empty setData on the directory, whose Stat comes back, and the create2 of our node.
     */
    private boolean createInferring(DirectoryView view, long session) {
        String uuid = UUID.randomUUID().toString();
        try {
            List<Op> ops = List.of(
                    Op.setData(engine.serverPath(engine.path()), EMPTY, -1),
                    engine.createOp(engine.path() + "/_c_" + uuid + "-" + engine.namePrefix() + "-", ownerData));
            client.getZookeeperClient().getZooKeeper().multi(ops,
                    (rc, path, ctx, results) -> guard(() -> transacted(KeeperException.Code.get(rc), results, view, session, uuid)),
                    null);
            return true;
        } catch (Exception e) {
            LOG.debug("could not send the transaction on {}; creating through Curator", engine.path(), e);
            view.invalidate();
            return false;                      // nothing was sent: the plain create takes over
        }
    }

    private void transacted(KeeperException.Code rc, List<OpResult> results, DirectoryView view, long session,
            String uuid) {
        Runnable after = null;
        List<String> inferred = null;
        String path = null;
        Stat stat = null;
        if (rc == KeeperException.Code.OK) {
            Stat directory = ((OpResult.SetDataResult) results.get(0)).getStat();
            OpResult.CreateResult create = (OpResult.CreateResult) results.get(1);
            path = engine.clientPath(create.getPath());
            stat = create.getStat();
            String name = ZKPaths.getNodeFromPath(path);
            // the view is updated here, on the event thread, in the order of the replies
            inferred = LockNode.parse(name)
                    .map(node -> view.created(session, directory, name, (int) node.sequence()))
                    .orElse(null);
        } else {
            view.invalidate();                 // nothing applied, or we do not know what was
            if (rc == KeeperException.Code.NOAUTH || rc == KeeperException.Code.BADARGUMENTS
                    || rc == KeeperException.Code.UNIMPLEMENTED) {
                view.refuse();                 // this directory will never take the transaction
            }
        }
        lock.lock();
        try {
            createInFlight = false;
            if (rc == KeeperException.Code.OK) {
                if (phase == Phase.DONE) {
                    after = cleanup(path);       // gave up while the transaction was in flight
                } else {
                    ourPath = path;
                    ourNode = LockNode.parse(ZKPaths.getNodeFromPath(path)).orElse(null);
                    if (ourNode == null) {
                        after = giveUpLocked(new LockException("created node " + path + " has an unexpected name"));
                    } else if (stat == null) {
                        // a server before 3.7.2 / 3.8.2 / 3.9.0 returns no Stat for a create in
                        // multi() (ZOOKEEPER-4026): read the token, and create plainly from now on
                        monitor.multiCreateWithoutStat();
                        after = fetchStat();
                    } else {
                        recordStat(stat);
                        after = inferred != null ? decideInferred(inferred) : list();
                    }
                }
            } else if (isConnectionTrouble(rc)) {
                unresolvedUuid = uuid;           // it may have been applied: find out before anything else
                after = phase == Phase.DONE ? cleanup(null) : resolve();
            } else if (phase == Phase.DONE) {
                after = this::completeGiveUp;
            } else {
                after = create();                // e.g. no directory yet: the plain create makes it
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    /** Lists the directory to learn whether a transaction whose reply was lost created our node. */
    private Runnable resolve() {
        phase = Phase.CREATING;
        createInFlight = false;
        int s = ++step;
        try {
            client.getChildren().inBackground((c, event) -> guard(() -> resolved(event, s))).forPath(engine.path());
            return null;
        } catch (Exception e) {
            return giveUpLocked(refused("list of " + engine.path(), e));
        }
    }

    private void resolved(CuratorEvent event, int s) {
        KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
        Runnable after = null;
        lock.lock();
        try {
            if (phase == Phase.DONE || s != step) {
                return;                          // a give-up sweeps the uuid itself
            }
            if (rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE) {
                String found = rc == KeeperException.Code.OK ? findUnresolved(event.getChildren()) : null;
                unresolvedUuid = null;
                if (found == null) {
                    after = create();
                } else {
                    ourPath = engine.path() + "/" + found;
                    ourNode = LockNode.parse(found).orElse(null);
                    after = ourNode == null
                            ? giveUpLocked(new LockException("created node " + ourPath + " has an unexpected name"))
                            : fetchStat();
                }
            } else {
                after = failedCall(rc, "list of " + engine.path(), this::resolve);
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    private String findUnresolved(List<String> children) {
        for (String child : children) {
            if (child.startsWith("_c_" + unresolvedUuid + "-")) {
                return child;
            }
        }
        return null;
    }

    private void created(CuratorEvent event, Stat stat) {
        KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
        String path = event.getName();
        if (rc == KeeperException.Code.OK && path != null) {
            LockNode.parse(ZKPaths.getNodeFromPath(path))
                    .ifPresent(node -> engine.view().plainCreate(monitor.sessionId(), (int) node.sequence()));
        }
        Runnable after = null;
        lock.lock();
        try {
            createInFlight = false;
            if (rc == KeeperException.Code.OK) {
                if (phase == Phase.DONE) {
                    after = cleanup(path);       // gave up while the create was in flight
                } else {
                    reapedUnderCreate = 0;
                    ourPath = path;
                    ourNode = LockNode.parse(path.substring(path.lastIndexOf('/') + 1)).orElse(null);
                    if (ourNode == null) {
                        after = giveUpLocked(new LockException("created node " + path + " has an unexpected name"));
                    } else if (event.getStat() != null || stat.getCzxid() != 0) {
                        recordStat(event.getStat() != null ? event.getStat() : stat);
                        if (earlyStep != 0 && earlyStep == step) {
                            phase = Phase.LISTING;   // the early listing's reply decides
                        } else {
                            after = list();
                        }
                    } else {
                        after = fetchStat();     // found again after a connection loss: no Stat came back
                    }
                }
            } else if (phase == Phase.DONE) {
                after = this::completeGiveUp;
            } else if (rc == KeeperException.Code.NONODE) {
                after = directoryReaped();
            } else {
                after = failedCall(rc, "create under " + engine.path(), this::create);
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    /**
     * The container directory was reaped between its making and our create (an idle lock's
     * directory is, at any moment): make it again and create again, inside the deadline.
     */
    private Runnable directoryReaped() {
        if (++reapedUnderCreate > MAX_REAPED_UNDER_CREATE) {
            return giveUpLocked(new LockException("lock directory " + engine.path() + " was deleted under "
                    + MAX_REAPED_UNDER_CREATE + " creates in a row"));
        }
        if (!unbounded && !singleAttempt && deadline - System.nanoTime() <= 0) {
            return giveUpLocked(timedOut());
        }
        LOG.debug("lock directory {} was reaped under our create; making it again", engine.path());
        if (reapedUnderCreate == 1) {
            return create();
        }
        phase = Phase.BACKOFF;                 // reaped again: a short pause, not a storm of creates
        retryAction = this::create;
        retry = Threads.TIMER.schedule(() -> guard(this::retryFromTimer), Math.min(200, 10L * reapedUnderCreate),
                TimeUnit.MILLISECONDS);
        return null;
    }

    private Runnable fetchStat() {
        phase = Phase.CREATING;
        int s = ++step;
        try {
            client.checkExists().inBackground((c, event) -> guard(() -> statFetched(event, s))).forPath(ourPath);
            return null;
        } catch (Exception e) {
            return giveUpLocked(refused("read of " + ourPath, e));
        }
    }

    private void statFetched(CuratorEvent event, int s) {
        KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
        Runnable after = null;
        lock.lock();
        try {
            if (phase == Phase.DONE || s != step) {
                return;
            }
            if (rc == KeeperException.Code.OK && event.getStat() != null) {
                recordStat(event.getStat());
                after = list();
            } else if (rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE) {
                after = requeue("node " + ourPath + " vanished before it was read");
            } else {
                after = failedCall(rc, "read of " + ourPath, this::fetchStat);
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    private void recordStat(Stat stat) {
        czxid = stat.getCzxid();
        ephemeralOwner = stat.getEphemeralOwner();
    }

    // ---- 2. list and decide ------------------------------------------------------------

    private Runnable list() {
        return list(watchingDirectory);
    }

    /** Lists the directory; with {@code watch}, the same call leaves a children watch. */
    private Runnable list(boolean watch) {
        phase = Phase.LISTING;
        int s = ++step;
        if (!watch) {
            try {
                client.getChildren().inBackground((c, event) -> guard(() -> listed(event, s, null))).forPath(engine.path());
                return null;
            } catch (Exception e) {
                return giveUpLocked(refused("list of " + engine.path(), e));
            }
        }
        WatchKey key = WatchKey.children(engine.serverPath(engine.path()));
        Watcher watcher = event -> guard(() -> watchEvent(event, s));
        Exception[] refused = new Exception[1];
        monitor.watchIssued(key, () -> {
            try {
                client.getChildren().usingWatcher(watcher)
                        .inBackground((c, event) -> guard(() -> listed(event, s, key))).forPath(engine.path());
            } catch (Exception e) {
                refused[0] = e;
            }
        });
        if (refused[0] != null) {
            monitor.watchEnded(key, false, engine);
            return giveUpLocked(refused("list of " + engine.path(), refused[0]));
        }
        watchSetsInFlight++;
        return null;
    }

    private void listed(CuratorEvent event, int s, WatchKey key) {
        KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
        if (rc == KeeperException.Code.OK) {
            engine.view().listed(monitor.sessionId(), event.getStat(), event.getChildren());   // in reply order
        }
        Runnable after = null;
        lock.lock();
        try {
            if (key != null) {
                after = watchRegistered(rc, key, s);
            }
            boolean early = key == null && s == earlyStep;
            if (early) {
                earlyStep = 0;
            }
            if (phase != Phase.DONE && s == step) {
                if (early && phase != Phase.LISTING) {
                    after = null;              // came before the create's reply: created() lists again
                } else if (early && (rc == KeeperException.Code.NONODE
                        || rc == KeeperException.Code.OK && !containsOurNode(event.getChildren()))) {
                    after = list();            // never re-queue on a listing sent before the create was confirmed
                } else {
                    after = decide(rc, event.getChildren(), key != null && rc == KeeperException.Code.OK);
                }
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    private boolean containsOurNode(List<String> children) {
        return ourNode != null && children != null && children.contains(ourNode.name());
    }

    /**
     * Bookkeeping for the reply of a call that registers a watch. Returns what completes a
     * give-up that was waiting for this reply, if any.
     */
    private Runnable watchRegistered(KeeperException.Code rc, WatchKey key, int s) {
        watchSetsInFlight--;
        if (rc == KeeperException.Code.NONODE) {
            monitor.watchEnded(key, false, engine);            // a call on a missing node leaves no watch
        } else if (rc == KeeperException.Code.OK) {
            if (phase == Phase.DONE) {
                cleanups.add(monitor.watchEnded(key, true, engine));   // gave up while it was in flight
            } else {
                confirmedWatches.put(s, key);
            }
        }
        return phase == Phase.DONE && watchSetsInFlight == 0 ? this::completeAfterCleanups : null;
    }

    private Runnable decide(KeeperException.Code rc, List<String> children, boolean directoryWatched) {
        if (rc == KeeperException.Code.NONODE) {
            return requeue("lock directory " + engine.path() + " vanished");
        }
        if (rc != KeeperException.Code.OK) {
            return failedCall(rc, "list of " + engine.path(), this::list);
        }
        backoffMs = 0;
        List<LockNode> sorted = LockEngine.parseSorted(children);
        if (!sorted.contains(ourNode)) {
            return requeue("node " + ourPath + " is gone (session expired or deleted by someone else)");
        }
        long session = monitor.sessionId();
        if (session == 0) {
            return failedCall(KeeperException.Code.CONNECTIONLOSS, "list of " + engine.path(), this::list);
        }
        if (session != ephemeralOwner) {
            return requeue("node " + ourPath + " belongs to ended session 0x" + Long.toHexString(ephemeralOwner));
        }
        Decision decision = engine.driver().decide(sorted, ourNode, engine.maxLeases());
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} at {} of {} in {}: {}", ourNode.name(), sorted.indexOf(ourNode), sorted.size(),
                    engine.path(), decision);
        }
        watchingDirectory = decision.outcome() == Decision.Outcome.WATCH_DIRECTORY;
        switch (decision.outcome()) {
            case GRANTED:
                return grant(sorted);
            case REFUSED:
                return giveUpLocked(new IllegalStateException("lock " + engine.path() + ": " + decision.refusal()));
            default:
                break;
        }
        if (singleAttempt || (!unbounded && deadline - System.nanoTime() <= 0)) {
            return giveUpLocked(timedOut());
        }
        if (decision.outcome() == Decision.Outcome.WATCH_NODE) {
            return watch(decision.pathToWatch(engine.path()));
        }
        if (directoryWatched) {
            phase = Phase.WATCHING;            // this very listing left the children watch
            return null;
        }
        return list(true);
    }

    /**
     * Decides on the children the view vouched for after an inferring transaction: a grant is
     * final; anything else is decided again on a listing, which also sets up the wait.
     */
    private Runnable decideInferred(List<String> children) {
        List<LockNode> sorted = LockEngine.parseSorted(children);
        long session = monitor.sessionId();
        if (session == 0 || session != ephemeralOwner || !sorted.contains(ourNode)) {
            return list();
        }
        Decision decision = engine.driver().decide(sorted, ourNode, engine.maxLeases());
        if (decision.outcome() != Decision.Outcome.GRANTED) {
            return list();
        }
        LOG.debug("{} granted in {} without a listing (sequence-gap inference)", ourNode.name(), engine.path());
        return grant(sorted);
    }

    private Runnable requeue(String why) {
        if (adopted) {
            return giveUpLocked(new MustRequeue(why));
        }
        LOG.info("re-queueing on {}: {}", engine.path(), why);
        if (ourPath != null) {
            engine.deleteGuaranteed(ourPath);
        }
        removeConfirmedWatches();
        return create();
    }

    // ---- 3. watch and wait -------------------------------------------------------------

    private Runnable watch(String path) {
        phase = Phase.WATCHING;
        int s = ++step;
        Watcher watcher = event -> guard(() -> watchEvent(event, s));
        WatchKey key = WatchKey.data(engine.serverPath(path));
        Exception[] refused = new Exception[1];
        monitor.watchIssued(key, () -> {
            try {
                client.getData().usingWatcher(watcher)
                        .inBackground((c, event) -> guard(() -> watchSet(event, key, s))).forPath(path);
            } catch (Exception e) {
                refused[0] = e;
            }
        });
        if (refused[0] != null) {
            monitor.watchEnded(key, false, engine);
            return giveUpLocked(refused("watch of " + path, refused[0]));
        }
        watchSetsInFlight++;
        return null;
    }

    private void watchSet(CuratorEvent event, WatchKey key, int s) {
        KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
        Runnable after;
        lock.lock();
        try {
            after = watchRegistered(rc, key, s);
            if (phase != Phase.DONE && s == step) {
                if (rc == KeeperException.Code.NONODE) {
                    after = list();            // the node went before the watch was set
                } else if (rc != KeeperException.Code.OK) {
                    after = failedCall(rc, "watch of " + key.path(), this::list);
                } else if (engine.driver().announcesGrants()
                        && event.getStat() != null && event.getStat().getVersion() > 0) {
                    after = list();            // it announced its grant before our watch was set
                }
                // otherwise the watch is set; watchEvent takes it from here
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    private void watchEvent(WatchedEvent event, int s) {
        if (event.getType() == Watcher.Event.EventType.None) {
            if (event.getState() == Watcher.Event.KeeperState.Closed && clientClosed()) {
                clientClosing();               // a namespace facade's monitor hears no CLOSING of its own
            }
            return;                            // other connection news: the SessionMonitor kicks us
        }
        // Any other event wakes us, a removal included: while we wait, a removal means another
        // waiter of this session removed the shared server watch (a retried removal can land
        // after our registration), so the watch is gone and we must look again.
        Runnable after = null;
        lock.lock();
        try {
            WatchKey key = confirmedWatches.remove(s);
            if (key != null) {
                monitor.watchEnded(key, false, engine);            // a fired watch is gone from the server
            }
            if (phase == Phase.WATCHING && s == step) {
                after = list();
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    /** The connection came back or the session was lost: look again. */
    void kick() {
        guard(this::lookAgain);
    }

    private void lookAgain() {
        Runnable after = null;
        lock.lock();
        try {
            switch (phase) {
                case LISTING, WATCHING -> after = list();
                case BACKOFF -> after = retryNow();
                case CREATING, DONE -> { }
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    // ---- connection trouble --------------------------------------------------------------

    /** A call failed: back off and retry if the error is one of the connection's, else give up. */
    private Runnable failedCall(KeeperException.Code rc, String what, Supplier<Runnable> again) {
        if (clientClosed()) {
            return giveUpLocked(LockEngine.clientClosed("lock " + engine.path()));
        }
        if (!isConnectionTrouble(rc)) {
            return giveUpLocked(new LockException(what + " failed", KeeperException.create(rc)));
        }
        if (singleAttempt) {
            return giveUpLocked(timedOut());   // one attempt, and it could not reach ZooKeeper
        }
        LOG.debug("{} failed with {}; retrying", what, rc);
        phase = Phase.BACKOFF;
        backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(10, backoffMs * 2));
        retryAction = again;
        retry = Threads.TIMER.schedule(() -> guard(this::retryFromTimer), backoffMs, TimeUnit.MILLISECONDS);
        return null;
    }

    private static boolean isConnectionTrouble(KeeperException.Code rc) {
        return rc == KeeperException.Code.CONNECTIONLOSS
                || rc == KeeperException.Code.SESSIONEXPIRED
                || rc == KeeperException.Code.SESSIONMOVED
                || rc == KeeperException.Code.OPERATIONTIMEOUT
                || rc == KeeperException.Code.REQUESTTIMEOUT;
    }

    private void retryFromTimer() {
        Runnable after = null;
        lock.lock();
        try {
            if (phase == Phase.BACKOFF) {
                after = retryNow();
            }
        } finally {
            lock.unlock();
        }
        run(after);
    }

    /** Issues the pending retry; its calls are issued under the lock, as every call is. */
    private Runnable retryNow() {
        if (retry != null) {
            retry.cancel(false);
            retry = null;
        }
        Supplier<Runnable> action = retryAction;
        retryAction = null;
        return action == null ? null : action.get();
    }

    private boolean clientClosed() {
        return monitor.isClosed() || client.getState() == CuratorFrameworkState.STOPPED;
    }

    // ---- endings ---------------------------------------------------------------------------

    /*
     * A watch still registered at the grant (a children watch, or a data watch left by a kick)
     * is not removed, which would cost a request on the hot path: it fires at the latest when
     * our own node goes, and the event is ignored then.
     */
    private Runnable grant(List<LockNode> sorted) {
        if (clientClosed()) {
            return giveUpLocked(LockEngine.clientClosed("lock " + engine.path()));
        }
        phase = Phase.DONE;
        cancelTimers();
        monitor.waiting.remove(this);
        ZkLease lease = new ZkLease(engine, ourPath, czxid, ephemeralOwner);
        monitor.held.add(lease);
        if (clientClosed()) {
            lease.lose();                      // closed just now: the monitor may have missed it
        }
        if (engine.driver().announcesGrants() && !sorted.get(sorted.size() - 1).equals(ourNode)) {
            lease.announceGrant(ownerData);    // the node behind us may be waiting on ours
        }
        return () -> {
            if (!result.complete(lease)) {
                lease.release();               // lost the race with a give-up: release, never leak
            }
        };
    }

    private void timeout() {
        giveUp(clientClosed() ? LockEngine.clientClosed("lock " + engine.path()) : timedOut());
    }

    private TimeoutException timedOut() {
        return new TimeoutException("timed out waiting for lock " + engine.path());
    }

    private LockException refused(String what, Exception e) {
        return clientClosed() ? LockEngine.clientClosed("lock " + engine.path()) : new LockException(what + " failed: " + e, e);
    }

    /** The client is closing: fails the request the way every recipe reports a closed client. */
    void clientClosing() {
        giveUp(LockEngine.clientClosed("lock " + engine.path()));
    }

    /**
     * Withdraws the request: deletes its node and watches, then completes the result with
     * {@code reason}. Returns false if it had already ended (granted or given up).
     */
    boolean giveUp(Throwable reason) {
        Runnable after;
        lock.lock();
        try {
            if (phase == Phase.DONE) {
                return false;
            }
            after = giveUpLocked(reason);
        } finally {
            lock.unlock();
        }
        run(after);
        return true;
    }

    private Runnable giveUpLocked(Throwable reason) {
        if (phase == Phase.DONE) {
            return null;
        }
        phase = Phase.DONE;
        giveUpReason = reason;
        cancelTimers();
        monitor.waiting.remove(this);
        boolean connected = client.getZookeeperClient().isConnected();
        if (!connected || clientClosed()) {
            // nothing to wait for: the delete is retried on reconnection, the node is ephemeral
            Runnable cleanup = createInFlight ? null : cleanup(ourPath);
            return () -> {
                run(cleanup);
                completeGiveUp();
            };
        }
        Threads.TIMER.schedule(this::completeGiveUp, CLEANUP_WAIT_MS, TimeUnit.MILLISECONDS);
        if (createInFlight) {
            return null;                       // created() deletes the node when the create returns
        }
        return cleanup(ourPath);
    }

    /** Deletes our node (if any) and our confirmed watches, then completes the give-up. */
    private Runnable cleanup(String node) {
        if (node != null) {
            cleanups.add(engine.deleteGuaranteed(node));
        }
        if (unresolvedUuid != null) {
            cleanups.add(engine.sweep(unresolvedUuid));
            unresolvedUuid = null;
        }
        removeConfirmedWatches();
        ourPath = null;
        return watchSetsInFlight == 0 ? this::completeAfterCleanups : null;
    }

    private void completeAfterCleanups() {
        List<CompletableFuture<Void>> pending;
        lock.lock();
        try {
            pending = List.copyOf(cleanups);
        } finally {
            lock.unlock();
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> completeGiveUp());
    }

    private void completeGiveUp() {
        result.completeExceptionally(giveUpReason);
    }

    private void removeConfirmedWatches() {
        confirmedWatches.values().forEach(path -> cleanups.add(monitor.watchEnded(path, true, engine)));
        confirmedWatches.clear();
    }

    private void cancelTimers() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (retry != null) {
            retry.cancel(false);
            retry = null;
        }
    }

    /**
     * Runs one reply, event or timer step. Whatever it throws fails the request with that
     * cause and removes its node, so no wait outlives a callback that died.
     */
    private void guard(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException | Error e) {
            LockException failure = new LockException("lock " + engine.path() + ": a ZooKeeper reply could not be handled: " + e, e);
            boolean ended;
            try {
                ended = giveUp(failure);
            } catch (RuntimeException | Error again) {
                failure.addSuppressed(again);
                ended = false;
            }
            if (!ended && !result.isDone()) {
                abandon(failure);              // it died half-way through ending: end it here
            }
        }
    }

    /** Last resort of {@link #guard}: deletes the node, if any, and fails the caller at once. */
    private void abandon(Throwable failure) {
        lock.lock();
        try {
            phase = Phase.DONE;
            cancelTimers();
            cleanup(ourPath);                  // its completion is not waited for: the caller hears now
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        } finally {
            lock.unlock();
        }
        monitor.waiting.remove(this);
        result.completeExceptionally(failure);
    }

    private static void run(Runnable after) {
        if (after != null) {
            after.run();
        }
    }
}
