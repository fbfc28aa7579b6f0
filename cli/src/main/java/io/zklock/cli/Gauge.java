package io.zklock.cli;

/**
 * Counts, as the sessions report them, how many hold a lock and how many wait for it, and keeps
 * the peaks. A holder reports its release before it closes the lease, so the counts never show
 * an overlap that ZooKeeper did not grant.
 *
 * <p>With a {@code capacity} it also measures the longest stretch during which some session
 * waited while fewer than {@code capacity} held: a permit idle while a client waits. Hand-offs
 * make such stretches of a few milliseconds; a waiter that was not woken makes a long one.
 */
final class Gauge {
    private final int capacity;
    private int holding;
    private int waiting;
    private int peakHolding;
    private long grants;
    private long idleSince = -1;
    private long longestIdle;

    Gauge(int capacity) {
        this.capacity = capacity;
    }

    /** A session asks. */
    synchronized void asking() {
        waiting++;
        idleCheck();
    }

    /** A session's request ended without a grant. */
    synchronized void gaveUp() {
        waiting--;
        idleCheck();
    }

    /** A session was granted; returns how many hold now, itself included. */
    synchronized int granted() {
        waiting--;
        holding++;
        grants++;
        peakHolding = Math.max(peakHolding, holding);
        idleCheck();
        return holding;
    }

    /** A session is about to release. */
    synchronized void releasing() {
        holding--;
        idleCheck();
    }

    synchronized int holding() {
        return holding;
    }

    synchronized int waiting() {
        return waiting;
    }

    synchronized int peakHolding() {
        return peakHolding;
    }

    synchronized long grants() {
        return grants;
    }

    /** The longest time, in nanoseconds, that a session waited while a place was free. */
    synchronized long longestIdleWhileWaiting() {
        idleCheck();
        return longestIdle;
    }

    private void idleCheck() {
        long now = System.nanoTime();
        boolean idle = waiting > 0 && holding < capacity;
        if (idleSince >= 0) {
            longestIdle = Math.max(longestIdle, now - idleSince);
        }
        if (idle && idleSince < 0) {
            idleSince = now;
        } else if (!idle) {
            idleSince = -1;
        }
    }
}
