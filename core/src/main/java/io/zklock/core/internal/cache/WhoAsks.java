package io.zklock.core.internal.cache;

import java.util.ArrayList;
import java.util.List;

import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockNode;

/**
 * Who asks whom (the rule of "ask" in the package's glossary), as pure functions of a listing:
 * which cached nodes ahead of a waiting node it asks back. The waiter's side ({@link AskBack})
 * asks what {@link #askedBy} names; the holder's side ({@link LeaseCache}, at a grant) asks
 * {@link #askedAtGrant} whether a waiter behind its node in the granting listing names it.
 *
 * <p>A waiter asks the cached nodes ahead of it that conflict with it
 * ({@link LockDriver#conflicts}), in queue order. Of a lock of one holder at a time it asks
 * them all. Of a lock of several holders ({@code maxLeases > 1}: the first {@code maxLeases}
 * nodes hold), a waiter at index {@code i} needs only {@code i - maxLeases + 1} nodes ahead to
 * go, so it asks the first that many; once it has waited the escalation bound it asks every
 * one ({@code escalated}). A node whose holder hears creations ({@link LockNode#hearsCreations})
 * it asks only once escalated, whatever {@code maxLeases}: its holder takes the waiter's create
 * as the ask, and the bound covers a holder that did not hear it.
 */
public final class WhoAsks {
    private WhoAsks() {
    }

    /**
     * The cached nodes ahead of {@code waiter} in {@code sorted} that it asks back, in queue order.
     *
     * @param sorted the children, in queue order; {@code waiter} among them
     * @param waiter the waiting node
     * @param maxLeases holders admitted at once
     * @param driver the waiter's driver (which kinds conflict)
     * @param escalated whether the waiter has waited the escalation bound (a lock of several
     *        holders then asks every conflicting cached node ahead)
     * @param ownTag the waiter's client's tag: a node that hears creations and carries it is its
     *        own client's, which does not act on its own creations, so it is asked at once
     * @return the nodes it asks; empty if it is not in {@code sorted}
     */
    public static List<LockNode> askedBy(List<LockNode> sorted, LockNode waiter, int maxLeases, LockDriver driver,
            boolean escalated, String ownTag) {
        int index = sorted.indexOf(waiter);
        int need = maxLeases > 1 && !escalated ? index - maxLeases + 1 : Integer.MAX_VALUE;
        List<LockNode> asked = new ArrayList<>();
        for (int i = 0; i < index && asked.size() < need; i++) {
            LockNode ahead = sorted.get(i);
            if (ahead.caches() && driver.conflicts(ahead, waiter)
                    && (escalated || !ahead.hearsCreations() || ahead.taggedBy(ownTag))) {
                asked.add(ahead);
            }
        }
        return asked;
    }

    /** {@link #askedBy(List, LockNode, int, LockDriver, boolean, String)} for a waiter of a client with no tag. */
    public static List<LockNode> askedBy(List<LockNode> sorted, LockNode waiter, int maxLeases, LockDriver driver,
            boolean escalated) {
        return askedBy(sorted, waiter, maxLeases, driver, escalated, null);
    }

    /**
     * Whether waiting longer would make {@code waiter} ask more nodes than it asks now: the
     * escalation has something to do.
     */
    public static boolean escalationAsksMore(List<LockNode> sorted, LockNode waiter, int maxLeases, LockDriver driver,
            String ownTag) {
        return askedBy(sorted, waiter, maxLeases, driver, true, ownTag).size()
                > askedBy(sorted, waiter, maxLeases, driver, false, ownTag).size();
    }

    /**
     * Whether a waiter behind {@code holder} in the listing that granted it (a node past the
     * first {@code maxLeases}) asks it back before any escalation, or, of a holder that hears
     * creations, would ask it once escalated (its create is the ask): it has asked, or will
     * ask, so the holder's cache grants nothing more on it.
     *
     * @param granting the children on which the driver granted {@code holder}, in queue order
     * @param holder the granted node
     * @param maxLeases holders admitted at once
     * @param driver the lock's driver
     * @return whether such a waiter stands behind it
     */
    public static boolean askedAtGrant(List<LockNode> granting, LockNode holder, int maxLeases, LockDriver driver) {
        int index = granting.indexOf(holder);
        if (index < 0 || !holder.caches()) {
            return false;
        }
        boolean heard = holder.hearsCreations();   // its holder takes a creation behind it as the ask
        for (int i = granting.size() - 1; i > index && i >= maxLeases; i--) {   // the farthest asks the most
            LockNode waiter = granting.get(i);
            if (driver.conflicts(holder, waiter) && askedBy(granting, waiter, maxLeases, driver, heard).contains(holder)) {
                return true;
            }
        }
        return false;
    }
}
