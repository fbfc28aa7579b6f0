package io.zklock.mutex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import javax.management.ObjectName;

import io.zklock.core.Lease;
import io.zklock.core.LeaseCaching;
import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * What a client keeps on its heap for the locks it holds, and that it keeps nothing once they
 * are released and dropped: read from the JVM's class histogram of live objects (HotSpot's
 * diagnostic command, the figures {@code jcmd GC.class_histogram} prints), so the figures are
 * exact byte counts, not samples of a noisy heap. The server runs in this JVM, so only the
 * client's own classes, and the JDK classes the server keeps none of per node, are counted.
 */
class HeldLeaseHeapTest {
    private static final int LOCKS = 300;
    /** A session's view of one directory (sequence-gap inference), kept in a bounded LRU: named by its simple name only. */
    private static final String VIEW = ".DirectoryView";
    /** Distinct locks used and dropped, per kind (cached or not). */
    private static final int DROPPED = 100;
    /**
     * Bytes of the counted classes per held lease: 136 since the lease's session part, the view's
     * listeners and the thread's id box are made only when needed (176 before, about 400 earlier).
     * The node's path (packed into the lease since) and map entries are not counted here: the
     * server in this JVM keeps strings and map entries per node too; scenario 10 of the
     * benchmarks measures them with the server in another JVM.
     */
    private static final long MAX_BYTES_PER_HELD_LEASE = 140;

    private static final Predicate<String> COUNTED = name -> name.startsWith("io.zklock.")
            || name.equals("java.util.concurrent.CompletableFuture") || name.equals("java.util.ArrayDeque")
            || name.startsWith("java.util.concurrent.atomic.") || name.equals("java.util.concurrent.CopyOnWriteArrayList");

    /**
     * Each mutex held (acquired once, not re-entered) costs the client at most
     * {@value #MAX_BYTES_PER_HELD_LEASE} bytes of lease, hold and view objects: the held heap
     * less the heap once every lock is released, the lock objects kept in both.
     */
    @Test
    void aHeldLeaseKeepsFewBytes() throws Exception {
        assumeTrue(histogram() != null, "no class histogram on this JVM");
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            ZkMutex[] locks = new ZkMutex[LOCKS];
            Lease[] leases = new Lease[LOCKS];
            for (int i = 0; i < LOCKS; i++) {
                locks[i] = new ZkMutex(client, "/heap/held/l" + i);
                locks[i].acquire().close();    // every directory made, every lazy structure settled
            }
            for (int i = 0; i < LOCKS; i++) {
                leases[i] = locks[i].acquire();
            }
            Map<String, long[]> held = histogram();
            for (int i = 0; i < LOCKS; i++) {
                leases[i].close();
                leases[i] = null;              // the released heap keeps the lock objects only
            }
            Map<String, long[]> released = histogram();
            long bytes = counted(held)[1] - counted(released)[1];
            assertTrue(bytes / LOCKS <= MAX_BYTES_PER_HELD_LEASE, "bytes per held lease: " + bytes / LOCKS + "; by class: "
                    + byClass(held, released));
            Reference.reachabilityFence(locks);
        }
    }

    /**
     * A client that held and released many distinct locks, with and without caching, and dropped
     * them, keeps none of their leases, holds, caches, engines or lock contexts: whatever
     * registry the client keeps per session, per path or per lock lets go of what nobody needs
     * any more, with no further use of the client (the recipes' registry of lock components
     * drops a collected lock's entry once the collector cleared it). One structure is read
     * apart: each session keeps a view of the directories it used most recently (sequence-gap
     * inference), at most 1,024 of them, whatever their locks.
     */
    @Test
    void releasedAndDroppedLocksLeaveNothingBehind() throws Exception {
        assumeTrue(histogram() != null, "no class histogram on this JVM");
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = ZkTesting.client(server.getConnectString(), 60_000)) {
            LeaseCaching caching = LeaseCaching.keepIdleFor(Duration.ofMillis(50));
            useAndDrop(client, "/heap/warm", 1, caching);       // what is made once per JVM or client
            Thread.sleep(500);                 // the cached node idles out, its root's watch lingers and goes
            Map<String, long[]> before = histogram();
            useAndDrop(client, "/heap/dropped", DROPPED, caching);
            Map<String, long[]> after = histogram();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);   // however slow the machine
            while (System.nanoTime() - deadline < 0 && !ours(before, after).isEmpty()) {
                Thread.sleep(50);              // cached nodes idle out, their releases are answered, cleaners run
                after = histogram();
            }
            long views = instances(after, VIEW) - instances(before, VIEW);
            assertTrue(views <= 2 * DROPPED, "directory views: " + views);
            assertEquals(Map.of(), ours(before, after), "instances of our classes left behind, by class");
        }
    }

    private static void useAndDrop(CuratorFramework client, String root, int count, LeaseCaching caching)
            throws InterruptedException {
        for (int i = 0; i < count; i++) {
            try (Lease lease = new ZkMutex(client, root + "/plain" + i).acquire()) {
                assertTrue(lease.isValid());
            }
            try (Lease lease = new ZkMutex(client, root + "/cached" + i, caching).acquire()) {
                assertTrue(lease.isValid());
            }
        }
    }

    /**
     * Classes of ours, but the directory views, with more live instances after than before, and
     * how many more. A lambda that captures nothing is one instance for the JVM's life, made
     * when its code first runs (a watch removal the warm-up happened not to need): its class
     * appearing with one instance is not something left behind.
     */
    private static Map<String, Long> ours(Map<String, long[]> before, Map<String, long[]> after) {
        Map<String, Long> more = new HashMap<>();
        after.forEach((name, n) -> {
            long added = n[0] - before.getOrDefault(name, new long[2])[0];
            boolean linkedLate = name.contains("$$Lambda") && !before.containsKey(name) && n[0] == 1;
            if (name.startsWith("io.zklock.") && !name.endsWith(VIEW) && added > 0 && !linkedLate) {
                more.put(name, added);
            }
        });
        return more;
    }

    /** Live instances of the class whose name ends with {@code suffix}. */
    private static long instances(Map<String, long[]> histogram, String suffix) {
        return histogram.entrySet().stream().filter(e -> e.getKey().endsWith(suffix)).mapToLong(e -> e.getValue()[0]).sum();
    }

    private static long[] counted(Map<String, long[]> histogram) {
        long[] sum = new long[2];
        histogram.forEach((name, n) -> {
            if (COUNTED.test(name)) {
                sum[0] += n[0];
                sum[1] += n[1];
            }
        });
        return sum;
    }

    private static String byClass(Map<String, long[]> held, Map<String, long[]> released) {
        var sb = new StringBuilder();
        held.forEach((name, n) -> {
            long per = (n[1] - released.getOrDefault(name, new long[2])[1]) / LOCKS;
            if (COUNTED.test(name) && per != 0) {
                sb.append(name).append('=').append(per).append(' ');
            }
        });
        return sb.toString();
    }

    /** The live objects' histogram, class name to {instances, bytes}; null if this JVM has none. */
    private static Map<String, long[]> histogram() throws Exception {
        String text;
        try {
            text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
        } catch (javax.management.JMException e) {
            return null;
        }
        Map<String, long[]> histogram = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length >= 4 && parts[0].endsWith(":")) {
                histogram.put(parts[3], new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])});
            }
        }
        return histogram;
    }
}
