package io.zklock.core.spi;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.zklock.core.DistributedLock;
import io.zklock.core.Lease;

/**
 * The {@link Lock} view of a {@link DistributedLock}: each thread's leases are kept in a stack
 * keyed by its owner id, and {@code unlock()} closes the top one.
 */
public final class JucLockView implements Lock {
    private final DistributedLock lock;
    private final Map<Long, Deque<Lease>> leases = new ConcurrentHashMap<>();

    public JucLockView(DistributedLock lock) {
        if (lock == null) {
            throw new IllegalArgumentException("lock is null");
        }
        this.lock = lock;
    }

    /** Acquires, waiting as long as it takes; an interrupt is remembered and the flag restored. */
    @Override
    public void lock() {
        boolean interrupted = false;
        while (true) {
            try {
                push(lock.acquire());
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        push(lock.acquire());
    }

    /** One attempt: ZooKeeper is asked once, so this takes a round trip or two. */
    @Override
    public boolean tryLock() {
        try {
            return lock.tryAcquire(Duration.ZERO).map(this::push).isPresent();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("unit is null");
        }
        Duration timeout = Duration.ofNanos(Math.max(0, unit.toNanos(time)));
        return lock.tryAcquire(timeout).map(this::push).isPresent();
    }

    /**
     * Releases the calling thread's most recent acquisition through this view.
     *
     * @throws IllegalMonitorStateException if the thread holds none
     */
    @Override
    public void unlock() {
        Long owner = Owners.current();
        Deque<Lease> stack = leases.get(owner);
        Lease top = stack == null ? null : stack.pollFirst();
        if (top == null) {
            throw new IllegalMonitorStateException("the current thread does not hold " + lock.path());
        }
        if (stack.isEmpty()) {
            leases.remove(owner);
        }
        top.close();
    }

    /** Always throws: a distributed lock has no condition queue. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported by distributed locks");
    }

    private Lease push(Lease lease) {
        leases.computeIfAbsent(Owners.current(), k -> new ArrayDeque<>()).addFirst(lease);
        return lease;
    }


    @Override
    public String toString() {
        return "Lock view of " + lock.path();
    }
}
