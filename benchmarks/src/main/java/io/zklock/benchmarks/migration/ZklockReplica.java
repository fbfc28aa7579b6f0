package io.zklock.benchmarks.migration;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;
import io.zklock.core.LockCompatibility;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

/**
 * A replica on zklock, in the given mode (curator or default): the same three locks on the same
 * paths as CuratorReplica, the same turns, the same count of who is inside.
 * Arguments: the connect string, the mode, the seconds.
 */
public class ZklockReplica {
    public static void main(String[] args) throws Exception {
        var mode = LockCompatibility.valueOf(args[1].toUpperCase(Locale.ROOT));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[2]));
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(args[0], new ExponentialBackoffRetry(100, 3))) {
            client.start();
            List<Thread> threads = List.of("mutex", "readwrite", "semaphore", "semaphore").stream()
                    .map(recipe -> new Thread(() -> loop(client, recipe, mode, until))).toList();
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
        }
    }

    static void loop(CuratorFramework client, String recipe, LockCompatibility mode, long until) {
        String path = "/demo/" + recipe;
        var mutex = new ZkMutex(client, path, mode);
        var readWrite = new ZkReadWriteLock(client, path, mode);
        var semaphore = new ZkSemaphore(client, path, 2, mode);
        String who = "zklock " + mode + " " + recipe;
        int grants = 0;
        int overlaps = 0;
        try {
            for (int turn = 0; System.nanoTime() < until; turn++) {
                boolean write = !recipe.equals("readwrite") || turn % 3 == 0;
                DistributedLock lock = switch (recipe) {
                    case "mutex" -> mutex;
                    case "semaphore" -> semaphore;
                    default -> write ? readWrite.writeLock() : readWrite.readLock();
                };
                try (Lease lease = lock.acquire()) {
                    grants++;
                    overlaps += inside(client, recipe, write) ? 0 : 1;
                }
            }
            System.out.println(who + ": " + grants + " grants, " + overlaps + " overlaps");
        } catch (Exception e) {
            System.out.println(who + ": stopped after " + grants + " grants: " + e);
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
