package io.zklock.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.Map;

import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.RecipeDescriptor;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * A thread blocked in {@code acquire()} or a lease's {@code close()} is woken by the ZooKeeper
 * event thread that completes its request, with no hop through the engine's completion pool
 * (which serves only the futures handed to users): over 20 cycles no pool thread starts and none
 * that exists takes a task. Counts, not timings; the client cost per operation (bytes and
 * waits, against Curator) is measured in {@code benchmarks/} (JfrCost).
 */
class BlockingPathThreadsTest {
    private static final String POOL = "zklock-completion";

    @Test
    void blockingAcquireAndCloseWakeTheCallerWithNoPoolThread() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 20_000)) {
            LockEngine engine = new LockEngine(client, "/hops/a", new RecipeDescriptor("lock", LockDriver.EXCLUSIVE, 1));
            for (int i = 0; i < 3; i++) {
                engine.acquire().close();      // the directory exists, the code paths are loaded
            }
            Map<Long, Long> before = idlePool();
            for (int i = 0; i < 20; i++) {
                engine.acquire().close();
            }
            Map<Long, Long> after = poolWaits();
            before.keySet().retainAll(after.keySet());      // a pool thread idle for 30 s ends: not a task
            for (Map.Entry<Long, Long> thread : after.entrySet()) {
                assertEquals(before.get(thread.getKey()), thread.getValue(),
                        "completion pool thread " + thread.getKey() + " started or took a task during blocking cycles");
            }
        }
    }

    /** The pool's threads and their wait counts, once two looks 100 ms apart agree (tasks of earlier tests done). */
    private static Map<Long, Long> idlePool() throws InterruptedException {
        Map<Long, Long> last = poolWaits();
        for (int i = 0; i < 50; i++) {
            Thread.sleep(100);
            Map<Long, Long> now = poolWaits();
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private static Map<Long, Long> poolWaits() {
        var waits = new HashMap<Long, Long>();
        var threads = ManagementFactory.getThreadMXBean();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(POOL)) {
                waits.put(info.getThreadId(), info.getWaitedCount());
            }
        }
        return waits;
    }
}
