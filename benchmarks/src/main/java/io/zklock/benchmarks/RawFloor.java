package io.zklock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

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
 * </ul>
 */
final class RawFloor {

    private RawFloor() {
    }

    /** A minimal mutex ({@link #permits} with 1), reader (never waits), semaphore and uncontended multi-lock. */
    static final Recipes RECIPES = new Recipes.Floor() {
        @Override
        public String name() {
            return "floor";
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            return permits(client, path, 1);
        }

        /** Both halves are the reader's cycle: create with the listing, delete; the writer does not wait either. */
        @Override
        public Lock[] readWrite(CuratorFramework client, String path) {
            Lock cycle = permits(client, path, Integer.MAX_VALUE);
            return new Lock[] {cycle, cycle};
        }

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
                        CreateMode.EPHEMERAL_SEQUENTIAL)).toList(), (rc, p, ctx, results) -> {
                            if (rc == 0) {
                                created.complete(results);
                            } else {
                                created.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc)));
                            }
                        }, null);
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

    /**
     * A lock of at most {@code permits} holders on directory {@code path}
     * ({@link Integer#MAX_VALUE}: never waits, sets no watch).
     */
    static Lock permits(CuratorFramework client, String path, int permits) {
        ensureDirectory(client, path);
        return () -> {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            var created = new CompletableFuture<String>();
            zk.create(path + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
                    (rc, p, ctx, name) -> {
                        if (rc == 0) {
                            created.complete(name);
                        } else {
                            created.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), p));
                        }
                    }, null);
            boolean watchDirectory = permits > 1 && permits != Integer.MAX_VALUE;
            var directoryChanged = new CountDownLatch(1);
            List<String> children = zk.getChildren(path, watchDirectory ? wake(directoryChanged) : null);
            String node = created.get();
            String name = node.substring(path.length() + 1);
            while (true) {
                String[] ahead = children.stream().filter(c -> c.compareTo(name) < 0).sorted().toArray(String[]::new);
                if (ahead.length < permits) {
                    return () -> zk.delete(node, -1);
                }
                if (watchDirectory) {
                    directoryChanged.await();
                    var next = new CountDownLatch(1);
                    children = zk.getChildren(path, wake(next));
                    directoryChanged = next;
                } else {
                    var predecessorGone = new CountDownLatch(1);
                    if (zk.exists(path + "/" + ahead[ahead.length - 1], wake(predecessorGone)) != null) {
                        predecessorGone.await();
                    }
                    children = zk.getChildren(path, null);
                }
            }
        };
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
