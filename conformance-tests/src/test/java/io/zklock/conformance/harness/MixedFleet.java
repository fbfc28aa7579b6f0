package io.zklock.conformance.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockCompatibility;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;

/**
 * Participants of a mixed fleet on one lock path: Curator's recipes and zklock's, in either
 * compatibility mode, each on a session of its own, looping acquire / a little work / release
 * while a {@link CountingResource} counts who is inside. What the mixed-fleet properties and the
 * rolling-update property stand on.
 */
public final class MixedFleet {
    private MixedFleet() {
    }

    /** Whose recipe a participant runs. */
    public enum Library {
        /** Curator's {@code InterProcessMutex}, {@code InterProcessReadWriteLock}, {@code InterProcessSemaphoreV2}. */
        CURATOR,
        /** zklock in {@link LockCompatibility#CURATOR}. */
        ZKLOCK_COMPAT,
        /** zklock in {@link LockCompatibility#DEFAULT}. */
        ZKLOCK_DEFAULT
    }

    /** The recipe the fleet shares. */
    public enum Shape {
        MUTEX(1), READ_WRITE(1), SEMAPHORE(2);

        /** Holders admitted at once (writers for the read-write lock). */
        public final int maxLeases;

        Shape(int maxLeases) {
            this.maxLeases = maxLeases;
        }
    }

    /** A granted hold of either library. */
    public interface Held {
        /** Whether the holder still knows it holds (a zklock lease HELD; a Curator hold always). */
        boolean valid();

        void release() throws Exception;
    }

    /** One participant's lock: one timed attempt, a write or a read (ignored but by the read-write lock). */
    public interface Handle {
        /** @return the hold, or null on timeout */
        Held acquire(boolean write, Duration timeout) throws Exception;
    }

    /** The handle of {@code library}'s recipe of {@code shape} on {@code path}. */
    public static Handle handle(Library library, Shape shape, CuratorFramework client, String path) {
        if (library == Library.CURATOR) {
            return curator(shape, client, path);
        }
        LockCompatibility mode = library == Library.ZKLOCK_COMPAT ? LockCompatibility.CURATOR : LockCompatibility.DEFAULT;
        return switch (shape) {
            case MUTEX -> {
                ZkMutex mutex = new ZkMutex(client, path, mode);
                yield (write, timeout) -> zklock(mutex.tryAcquire(timeout));
            }
            case READ_WRITE -> {
                ZkReadWriteLock lock = new ZkReadWriteLock(client, path, mode);
                yield (write, timeout) -> zklock(write ? lock.writeLock().tryAcquire(timeout) : lock.readLock().tryAcquire(timeout));
            }
            case SEMAPHORE -> {
                ZkSemaphore semaphore = new ZkSemaphore(client, path, shape.maxLeases, mode);
                yield (write, timeout) -> zklock(semaphore.tryAcquire(timeout));
            }
        };
    }

    private static Held zklock(Optional<Lease> lease) {
        return lease.<Held>map(l -> new Held() {
            @Override
            public boolean valid() {
                return l.state() == LeaseState.HELD;
            }

            @Override
            public void release() {
                l.close();
            }
        }).orElse(null);
    }

    private static Handle curator(Shape shape, CuratorFramework client, String path) {
        return switch (shape) {
            case MUTEX -> {
                InterProcessMutex mutex = new InterProcessMutex(client, path);
                yield (write, timeout) -> curatorMutex(mutex, timeout);
            }
            case READ_WRITE -> {
                InterProcessReadWriteLock lock = new InterProcessReadWriteLock(client, path);
                yield (write, timeout) -> curatorMutex(write ? lock.writeLock() : lock.readLock(), timeout);
            }
            case SEMAPHORE -> {
                InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, path, shape.maxLeases);
                yield (write, timeout) -> {
                    org.apache.curator.framework.recipes.locks.Lease lease = semaphore.acquire(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    return lease == null ? null : new Held() {
                        @Override
                        public boolean valid() {
                            return true;
                        }

                        @Override
                        public void release() throws Exception {
                            lease.close();
                        }
                    };
                };
            }
        };
    }

    private static Held curatorMutex(InterProcessMutex mutex, Duration timeout) throws Exception {
        if (!mutex.acquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return null;
        }
        return new Held() {
            @Override
            public boolean valid() {
                return true;
            }

            @Override
            public void release() throws Exception {
                mutex.release();
            }
        };
    }

    /**
     * Counts who is inside the protected section and judges each entry: never more holders than
     * {@code maxLeases}, never a writer beside anyone, never a reader beside a writer. Only
     * holders that still know they hold are counted against a newcomer (a zklock lease that
     * turned SUSPENDED or LOST has been told it may no longer hold).
     */
    public static final class CountingResource {
        private final Shape shape;
        private final List<Inside> inside = new ArrayList<>();
        private final AtomicInteger violations = new AtomicInteger();
        private final List<String> firstViolations = new ArrayList<>();
        private int mostInside;

        private record Inside(String who, boolean write, Held held) { }

        public CountingResource(Shape shape) {
            this.shape = shape;
        }

        public synchronized void enter(String who, boolean write, Held held) {
            boolean writeMode = shape == Shape.READ_WRITE && write;
            List<Inside> valid = inside.stream().filter(i -> i.held.valid()).toList();
            boolean bad = switch (shape) {
                case MUTEX -> !valid.isEmpty();
                case SEMAPHORE -> valid.size() >= shape.maxLeases;
                case READ_WRITE -> writeMode ? !valid.isEmpty() : valid.stream().anyMatch(Inside::write);
            };
            if (bad) {
                violations.incrementAndGet();
                if (firstViolations.size() < 5) {
                    firstViolations.add(who + (writeMode ? " (write)" : "") + " entered beside "
                            + valid.stream().map(i -> i.who + (i.write ? " (write)" : "")).toList());
                }
            }
            inside.add(new Inside(who, writeMode, held));
            mostInside = Math.max(mostInside, inside.size());
        }

        public synchronized void leave(Held held) {
            inside.removeIf(i -> i.held == held);
        }

        public int violations() {
            return violations.get();
        }

        public synchronized List<String> firstViolations() {
            return List.copyOf(firstViolations);
        }

        public synchronized int mostInside() {
            return mostInside;
        }
    }

    /**
     * How long one attempt of a participant waits before it counts as a timeout: far beyond any
     * grant on a loaded machine, so a timeout is a waiter stranded or deadlocked, not a slow one.
     */
    public static final Duration ATTEMPT = Duration.ofSeconds(10);

    /**
     * One participant: a thread looping on its handle until stopped; counts grants, timeouts and
     * errors. A read-write participant that writes asks for the write lock on every third attempt
     * (not at random), so a participant granted six times or more without a write had its
     * writes starved.
     */
    public static final class Participant {
        public final String name;
        public final Library library;
        private final Handle handle;
        private final CountingResource resource;
        private final AtomicBoolean stop = new AtomicBoolean();
        public final AtomicInteger grants = new AtomicInteger();
        public final AtomicInteger writes = new AtomicInteger();
        public final AtomicInteger timeouts = new AtomicInteger();
        public final List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final Thread thread;

        public Participant(String name, Library library, Handle handle, CountingResource resource, boolean writesSometimes) {
            this.name = name;
            this.library = library;
            this.handle = handle;
            this.resource = resource;
            this.thread = new Thread(() -> loop(writesSometimes), "participant-" + name);
            thread.setDaemon(true);
        }

        public Participant start() {
            thread.start();
            return this;
        }

        private void loop(boolean writesSometimes) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int attempts = 0;
            while (!stop.get()) {
                boolean write = writesSometimes && ++attempts % 3 == 0;
                try {
                    Held held = handle.acquire(write, ATTEMPT);
                    if (held == null) {
                        timeouts.incrementAndGet();
                        continue;
                    }
                    resource.enter(name, write, held);
                    try {
                        Thread.sleep(1 + random.nextInt(3));
                    } finally {
                        resource.leave(held);
                        held.release();
                    }
                    grants.incrementAndGet();
                    if (write) {
                        writes.incrementAndGet();
                    }
                    Thread.sleep(random.nextInt(3));
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    errors.add(e);
                }
            }
        }

        /** Stops the loop after its current round and waits for it. */
        public void stop() throws InterruptedException {
            stop.set(true);
            thread.join(30_000);
            if (thread.isAlive()) {
                throw new AssertionError("participant " + name + " did not stop");
            }
        }

        @Override
        public String toString() {
            return name + "[" + library + ": " + grants + " grants (" + writes + " writes), " + timeouts + " timeouts, "
                    + errors.size() + " errors]";
        }
    }
}
