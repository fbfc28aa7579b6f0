package io.zklock.readwrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.Participant;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.testing.Await;
import io.zklock.testing.EmbeddedServerTest;
import io.zklock.testing.ZkTesting;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ZkReadWriteLock} on a real server: the API contract, node naming, downgrade, upgrade and bad input. */
class ZkReadWriteLockTest extends EmbeddedServerTest {

    private List<String> nodes(String path) {
        return ZkTesting.children(client, path).stream().sorted().toList();
    }

    private static LockNode parse(Lease lease) {
        return LockNode.parse(lease.nodePath().substring(lease.nodePath().lastIndexOf('/') + 1)).orElseThrow();
    }

    /** Each half creates a node of its own kind, which closing deletes; both halves are DistributedLocks on the path. */
    @Test
    void halvesCreateNodesOfTheirKindAndCloseDeletesThem() throws Exception {
        ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/a");
        DistributedLock read = lock.readLock();
        DistributedLock write = lock.writeLock();
        assertEquals("/locks/a", lock.path());
        assertEquals("/locks/a", read.path());
        assertEquals("/locks/a", write.path());
        assertSame(read, lock.readLock());

        try (Lease r = read.acquire()) {
            assertEquals("read", parse(r).kind());
            assertEquals(OptionalLong.empty(), parse(r).anchor());
            assertEquals(client.checkExists().forPath(r.nodePath()).getCzxid(), r.fencingToken());
            assertTrue(read.isHeldByCurrentThread());
            assertFalse(write.isHeldByCurrentThread());
        }
        assertEquals(List.of(), nodes("/locks/a"));
        try (Lease w = write.acquire()) {
            assertEquals("write", parse(w).kind());
            assertTrue(write.isHeldByCurrentThread());
            assertFalse(read.isHeldByCurrentThread());
        }
        assertEquals(List.of(), nodes("/locks/a"));
        assertEquals("ZkReadWriteLock[/locks/a]", lock.toString());
    }

    /** The constructor names a null client and every kind of invalid path, as ZkMutex's does. */
    @ParameterizedTest
    @ValueSource(strings = {"", "locks/a", "/locks/a/", "/locks//a", "/locks/./a", "/locks/../a", "/", "/zookeeper",
        "/zookeeper/x", "/locks/\u0000a"})
    void invalidPathsAreRefusedWithTheirName(String path) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ZkReadWriteLock(client, path));
        assertTrue(e.getMessage().contains("lock path"), e.getMessage());
    }

    /** A null client or a null path is refused at construction. */
    @Test
    void nullArgumentsAreRefused() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ZkReadWriteLock(null, "/a"))
                .getMessage().contains("client"));
        assertThrows(IllegalArgumentException.class, () -> new ZkReadWriteLock(client, null));
    }

    /** Null and negative timeouts are refused by both halves, blocking and asynchronous, and leave no node. */
    @Test
    void badTimeoutsAreRefusedAndLeaveNoNode() {
        ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/t");
        for (DistributedLock half : List.of(lock.readLock(), lock.writeLock())) {
            assertThrows(IllegalArgumentException.class, () -> half.tryAcquire(null));
            IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                    () -> half.tryAcquire(Duration.ofMillis(-1)));
            assertTrue(negative.getMessage().contains("PT-0.001S"), negative.getMessage());
            assertThrows(IllegalArgumentException.class, () -> half.acquireAsync(null));
            assertThrows(IllegalArgumentException.class, () -> half.acquireAsync(Duration.ofSeconds(-5)));
        }
        assertEquals(List.of(), nodes("/locks/t"));
    }

    /** Readers on two clients hold at once; a writer waits for both and is then granted. */
    @Test
    void readersShareAndAWriterWaitsForThemAll() throws Exception {
        ZkReadWriteLock mine = new ZkReadWriteLock(client, "/locks/s");
        ZkReadWriteLock theirs = new ZkReadWriteLock(other, "/locks/s");
        Lease r1 = mine.readLock().acquire();
        Lease r2 = theirs.readLock().tryAcquire(Duration.ZERO).orElseThrow();
        assertTrue(r1.isValid() && r2.isValid());
        ExecutionException timedOut = assertThrows(ExecutionException.class,
                () -> theirs.writeLock().acquireAsync(Duration.ofMillis(50)).get(LONG.toSeconds(), TimeUnit.SECONDS));
        assertInstanceOf(java.util.concurrent.TimeoutException.class, timedOut.getCause());
        CompletableFuture<Lease> writer = theirs.writeLock().acquireAsync(LONG);
        Await.equal("writer queued", 3, LONG, () -> nodes("/locks/s").size());
        List<Participant> participants = mine.participants();
        assertEquals(List.of(true, true, false), participants.stream().map(Participant::holding).toList());
        assertEquals(List.of("read", "read", "write"), participants.stream().map(Participant::mode).toList());
        r1.close();
        assertFalse(writer.isDone());
        r2.close();
        try (Lease w = writer.get(LONG.toSeconds(), TimeUnit.SECONDS)) {
            assertTrue(w.isValid());
        }
    }

    /**
     * Downgrade: the writer's read acquisition is granted at once with a node anchored at its
     * write node, sorted before a writer queued meanwhile; the read lease survives the write
     * lease's close, and the queued writer waits for it.
     */
    @Test
    void downgradeAnchorsTheReadNodeAtTheWriteNode() throws Exception {
        ZkReadWriteLock mine = new ZkReadWriteLock(client, "/locks/d");
        ZkReadWriteLock theirs = new ZkReadWriteLock(other, "/locks/d");
        Lease write = mine.writeLock().acquire();
        CompletableFuture<Lease> queued = theirs.writeLock().acquireAsync(LONG);
        Await.equal("writer queued", 2, LONG, () -> nodes("/locks/d").size());

        Lease read = mine.readLock().tryAcquire(Duration.ZERO).orElseThrow();

        LockNode anchored = parse(read);
        assertEquals("read", anchored.kind());
        assertEquals(OptionalLong.of(parse(write).sequence()), anchored.anchor());
        assertEquals(List.of(write.nodePath(), read.nodePath()),
                mine.participants().stream().map(Participant::nodePath).toList().subList(0, 2));
        assertEquals(List.of(true, true, false), mine.participants().stream().map(Participant::holding).toList());
        assertTrue(mine.readLock().isHeldByCurrentThread());
        assertTrue(mine.writeLock().isHeldByCurrentThread());

        Lease again = mine.readLock().acquire();
        assertEquals(read.nodePath(), again.nodePath(), "re-entry of the downgraded read lock");
        again.close();

        write.close();
        assertEquals(LeaseState.HELD, read.state());
        assertFalse(mine.writeLock().isHeldByCurrentThread());
        assertEquals(List.of(true, false), mine.participants().stream().map(Participant::holding).toList());
        assertThrows(java.util.concurrent.TimeoutException.class, () -> queued.get(200, TimeUnit.MILLISECONDS));
        read.close();
        try (Lease w = queued.get(LONG.toSeconds(), TimeUnit.SECONDS)) {
            assertTrue(w.isValid());
        }
        assertEquals(List.of(), nodes("/locks/d"));
    }

    /**
     * If the write node is gone when the downgrade's read node is listed (here deleted by
     * another client, so the holder still believes it holds; in life, session expiry) and a
     * writer got in meanwhile, the anchored node is released unused and the thread queues as
     * any reader: it is not granted beside that writer.
     */
    @Test
    void downgradeWhoseWriteNodeVanishedQueuesAsAnyReader() throws Exception {
        ZkReadWriteLock mine = new ZkReadWriteLock(client, "/locks/v");
        ZkReadWriteLock theirs = new ZkReadWriteLock(other, "/locks/v");
        Lease write = mine.writeLock().acquire();
        CompletableFuture<Lease> queued = theirs.writeLock().acquireAsync(LONG);
        Await.equal("writer queued", 2, LONG, () -> nodes("/locks/v").size());
        other.delete().forPath(write.nodePath());
        Lease next = queued.get(LONG.toSeconds(), TimeUnit.SECONDS);

        assertEquals(Optional.empty(), mine.readLock().tryAcquire(Duration.ofMillis(300)));
        assertEquals(List.of(next.nodePath().substring("/locks/v/".length())), nodes("/locks/v"));

        CompletableFuture<Lease> reader = CompletableFuture.supplyAsync(() -> {
            try {
                return mine.readLock().acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Await.equal("reader queued", 2, LONG, () -> nodes("/locks/v").size());
        assertFalse(reader.isDone(), "granted beside the writer");
        next.close();
        try (Lease read = reader.get(LONG.toSeconds(), TimeUnit.SECONDS)) {
            assertEquals(OptionalLong.empty(), parse(read).anchor(), "an ordinary read node");
        }
        write.close();
    }

    /** Upgrade: a read holder's blocking write acquisition throws at once, saying why; it creates no node and keeps the read lease. */
    @Test
    void upgradeIsRefusedWithAClearMessage() throws Exception {
        ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/u");
        try (Lease read = lock.readLock().acquire()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> lock.writeLock().acquire());
            assertTrue(e.getMessage().contains("upgrade") && e.getMessage().contains("/locks/u")
                    && e.getMessage().contains("deadlock"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> lock.writeLock().tryAcquire(Duration.ZERO));
            assertThrows(IllegalStateException.class, () -> lock.writeLock().tryAcquire(LONG));
            assertThrows(IllegalStateException.class, () -> lock.writeLock().asLock().lock());
            assertEquals(1, nodes("/locks/u").size());
            assertTrue(read.isValid());
            assertTrue(lock.readLock().isHeldByCurrentThread());
        }
        try (Lease write = lock.writeLock().tryAcquire(Duration.ZERO).orElseThrow()) {
            assertTrue(write.isValid());
        }
    }

    /**
     * Asynchronous acquisitions are bound to no thread: a writer's asynchronous read request
     * queues behind its own write node (no downgrade), and a reader's asynchronous write
     * request is not refused but completes once the read lease is closed.
     */
    @Test
    void asynchronousAcquisitionsNeitherDowngradeNorCountAsUpgrades() throws Exception {
        ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/async");
        try (Lease write = lock.writeLock().acquire()) {
            CompletableFuture<Lease> read = lock.readLock().acquireAsync(Duration.ofMillis(100));
            ExecutionException e = assertThrows(ExecutionException.class, () -> read.get(LONG.toSeconds(), TimeUnit.SECONDS));
            assertInstanceOf(java.util.concurrent.TimeoutException.class, e.getCause());
            assertTrue(write.isValid());
        }
        Lease read = lock.readLock().acquire();
        CompletableFuture<Lease> write = lock.writeLock().acquireAsync(LONG);
        Await.equal("writer queued", 2, LONG, () -> nodes("/locks/async").size());
        assertFalse(write.isDone());
        read.close();
        write.get(LONG.toSeconds(), TimeUnit.SECONDS).close();
        assertEquals(List.of(), nodes("/locks/async"));
    }

    /** The JUC views lock and unlock their half, re-enter, and downgrade; unlock without a hold is refused. */
    @Test
    void lockViewsWorkPerHalf() throws Exception {
        ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/juc");
        Lock read = lock.readLock().asLock();
        Lock write = lock.writeLock().asLock();
        assertSame(read, lock.readLock().asLock());
        write.lock();
        assertTrue(write.tryLock());
        assertEquals(2, lock.writeLock().holdCount());
        assertTrue(read.tryLock(1, TimeUnit.SECONDS), "downgrade through the view");
        write.unlock();
        write.unlock();
        assertEquals(0, lock.writeLock().holdCount());
        assertEquals(1, lock.readLock().holdCount());
        assertEquals(1, nodes("/locks/juc").size());
        read.unlock();
        assertThrows(IllegalMonitorStateException.class, read::unlock);
        assertEquals(List.of(), nodes("/locks/juc"));
    }

    /** Foreign and malformed children, including malformed anchored names, are ignored and left alone. */
    @Test
    void foreignChildrenAreIgnored() throws Exception {
        client.create().creatingParentsIfNeeded().forPath("/locks/f/readme", "not a lock".getBytes());
        client.create().forPath("/locks/f/write-0000000000");
        client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath("/locks/f/_c_not-a-uuid-write-");
        client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath("/locks/f/_c_0f8fad5b-d9cb-469f-a165-70867728950e-write.12-");
        ZkReadWriteLock lock = new ZkReadWriteLock(client, "/locks/f");
        try (Lease write = lock.writeLock().tryAcquire(LONG).orElseThrow()) {
            assertTrue(write.isValid());
            assertEquals(1, lock.participants().size());
        }
        try (Lease read = lock.readLock().tryAcquire(LONG).orElseThrow()) {
            assertTrue(read.isValid());
        }
        assertEquals(4, nodes("/locks/f").size());
    }
}
