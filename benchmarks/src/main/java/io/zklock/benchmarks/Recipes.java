package io.zklock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.zklock.core.DistributedLock;
import io.zklock.core.LeaseCaching;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.zookeeper.CreateMode;

/**
 * One library's recipes behind one shape, so that each scenario is written once and run
 * against both: a lock is something whose {@code acquire()} returns what releases it.
 */
interface Recipes {
    String name();

    Lock mutex(CuratorFramework client, String path);

    /** Both halves of one read-write lock object. */
    Lock[] readWrite(CuratorFramework client, String path);

    Lock semaphore(CuratorFramework client, String path, int maxLeases);

    Lock multi(CuratorFramework client, List<String> paths);

    /** The same library with cached leases on where it has them (zklock); itself otherwise. */
    default Recipes cached() {
        return this;
    }

    /** A blocking acquire that returns the release. */
    @FunctionalInterface
    interface Lock {
        Held acquire() throws Exception;
    }

    @FunctionalInterface
    interface Held {
        void release() throws Exception;
    }

    Recipes ZKLOCK = zklock(LeaseCaching.off());

    /** zklock's recipes, with {@code caching} for the mutex, the read lock and the semaphore. */
    static Recipes zklock(LeaseCaching caching) {
        return new Recipes() {
            @Override
            public String name() {
                return "zklock";
            }

            @Override
            public Recipes cached() {
                return caching.isOn() ? this : zklock(LeaseCaching.keepIdleFor(java.time.Duration.ofSeconds(30)));
            }

            @Override
            public Lock mutex(CuratorFramework client, String path) {
                return of(new ZkMutex(client, path, caching));
            }

            @Override
            public Lock[] readWrite(CuratorFramework client, String path) {
                var rw = new ZkReadWriteLock(client, path, caching);
                return new Lock[] {of(rw.readLock()), of(rw.writeLock())};
            }

            @Override
            public Lock semaphore(CuratorFramework client, String path, int maxLeases) {
                return of(new ZkSemaphore(client, path, maxLeases, caching));
            }

            @Override
            public Lock multi(CuratorFramework client, List<String> paths) {
                List<DistributedLock> locks = new ArrayList<>();
                paths.forEach(p -> locks.add(new ZkMutex(client, p)));
                return of(new ZkMultiLock(locks));
            }

            private Lock of(DistributedLock lock) {
                return () -> lock.acquire()::close;
            }
        };
    }

    Recipes CURATOR = new Recipes() {
        @Override
        public String name() {
            return "Curator";
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            return of(new InterProcessMutex(client, path));
        }

        @Override
        public Lock[] readWrite(CuratorFramework client, String path) {
            var rw = new InterProcessReadWriteLock(client, path);
            return new Lock[] {of(rw.readLock()), of(rw.writeLock())};
        }

        @Override
        public Lock semaphore(CuratorFramework client, String path, int maxLeases) {
            var semaphore = new InterProcessSemaphoreV2(client, path, maxLeases);
            return () -> {
                Lease lease = semaphore.acquire();
                return () -> semaphore.returnLease(lease);
            };
        }

        @Override
        public Lock multi(CuratorFramework client, List<String> paths) {
            List<InterProcessLock> locks = new ArrayList<>();
            paths.forEach(p -> locks.add(new InterProcessMutex(client, p)));
            return of(new InterProcessMultiLock(locks));
        }

        private Lock of(InterProcessLock lock) {
            return () -> {
                lock.acquire();
                return lock::release;
            };
        }
    };

    /**
     * The physical floor of a lock cycle with the plain client: create an ephemeral
     * sequential node, list the directory, delete the node. Only {@link #mutex} is meaningful.
     */
    Recipes RAW = new Floor() {
        @Override
        public String name() {
            return "raw";
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            return () -> {
                String node = client.create().creatingParentContainersIfNeeded()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(path + "/n-");
                client.getChildren().forPath(path);
                return () -> client.delete().forPath(node);
            };
        }
    };

    /**
     * The same floor through Curator's background calls, the path zklock's asynchronous engine
     * takes: each reply reaches the waiting caller through ZooKeeper's event thread instead of
     * waking it directly. Comparing scenarios 1 and 1b measures that hand-off alone.
     */
    Recipes RAW_ASYNC = new Floor() {
        @Override
        public String name() {
            return "raw-async";
        }

        @Override
        public Lock mutex(CuratorFramework client, String path) {
            return () -> {
                CompletableFuture<String> created = new CompletableFuture<>();
                client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .inBackground((c, e) -> created.complete(e.getName())).forPath(path + "/n-");
                String node = created.get();
                CompletableFuture<Void> listed = new CompletableFuture<>();
                client.getChildren().inBackground((c, e) -> listed.complete(null)).forPath(path);
                listed.get();
                return () -> {
                    CompletableFuture<Void> deleted = new CompletableFuture<>();
                    client.delete().inBackground((c, e) -> deleted.complete(null)).forPath(node);
                    deleted.get();
                };
            };
        }
    };

    /** A physical floor: only the mutex cycle means anything. */
    abstract class Floor implements Recipes {
        @Override
        public Lock[] readWrite(CuratorFramework client, String path) {
            throw new UnsupportedOperationException("raw floor: mutex cycle only");
        }

        @Override
        public Lock semaphore(CuratorFramework client, String path, int maxLeases) {
            throw new UnsupportedOperationException("raw floor: mutex cycle only");
        }

        @Override
        public Lock multi(CuratorFramework client, List<String> paths) {
            throw new UnsupportedOperationException("raw floor: mutex cycle only");
        }
    }
}
