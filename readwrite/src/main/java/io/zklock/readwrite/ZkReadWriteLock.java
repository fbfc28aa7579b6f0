package io.zklock.readwrite;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.core.LeaseState;
import io.zklock.core.LockCompatibility;
import io.zklock.core.LockDelay;
import io.zklock.core.LockOptions;
import io.zklock.core.Participant;
import io.zklock.core.spi.JucLockView;
import io.zklock.core.spi.LockComponent;
import io.zklock.core.spi.LockComponents;
import io.zklock.core.spi.LockEngine;
import io.zklock.core.spi.ReentrantLockSupport;
import io.zklock.core.spi.queue.Deadline;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * Two reentrant halves over two engines on the same directory, one of kind "write" and one of
 * kind "read", both deciding with ReadWriteDriver (whose top comment states the queue rules).
 * Re-entry is per thread and per half, through ReentrantLockSupport; everything below is about
 * what a blocking acquisition does when the thread already holds the other half.
 *
 * Downgrade (a blocking read acquisition by a thread that holds the write lock). A plain read
 * node would queue behind every writer that queued after our write node W: the thread would
 * wait for a writer that waits for the thread. Curator grants such a node at once instead,
 * which lets a queued writer in beside the reader as soon as W is closed. Here the read node R
 * is created anchored at W (name _c_<uuid>-read.<seq of W>-<seq>), so it sorts right after W
 * and before everything queued after W; the reader rule does not count W against R. R is
 * granted on its first listing, and when W is closed R keeps W's place: a writer queued after
 * W now finds R ahead of it and waits for it. In order:
 *   1. re-enter the write lock (a pin, so W is not deleted under us by a close on another thread);
 *   2. acquire R through an engine anchored at W's sequence number;
 *   3. ask the engine which node was right ahead of R in the listing that granted it (only a
 *      read node anchored at W can sort between W and R, and only this thread makes those): if
 *      it was W, by its full name, R and W existed together, so no writer can have been granted between W and
 *      R: R becomes the thread's read hold. If it did not (W's session expired, or W was
 *      deleted by someone else), a writer may already hold the lock without knowing of R: R is
 *      released, unused, and the thread queues as any reader, with the time left;
 *   4. close the pin.
 *
 * Upgrade (a blocking write acquisition by a thread that holds only the read lock) would wait
 * for the thread's own read lease: it is refused at once with an IllegalStateException.
 *
 * Asynchronous acquisitions are bound to no thread: they neither re-enter, downgrade nor count
 * as upgrades.
 */
/**
 * A fair, reentrant, distributed read-write lock on one ZooKeeper path: any number of readers
 * at once, or one writer.
 *
 * <p>{@link #readLock()} and {@link #writeLock()} are two {@link DistributedLock}s on the same
 * path. Readers and writers queue together as ephemeral-sequential nodes under {@code path}.
 * A writer is granted when it is at the head of the queue; a reader when no writer is ahead of
 * it. Each waiter watches one node, chosen so that a release wakes only clients that may now
 * proceed: a writer watches its immediate predecessor, a reader the nearest writer ahead of it.
 * An uncontended acquisition of either half costs two ZooKeeper requests once the directory
 * exists (create, list), a downgrade two as well, a release one (delete).
 *
 * <p><b>Fairness.</b> Writers are granted in queue order and never starve: a reader that
 * arrives after a waiting writer queues behind it. A reader waits for every writer that queued
 * before it and for no writer that queued after it; readers with no writer between them hold
 * together. The queue order is the order in which requests reached the ZooKeeper leader;
 * nothing is promised about the order of two requests issued concurrently.
 *
 * <p><b>Re-entry.</b> Both halves are reentrant per thread for the blocking calls
 * ({@code acquire}, {@code tryAcquire}, {@code asLock()}): a thread that holds a half and asks
 * for it again gets a new {@link Lease} on the same node at once; the node is deleted when the
 * last of those leases is closed (a lease closed before the last is {@code RELEASED} at once;
 * the last stays {@code HELD} or {@code SUSPENDED} until the node is really gone). Leases may be
 * closed on any thread. {@code acquireAsync} never re-enters. A node the thread holds through a
 * {@code ZkMultiLock} cannot be re-entered: a blocking acquisition of either half by that
 * thread is refused with an {@link IllegalStateException} until the multi-lease is closed.
 *
 * <p><b>Downgrade.</b> A thread that holds the write lock may take the read lock with a
 * blocking call: it is granted at once, and after the thread closes its write lease it still
 * holds the read lease, while any writer that queued meanwhile waits for that read lease too.
 * Readers that queued between the write lock and such a writer join the downgraded reader.
 *
 * <p><b>Upgrade is refused.</b> A blocking write acquisition by a thread that holds the read
 * lock but not the write lock throws {@link IllegalStateException} at once: it would wait for
 * the thread's own read lease forever. Close the read leases first, or take the write lock
 * first and downgrade.
 *
 * <p><b>Session loss.</b> A held lease of either half turns {@code SUSPENDED} while the
 * connection is down and {@code LOST} if the session expires, after which a writer on another
 * session may hold the lock; guard the protected resource with {@link Lease#fencingToken()}.
 * Write tokens strictly increase from one writer to the next.
 *
 * <p><b>Memory consistency.</b> The guarantee of {@link DistributedLock} holds across the
 * halves: within one JVM, actions before closing a write lease <i>happen-before</i> actions
 * after a later acquisition of either half, and actions before closing a read lease
 * happen-before actions after a later write acquisition.
 *
 * <pre>{@code
 * ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/catalog");
 * try (Lease lease = lock.writeLock().acquire()) {
 *     catalog.rebuild(lease.fencingToken());
 *     try (Lease read = lock.readLock().acquire()) {   // downgrade
 *         lease.close();                               // other readers may now join
 *         catalog.publish();
 *     }
 * }
 * }</pre>
 */
public final class ZkReadWriteLock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ZkReadWriteLock.class);

    private final ReadWriteDriver driver;
    private final ReentrantLockSupport readSync;
    private final ReentrantLockSupport writeSync;
    private final ReadLock readLock = new ReadLock();
    private final WriteLock writeLock = new WriteLock();

    /**
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/catalog}
     * @throws IllegalArgumentException if the client is null or the path is invalid
     */
    public ZkReadWriteLock(CuratorFramework client, String path) {
        this(client, path, LeaseCaching.off());
    }

    /**
     * A read-write lock whose read node the process may keep after use and share among its
     * readers, with no request, until a writer of any client asks for it (see
     * {@link LeaseCaching}). Write nodes are never kept.
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/catalog}
     * @param readCaching whether and how long a read node is kept after its last read lease
     *        closes; {@link LeaseCaching#off()} for none
     * @throws IllegalArgumentException if the client or readCaching is null or the path is invalid
     */
    public ZkReadWriteLock(CuratorFramework client, String path, LeaseCaching readCaching) {
        this(client, path, LockOptions.defaults().withCaching(readCaching));
    }

    /**
     * A read-write lock that writes the node layout of {@code compatibility}: with
     * {@link LockCompatibility#CURATOR} it shares its path safely with Curator's
     * {@code InterProcessReadWriteLock} (names {@code __READ__}/{@code __WRIT__}, Curator's
     * order and rules, a downgrade's read node named so that Curator sorts it at the write
     * node's place). Either mode honours the other mode's zklock nodes; the default mode
     * refuses while one of Curator's own nodes queues on the path (a
     * {@link io.zklock.core.LockException} naming the path and them), because Curator's clients do
     * not see ours.
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/catalog}
     * @param compatibility the node layout written
     * @throws IllegalArgumentException if an argument is null or the path is invalid
     */
    public ZkReadWriteLock(CuratorFramework client, String path, LockCompatibility compatibility) {
        this(client, path, LockOptions.defaults().withCompatibility(compatibility));
    }

    /**
     * A read-write lock with both options; see the two constructors above.
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/catalog}
     * @param readCaching whether and how long a read node is kept; must be off in {@link LockCompatibility#CURATOR}
     * @param compatibility the node layout written
     * @throws IllegalArgumentException if an argument is null, the path is invalid, or caching
     *         is on with {@link LockCompatibility#CURATOR} (the message names both)
     */
    public ZkReadWriteLock(CuratorFramework client, String path, LeaseCaching readCaching, LockCompatibility compatibility) {
        this(client, path, LockOptions.defaults().withCaching(readCaching).withCompatibility(compatibility));
    }

    /**
     * A read-write lock built with {@code options} (see {@link LockOptions}): whether its read
     * node is kept after use ({@link LeaseCaching}; write nodes never are), the node layout it
     * writes ({@link LockCompatibility}), and how long a reader or writer granted after a
     * holder's session ended without a release waits before its lease is granted
     * ({@link LockDelay}, for both halves).
     *
     * @param client a started Curator client; may be shared with other locks
     * @param path the lock's ZooKeeper path, absolute, e.g. {@code /locks/catalog}
     * @param options the lock's options; {@link LockOptions#defaults()} for none
     * @throws IllegalArgumentException if an argument is null or the path is invalid
     */
    public ZkReadWriteLock(CuratorFramework client, String path, LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options is null; use LockOptions.defaults()");
        }
        LockCompatibility compatibility = options.compatibility();
        this.driver = ReadWriteDriver.of(compatibility);
        this.writeSync = new ReentrantLockSupport(new LockEngine(client, path, ReadWriteDriver.writeRecipe(compatibility),
                options.withCaching(LeaseCaching.off())));
        this.readSync = new ReentrantLockSupport(new LockEngine(client, path, ReadWriteDriver.readRecipe(compatibility), options));
        LockComponents.register(readLock, new Half(readSync, writeSync, "the current thread holds the write lock of "
                + path + "; take its read lock on its own (a downgrade), not in a multi-lock"));
        LockComponents.register(writeLock, new Half(writeSync, readSync, "the current thread holds the read lock of "
                + path + "; a multi-lock cannot upgrade it to the write lock"));
    }

    /** {@return the lock's ZooKeeper path, exactly as given to the constructor} */
    public String path() {
        return writeSync.path();
    }

    /** {@return the shared half; the same object on every call} */
    public ReadLock readLock() {
        return readLock;
    }

    /** {@return the exclusive half; the same object on every call} */
    public WriteLock writeLock() {
        return writeLock;
    }

    /**
     * {@return who holds and who waits on this lock now, readers and writers, in queue order;
     * each with its owner and whether it holds}
     */
    public List<Participant> participants() {
        return writeSync.engine().participants();
    }

    /**
     * Releases the nodes this client keeps cached for this lock (see {@link LeaseCaching}): read
     * nodes, as write nodes are never kept; an idle one now, one in use when its read leases
     * close. Leases in use stay valid. Nothing to do when caching is off; the lock may still be
     * used afterwards (it caches again). The same as {@code readLock().releaseCachedNodes()}.
     */
    public void releaseCachedNodes() {
        readLock.releaseCachedNodes();
    }

    /**
     * Does {@link #releaseCachedNodes()}, and only that: the lock holds nothing else to close,
     * leases in use stay valid, and the lock may still be used afterwards.
     */
    @Override
    public void close() {
        releaseCachedNodes();
    }

    @Override
    public String toString() {
        return "ZkReadWriteLock[" + path() + "]";
    }

    /**
     * The shared half of a {@link ZkReadWriteLock}: held by any number of clients at once
     * while no writer holds or waits ahead of them. A blocking acquisition by a thread that
     * holds the write lock is a downgrade: granted at once, see the class comment.
     */
    public final class ReadLock implements DistributedLock, AutoCloseable {
        private final Lock view = new JucLockView(this);

        private ReadLock() {
        }

        @Override
        public String path() {
            return ZkReadWriteLock.this.path();
        }

        /**
         * Acquires the read lock, waiting as long as it takes; see {@link DistributedLock#acquire()}
         * for the outcomes. Re-enters if the thread holds the read lock, and is granted at once
         * if it holds the write lock (downgrade).
         */
        @Override
        public Lease acquire() throws InterruptedException {
            return Deadline.grantOfUnbounded(acquireRead(Deadline.unbounded()), "the read lock of " + path());
        }

        /**
         * Acquires the read lock if it is granted within {@code timeout}; see
         * {@link DistributedLock#tryAcquire(Duration)} for the outcomes. Re-entry and downgrade
         * as for {@link #acquire()}.
         */
        @Override
        public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
            return acquireRead(Deadline.after(timeout));
        }

        /** See {@link DistributedLock#acquireAsync(Duration)}; never re-enters and never downgrades. */
        @Override
        public CompletableFuture<Lease> acquireAsync(Duration timeout) {
            return readSync.acquireAsync(timeout);
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return readSync.isHeldByCurrentThread();
        }

        /** {@return how many open blocking acquisitions the current thread has on the read lock (0 if none)} */
        public int holdCount() {
            return readSync.holdCount();
        }

        @Override
        public Lock asLock() {
            return view;
        }

        /**
         * Releases the read nodes this client keeps cached for the lock (see
         * {@link LeaseCaching}): an idle one now, one in use when its read leases close. Read
         * leases in use stay valid; the read lock may still be used afterwards (it caches again).
         */
        public void releaseCachedNodes() {
            readSync.engine().releaseCachedNodes();
        }

        /**
         * Does {@link #releaseCachedNodes()}, and only that: read leases in use stay valid, and
         * the read lock may still be used afterwards.
         */
        @Override
        public void close() {
            releaseCachedNodes();
        }

        @Override
        public String toString() {
            return "ReadLock[" + path() + "]";
        }
    }

    /**
     * The exclusive half of a {@link ZkReadWriteLock}: held by one client at a time, and never
     * while a reader holds. A blocking acquisition by a thread that holds only the read lock
     * is refused (upgrade), see the class comment.
     */
    public final class WriteLock implements DistributedLock {
        private final Lock view = new JucLockView(this);

        private WriteLock() {
        }

        @Override
        public String path() {
            return ZkReadWriteLock.this.path();
        }

        /**
         * Acquires the write lock, waiting as long as it takes; see
         * {@link DistributedLock#acquire()} for the outcomes. Re-enters if the thread holds the
         * write lock.
         *
         * @throws IllegalStateException at once if the thread holds the read lock but not the
         *     write lock (an upgrade, which would deadlock)
         */
        @Override
        public Lease acquire() throws InterruptedException {
            return Deadline.grantOfUnbounded(acquireWrite(Deadline.unbounded()), "the write lock of " + path());
        }

        /**
         * Acquires the write lock if it is granted within {@code timeout}; see
         * {@link DistributedLock#tryAcquire(Duration)} for the outcomes.
         *
         * @throws IllegalStateException at once if the thread holds the read lock but not the
         *     write lock (an upgrade, which would deadlock)
         */
        @Override
        public Optional<Lease> tryAcquire(Duration timeout) throws InterruptedException {
            return acquireWrite(Deadline.after(timeout));
        }

        /**
         * See {@link DistributedLock#acquireAsync(Duration)}; never re-enters, and is not
         * refused when the calling thread holds the read lock: the future then completes only
         * after that read lease is closed.
         */
        @Override
        public CompletableFuture<Lease> acquireAsync(Duration timeout) {
            return writeSync.acquireAsync(timeout);
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return writeSync.isHeldByCurrentThread();
        }

        /** {@return how many open blocking acquisitions the current thread has on the write lock (0 if none)} */
        public int holdCount() {
            return writeSync.holdCount();
        }

        @Override
        public Lock asLock() {
            return view;
        }

        @Override
        public String toString() {
            return "WriteLock[" + path() + "]";
        }
    }

    // ---- blocking acquisitions ----------------------------------------------------------------

    private Optional<Lease> acquireRead(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Optional<Lease> again = readSync.reenterIfHeld();
        if (again.isPresent()) {
            return again;
        }
        Optional<Lease> pin = writeSync.reenterIfHeld();
        if (pin.isPresent() && pin.get().state() != LeaseState.HELD) {
            LeaseState state = pin.get().state();
            pin.get().close();                 // not known to hold: no downgrade on a maybe-gone node
            throw new IllegalStateException("the write lease of " + path() + " is " + state
                    + "; a downgrade needs it HELD (try again once the connection is back)");
        }
        if (pin.isPresent()) {
            try (Lease write = pin.get()) {
                LockNode writeNode = writeSync.engine().nodeOf(write);
                LockEngine anchored = readSync.engine().anchoredAt(writeNode.sequence(), driver);
                Optional<Lease> read = anchored.acquire(deadline);
                if (read.isEmpty() || grantedBesideAnchor(anchored, read.get(), writeNode)) {
                    return read.map(this::adoptRead);
                }
                read.get().close();
                LOG.warn("write node {} was gone when the downgrade's read node {} was granted (session expired?);"
                        + " queueing for the read lock as any reader", write.nodePath(), read.get().nodePath());
            }
        }
        return readSync.acquire(deadline);
    }

    private Lease adoptRead(Lease read) {
        try {
            return readSync.adopt(read);
        } catch (RuntimeException e) {
            read.close();
            throw e;
        }
    }

    private Optional<Lease> acquireWrite(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Optional<Lease> again = writeSync.reenterIfHeld();
        if (again.isPresent()) {
            return again;
        }
        int reads = readSync.holdCount();
        if (reads > 0) {
            throw new IllegalStateException("lock upgrade refused: the current thread holds the read lock of "
                    + path() + " (" + reads + (reads == 1 ? " lease" : " leases") + ") and asks for its write lock,"
                    + " which would wait for that read lock forever (a deadlock); close the read leases first,"
                    + " or take the write lock first and then the read lock (downgrade)");
        }
        return writeSync.acquire(deadline);
    }

    /**
     * Step 3 of the overview: whether the listing that granted the anchored read node still
     * showed the write node. The full name, not only the sequence: a reaped and re-created
     * directory restarts its counter, and a stranger's write node may carry our number.
     */
    private static boolean grantedBesideAnchor(LockEngine anchored, Lease read, LockNode writeNode) {
        LockNode ours = anchored.nodeOf(read);
        return anchored.predecessorAtGrant(read)
                .filter(node -> node.name().equals(writeNode.name()) && ReadWriteDriver.isAnchorOf(node, ours))
                .isPresent();
    }

    /**
     * The multi-lock's handle on one half: its engine, and re-entry by a thread that holds that
     * half. A thread that holds only the other half is refused: a multi-lock can neither
     * downgrade nor upgrade. References the two halves' supports only, never the lock.
     */
    private record Half(ReentrantLockSupport own, ReentrantLockSupport other, String refusal) implements LockComponent {
        @Override
        public LockEngine engine() {
            return own.engine();
        }

        @Override
        public Optional<Lease> reenterIfHeld() {
            Optional<Lease> again = own.reenterIfHeld();
            if (again.isEmpty() && other.holdCount() > 0) {
                throw new IllegalStateException(refusal);
            }
            return again;
        }
    }
}
