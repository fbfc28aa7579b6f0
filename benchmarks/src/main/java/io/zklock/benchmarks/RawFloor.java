package io.zklock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;

import io.zklock.benchmarks.Recipes.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Floors: the least a lock of each shape must ask of ZooKeeper, written with the plain
 * ZooKeeper handle (no retries, no recipe), so that a scenario run with them in the same run
 * as the libraries shows how far above the server's own cost each library is, and what ratio
 * against Curator any library doing the same requests could reach.
 *
 * <p>Every acquire creates an ephemeral sequential node and sends the listing of its directory
 * right behind the create, without waiting for the create's reply (the server answers one
 * session's requests in order, so the listing holds the new node): one round trip and one
 * commit. A node is granted when fewer than {@code permits} nodes sort before it; otherwise
 * the waiter waits for a notification and lists again. Release deletes the node.
 *
 * <ul>
 *   <li>one permit (a mutex): the waiter watches its predecessor only, so a release wakes one
 *       waiter;</li>
 *   <li>more permits (a semaphore): every listing also watches the directory, so the first
 *       deletion ahead wakes the waiter, whichever node it was;</li>
 *   <li>a multi-lock (never waits: a floor for the uncontended case only): one transaction
 *       creates all its nodes, the listings go right behind it, one transaction deletes them;</li>
 *   <li>{@link #WRITES}: create and delete with no listing at all: the two commits any lock that
 *       writes a node and deletes it pays, whatever it reads.</li>
 *   <li>{@link #BACKGROUND}: the same mutex and reader cycle with every call made in the
 *       background, the caller waiting on a future its callback completes: what the same requests
 *       cost a client that waits as zklock's engine must, never in {@code synchronized} +
 *       {@code wait()} (the handle's synchronous calls wait so, and their reply wakes the caller
 *       from the send thread; a background call's reply passes ZooKeeper's event thread first,
 *       one more thread hand-off per reply the caller waits for).</li>
 * </ul>
 */
final class RawFloor {

    private RawFloor() {
    }

    /** A minimal mutex ({@link #permits} with 1), reader (never waits), semaphore and uncontended multi-lock. */
    static final Recipes RECIPES = new Cycles("floor", Calls.SYNCHRONOUS) {
        @Override
        public Lock semaphore(CuratorFramework client, String path, int maxLeases) {
            return permits(client, path, maxLeases);
        }

        /** One transaction creates a node in every directory, their listings sent right behind it; one deletes them. */
        @Override
        public Lock multi(CuratorFramework client, List<String> paths) {
            paths.forEach(p -> ensureDirectory(client, p));
            return () -> {
                ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
                var created = new CompletableFuture<List<OpResult>>();
                zk.multi(paths.stream().map(p -> Op.create(p + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.EPHEMERAL_SEQUENTIAL)).toList(),
                        (rc, p, ctx, results) -> Calls.answer(created, rc, p, results), null);
                var listed = new ArrayList<CompletableFuture<Void>>();
                for (String p : paths) {
                    var listing = new CompletableFuture<Void>();
                    zk.getChildren(p, false, (rc, path, ctx, children) -> listing.complete(null), null);
                    listed.add(listing);
                }
                List<Op> deletes = created.get().stream()
                        .map(r -> Op.delete(((OpResult.CreateResult) r).getPath(), -1)).toList();
                CompletableFuture.allOf(listed.toArray(CompletableFuture[]::new)).get();
                return () -> zk.multi(deletes);
            };
        }
    };

    /** Create and delete, no listing: only {@code mutex} is meaningful (and grants nothing). */
    static final Recipes WRITES = new Recipes.Floor() {
        @Override
        public String name() {
            return "write floor";
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            ensureDirectory(client, path);
            return () -> {
                ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
                String node = zk.create(path + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.EPHEMERAL_SEQUENTIAL);
                return () -> zk.delete(node, -1);
            };
        }
    };

    /** {@link #RECIPES}' mutex and reader cycle with every call in the background (the rest is not offered). */
    static final Recipes BACKGROUND = new Cycles("background floor", Calls.IN_BACKGROUND);

    /** The mutex and the reader cycle of a floor, its listings, reads and deletes made by {@code calls}. */
    private static class Cycles extends Recipes.Floor {
        private final String name;
        private final Calls calls;

        Cycles(String name, Calls calls) {
            this.name = name;
            this.calls = calls;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            return permits(client, path, 1, calls);
        }

        /** Both halves are the reader's cycle: create with the listing, delete; the writer does not wait either. */
        @Override
        public Lock[] readWrite(CuratorFramework client, String path) {
            Lock cycle = permits(client, path, Integer.MAX_VALUE, calls);
            return new Lock[] {cycle, cycle};
        }
    }

    /**
     * A lock of at most {@code permits} holders on directory {@code path}
     * ({@link Integer#MAX_VALUE}: never waits, sets no watch), its listings, reads and delete
     * made with the handle's synchronous calls.
     */
    static Lock permits(CuratorFramework client, String path, int permits) {
        return permits(client, path, permits, Calls.SYNCHRONOUS);
    }

    /** {@link #permits(CuratorFramework, String, int)}, its listings, reads and delete made by {@code calls}. */
    static Lock permits(CuratorFramework client, String path, int permits, Calls calls) {
        ensureDirectory(client, path);
        return () -> {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            var created = new CompletableFuture<String>();
            zk.create(path + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
                    (rc, p, ctx, name) -> Calls.answer(created, rc, p, name), null);
            boolean watchDirectory = permits > 1 && permits != Integer.MAX_VALUE;
            var directoryChanged = new CountDownLatch(1);
            List<String> children = calls.list(zk, path, watchDirectory ? wake(directoryChanged) : null);
            String node = created.get();
            String name = node.substring(path.length() + 1);
            while (true) {
                String[] ahead = children.stream().filter(c -> c.compareTo(name) < 0).sorted().toArray(String[]::new);
                if (ahead.length < permits) {
                    return () -> calls.delete(zk, node);
                }
                if (watchDirectory) {
                    directoryChanged.await();
                    var next = new CountDownLatch(1);
                    children = calls.list(zk, path, wake(next));
                    directoryChanged = next;
                } else {
                    var predecessorGone = new CountDownLatch(1);
                    if (calls.exists(zk, path + "/" + ahead[ahead.length - 1], wake(predecessorGone))) {
                        predecessorGone.await();
                    }
                    children = calls.list(zk, path, null);
                }
            }
        };
    }

    /**
     * How a floor makes its listings, reads and deletes: with the handle's synchronous calls,
     * whose replies wake the caller from the send thread, or in the background, the caller
     * waiting on a future that the callback completes on ZooKeeper's event thread.
     */
    interface Calls {
        Calls SYNCHRONOUS = new Calls() {
            @Override
            public List<String> list(ZooKeeper zk, String path, Watcher watcher) throws Exception {
                return zk.getChildren(path, watcher);
            }

            @Override
            public boolean exists(ZooKeeper zk, String path, Watcher watcher) throws Exception {
                return zk.exists(path, watcher) != null;
            }

            @Override
            public void delete(ZooKeeper zk, String node) throws Exception {
                zk.delete(node, -1);
            }
        };

        Calls IN_BACKGROUND = new Calls() {
            @Override
            public List<String> list(ZooKeeper zk, String path, Watcher watcher) throws Exception {
                var listed = new CompletableFuture<List<String>>();
                zk.getChildren(path, watcher, (rc, p, ctx, children) -> answer(listed, rc, p, children), null);
                return await(listed);
            }

            @Override
            public boolean exists(ZooKeeper zk, String path, Watcher watcher) throws Exception {
                var read = new CompletableFuture<Boolean>();
                zk.exists(path, watcher, (rc, p, ctx, stat) -> answer(read,
                        rc == KeeperException.Code.NONODE.intValue() ? 0 : rc, p, stat != null), null);
                return await(read);
            }

            @Override
            public void delete(ZooKeeper zk, String node) throws Exception {
                var deleted = new CompletableFuture<Void>();
                zk.delete(node, -1, (rc, p, ctx) -> answer(deleted, rc, p, null), null);
                await(deleted);
            }
        };

        /** The children of {@code path}, {@code watcher} (or none) set on it. */
        List<String> list(ZooKeeper zk, String path, Watcher watcher) throws Exception;

        /** Whether {@code path} exists, {@code watcher} set on it either way. */
        boolean exists(ZooKeeper zk, String path, Watcher watcher) throws Exception;

        /** Deletes {@code node}, any version. */
        void delete(ZooKeeper zk, String node) throws Exception;

        /** Completes {@code future} with {@code value} on success, else with the code's exception; never leaves it open. */
        static <T> void answer(CompletableFuture<T> future, int rc, String path, T value) {
            if (rc == 0) {
                future.complete(value);
                return;
            }
            try {
                future.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
            } catch (RuntimeException e) {             // a code this client does not know
                future.completeExceptionally(new IllegalStateException("reply code " + rc + " for " + path, e));
            }
        }

        /** The future's value, or the exception its call failed with (not wrapped, as a synchronous call throws it). */
        private static <T> T await(CompletableFuture<T> future) throws Exception {
            try {
                return future.get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
    }

    private static Watcher wake(CountDownLatch latch) {
        return event -> latch.countDown();
    }

    static void ensureDirectory(CuratorFramework client, String path) {
        try {
            client.create().creatingParentContainersIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException e) {
            // another session of the workload made it
        } catch (Exception e) {
            throw new IllegalStateException("could not create " + path, e);
        }
    }
}
