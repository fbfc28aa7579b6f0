package io.zklock.benchmarks.migration;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

/**
 * A replica still on Curator: for the given seconds, a mutex on /demo/mutex, a read-write lock
 * on /demo/readwrite (every third turn a writer) and a semaphore of 2 on /demo/semaphore (two
 * threads), each looping on a thread of its own. Inside, it marks itself with an ephemeral node under
 * /demo/inside/[recipe] and counts the marks: more than the lock admits is an overlap.
 * Arguments: the connect string, the seconds.
 */
public class CuratorReplica {
    public static void main(String[] args) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[1]));
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(args[0], new ExponentialBackoffRetry(100, 3))) {
            client.start();
            List<Thread> threads = List.of("mutex", "readwrite", "semaphore", "semaphore").stream()
                    .map(recipe -> new Thread(() -> loop(client, recipe, until))).toList();
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
        }
    }

    static void loop(CuratorFramework client, String recipe, long until) {
        String path = "/demo/" + recipe;
        var mutex = new InterProcessMutex(client, path);
        var readWrite = new InterProcessReadWriteLock(client, path);
        var semaphore = new InterProcessSemaphoreV2(client, path, 2);
        int grants = 0;
        int overlaps = 0;
        try {
            for (int turn = 0; System.nanoTime() < until; turn++) {
                boolean write = !recipe.equals("readwrite") || turn % 3 == 0;
                var lock = recipe.equals("mutex") ? mutex : write ? readWrite.writeLock() : readWrite.readLock();
                Lease lease = null;
                if (recipe.equals("semaphore")) {
                    lease = semaphore.acquire();
                } else {
                    lock.acquire();
                }
                try {
                    grants++;
                    overlaps += inside(client, recipe, write) ? 0 : 1;
                } finally {
                    if (lease != null) {
                        semaphore.returnLease(lease);
                    } else {
                        lock.release();
                    }
                }
            }
            System.out.println("curator " + recipe + ": " + grants + " grants, " + overlaps + " overlaps");
        } catch (Exception e) {
            System.out.println("curator " + recipe + ": stopped after " + grants + " grants: " + e);
        }
    }

    /** Marks this holder inside; false if more are inside than the lock admits. */
    static boolean inside(CuratorFramework client, String recipe, boolean write) throws Exception {
        String dir = "/demo/inside/" + recipe;
        String mark = client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(dir + (write ? "/w-" : "/r-"));
        try {
            List<String> marks = client.getChildren().forPath(dir);
            long writers = marks.stream().filter(m -> m.startsWith("w-")).count();
            return writers <= (recipe.equals("semaphore") ? 2 : 1) && (writers == marks.size() || !write);
        } finally {
            client.delete().forPath(mark);
        }
    }
}
