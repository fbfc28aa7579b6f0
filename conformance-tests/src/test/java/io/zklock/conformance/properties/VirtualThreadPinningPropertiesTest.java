package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.zklock.conformance.harness.SharedServer;
import io.zklock.core.Lease;
import io.zklock.mutex.ZkMutex;
import io.zklock.testing.FencedResource;
import io.zklock.testing.ZkTesting;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * Waiting for a zklock never pins a virtual thread's carrier. Needs a JDK of 21 or later at
 * run time (the library targets 17): {@code .ci/run} runs it on one; on an older JDK it is
 * skipped, not passed. A control that is known to pin (parking in a class initializer) proves
 * the recording sees pinning at all.
 */
class VirtualThreadPinningPropertiesTest {
    private static final int THREADS = 300;
    private static final int SESSIONS = 3;

    /** Stand-in for code that pins: a virtual thread parking inside a class initializer. */
    static final class PinsWhileInitialising {
        static {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(30));
        }

        static void touch() {
        }
    }

    /** A few hundred virtual threads contend for one mutex; no JFR jdk.VirtualThreadPinned event comes from them. */
    @Test
    void hundredsOfVirtualThreadsContendWithoutPinningACarrier() throws Exception {
        boolean modern = Runtime.version().feature() >= 21;
        if (Boolean.getBoolean("zklock.requireVirtualThreads")) {
            assertTrue(modern, "zklock.requireVirtualThreads is set but this runtime is " + Runtime.version());
        }
        assumeTrue(modern, "virtual threads need JDK 21+; .ci/run runs this test on one");
        SharedServer zk = SharedServer.get();
        String path = "/conformance/vthreads-" + UUID.randomUUID();
        List<CuratorFramework> clients = new ArrayList<>();
        Path file = Files.createTempFile("zklock-pinning", ".jfr");
        FencedResource resource = new FencedResource(1, true);
        try (Recording recording = new Recording()) {
            List<ZkMutex> mutexes = new ArrayList<>();
            for (int i = 0; i < SESSIONS; i++) {
                CuratorFramework client = ZkTesting.client(zk.connectString(), 30_000);
                clients.add(client);
                mutexes.add(new ZkMutex(client, path));
            }
            // Warm-up on a platform thread, outside the recording: the first use of a class
            // loads and initialises it, and a virtual thread that waits for another one's class
            // loading is pinned by the JDK, whatever the code does. The property is about
            // waiting for the lock, so the classes on its path are loaded first.
            for (ZkMutex mutex : mutexes) {
                mutex.acquire().close();
                mutex.acquireAsync(Duration.ofSeconds(30)).get(30, TimeUnit.SECONDS).close();
            }
            Lease held = mutexes.get(0).acquire();                  // and one contended wait
            Thread waiter = new Thread(() -> {
                try {
                    mutexes.get(1).acquire().close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            waiter.start();
            Thread.sleep(50);
            held.close();
            waiter.join(TimeUnit.SECONDS.toMillis(30));
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            ExecutorService virtual = newVirtualThreadPerTaskExecutor();   // not AutoCloseable on 17
            try {
                List<Future<?>> done = new ArrayList<>();
                done.add(virtual.submit(PinsWhileInitialising::touch));
                for (int i = 0; i < THREADS; i++) {
                    ZkMutex mutex = mutexes.get(i % SESSIONS);
                    done.add(virtual.submit(() -> {
                        try (Lease lease = mutex.acquire()) {
                            if (!resource.enter(lease.fencingToken())) {
                                throw new AssertionError("stale token " + lease.fencingToken());
                            }
                            Thread.yield();
                            resource.exit(lease.fencingToken());
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(2, TimeUnit.MINUTES);
                }
            } finally {
                virtual.shutdownNow();
            }
            recording.stop();
            recording.dump(file);
        } finally {
            clients.forEach(CuratorFramework::close);
        }
        List<RecordedEvent> pinned = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned"))
                .toList();
        Files.deleteIfExists(file);
        List<RecordedEvent> control = pinned.stream().filter(VirtualThreadPinningPropertiesTest::fromControl).toList();
        List<RecordedEvent> ours = pinned.stream().filter(e -> !fromControl(e)).toList();
        assertTrue(!control.isEmpty(), "the recording saw no pinning even from the control: it proves nothing");
        assertEquals(List.of(), ours.stream().map(VirtualThreadPinningPropertiesTest::describe).toList(),
                "virtual threads pinned while waiting for the lock");
        assertEquals(THREADS, resource.admitted().size(), "every virtual thread held the lock once");
        assertEquals(List.of(), resource.overlaps());
    }

    private static boolean fromControl(RecordedEvent event) {
        return event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
                .anyMatch(f -> f.getMethod().getType().getName().contains("PinsWhileInitialising"));
    }

    private static String describe(RecordedEvent event) {
        if (event.getStackTrace() == null) {
            return "pinned (no stack)";
        }
        StringBuilder sb = new StringBuilder("pinned at");
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            sb.append("\n  ").append(frame.getMethod().getType().getName()).append('.').append(frame.getMethod().getName())
                    .append(':').append(frame.getLineNumber());
        }
        return sb.toString();
    }

    private static ExecutorService newVirtualThreadPerTaskExecutor() throws Exception {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }
}
