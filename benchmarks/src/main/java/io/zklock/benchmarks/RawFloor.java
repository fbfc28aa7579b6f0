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
    static final Recipes RECIPES = new Cycles("floor", false) {
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

    /** {@link #RECIPES}' mutex and reader cycle with every call in the background (the rest is not offered). */
    static final Recipes BACKGROUND = new Cycles("background floor", true);

    /** The mutex and the reader cycle of a floor, its calls synchronous or (with {@code background}) not. */
    private static class Cycles extends Recipes.Floor {
        private final String name;
        private final boolean background;

        Cycles(String name, boolean background) {
            this.name = name;
            this.background = background;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            return permits(client, path, 1, background);
        }

        /** Both halves are the reader's cycle: create with the listing, delete; the writer does not wait either. */
        @Override
        public Lock[] readWrite(CuratorFramework client, String path) {
            Lock cycle = permits(client, path, Integer.MAX_VALUE, background);
            return new Lock[] {cycle, cycle};
        }
    }

    /**
     * A lock of at most {@code permits} holders on directory {@code path}
     * ({@link Integer#MAX_VALUE}: never waits, sets no watch), its listings, reads and delete
     * made with the handle's synchronous calls.
     */
    static Lock permits(CuratorFramework client, String path, int permits) {
        return permits(client, path, permits, false);
    }

    /**
     * {@link #permits(CuratorFramework, String, int)}, with {@code background}: every call made
     * in the background and waited for on a future.
     */
    static Lock permits(CuratorFramework client, String path, int permits, boolean background) {
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
            List<String> children = list(zk, path, watchDirectory ? wake(directoryChanged) : null, background);
            String node = created.get();
            String name = node.substring(path.length() + 1);
            while (true) {
                String[] ahead = children.stream().filter(c -> c.compareTo(name) < 0).sorted().toArray(String[]::new);
                if (ahead.length < permits) {
                    return () -> delete(zk, node, background);
                }
                if (watchDirectory) {
                    directoryChanged.await();
                    var next = new CountDownLatch(1);
                    children = list(zk, path, wake(next), background);
                    directoryChanged = next;
                } else {
                    var predecessorGone = new CountDownLatch(1);
                    if (exists(zk, path + "/" + ahead[ahead.length - 1], wake(predecessorGone), background)) {
                        predecessorGone.await();
                    }
                    children = list(zk, path, null, background);
                }
            }
        };
    }

    private static List<String> list(ZooKeeper zk, String path, Watcher watcher, boolean background) throws Exception {
        if (!background) {
            return zk.getChildren(path, watcher);
        }
        var listed = new CompletableFuture<List<String>>();
        zk.getChildren(path, watcher, (rc, p, ctx, children) -> {
            if (rc == 0) {
                listed.complete(children);
            } else {
                listed.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), p));
            }
        }, null);
        return listed.get();
    }

    /** Whether {@code path} exists, {@code watcher} set on it either way. */
    private static boolean exists(ZooKeeper zk, String path, Watcher watcher, boolean background) throws Exception {
        if (!background) {
            return zk.exists(path, watcher) != null;
        }
        var read = new CompletableFuture<Boolean>();
        zk.exists(path, watcher, (rc, p, ctx, stat) -> {
            if (rc == 0 || rc == KeeperException.Code.NONODE.intValue()) {
                read.complete(stat != null);
            } else {
                read.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), p));
            }
        }, null);
        return read.get();
    }

    private static void delete(ZooKeeper zk, String node, boolean background) throws Exception {
        if (!background) {
            zk.delete(node, -1);
            return;
        }
        var deleted = new CompletableFuture<Void>();
        zk.delete(node, -1, (rc, p, ctx) -> {
            if (rc == 0) {
                deleted.complete(null);
            } else {
                deleted.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), p));
            }
        }, null);
        deleted.get();
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
