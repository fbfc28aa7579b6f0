package io.zklock.core.internal.lease;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.MultiLease;

/*
 * Overview.
 *
 * One grant of every component of a multi-lock, shared by the leases of a thread's re-entries
 * (one lease for an asynchronous grant). It keeps {components, the ones its transaction
 * created, count of open leases}; the count only rises from a positive value (CAS loop), so a
 * re-entry racing the last close takes fresh nodes instead of reviving released ones. The
 * close that brings the count to zero releases every component: the created nodes in one
 * transaction, re-entered components by closing them; so does a component's loss, at once,
 * for the nodes that remain. A component's news is passed to every open lease, which tells
 * what state the components make now (LeaseView's rule).
 *
 * The grant holds its leases weakly. A blocking grant is the thread's re-entry point and the
 * MultiLockHolds entry that refuses the thread's blocking acquisitions of its components; it
 * is live while its count is positive, it is not LOST and one of its open leases is still
 * reachable. A lease dropped unclosed therefore does not keep the entry: it goes at the next
 * lookup or registration (its nodes stay until the session ends, as any unclosed lease's do).
 */
/** One grant of every component of a multi-lock; see the comment above. */
public final class MultiGrant implements MultiLockHolds.Holder {
    private final List<Lease> components;
    private final List<Lease> created;
    private final Consumer<List<Lease>> releaseCreated;
    private final String description;
    private final AtomicInteger count = new AtomicInteger(1);
    private final AtomicBoolean released = new AtomicBoolean();
    private final List<WeakReference<MultiLeaseView>> leases = new CopyOnWriteArrayList<>();
    private volatile Runnable forget = () -> { };

    /**
     * @param components one lease per lock, in the order of the locks
     * @param created those the multi-lock's transaction created (the others were re-entered)
     * @param releaseCreated deletes the created nodes in one transaction
     * @param description names the multi-lock in a refusal
     */
    public MultiGrant(List<Lease> components, List<Lease> created, Consumer<List<Lease>> releaseCreated,
            String description) {
        this.components = List.copyOf(components);
        this.created = List.copyOf(created);
        this.releaseCreated = releaseCreated;
        this.description = description;
        for (Lease component : this.components) {
            component.addListener((l, s) -> changed());
        }
    }

    /** Sets what drops the thread's bookkeeping of this grant; run when it ends or is LOST. */
    public void onForget(Runnable action) {
        this.forget = action;
    }

    /** {@return the first lease of the grant} */
    public MultiLease firstLease() {
        return newLease();
    }

    /** {@return a new lease on the same nodes, unless the grant is no longer live (then empty)} */
    public Optional<MultiLease> reenter() {
        if (!isLive()) {
            forget();
            return Optional.empty();
        }
        int n;
        do {
            n = count.get();
            if (n <= 0) {
                return Optional.empty();       // its last lease is being closed: take fresh nodes
            }
        } while (!count.compareAndSet(n, n + 1));
        return Optional.of(newLease());
    }

    List<Lease> components() {
        return components;
    }

    private MultiLeaseView newLease() {
        MultiLeaseView lease = new MultiLeaseView(this);
        leases.removeIf(ref -> ref.get() == null);
        leases.add(new WeakReference<>(lease));
        return lease;
    }

    /** @return whether {@code lease} was the last open one, whose close must release the grant */
    boolean closeOne(MultiLeaseView lease) {
        if (count.decrementAndGet() == 0) {
            return true;
        }
        leases.removeIf(ref -> ref.get() == null || ref.get() == lease);
        return false;
    }

    /*
     * A grant turned LOST (a component's session ended, or another client deleted a component's
     * node) lets go of the nodes it still has at once: its holder's close() of a LOST lease is a
     * no-op, and a waiter for the whole multi-lock must not wait for them until then.
     */
    private void changed() {
        if (heldState() == LeaseState.LOST) {
            forget();
            if (count.get() > 0) {
                release();
            }
        }
        for (WeakReference<MultiLeaseView> ref : leases) {
            MultiLeaseView lease = ref.get();
            if (lease != null) {
                lease.recompute();
            }
        }
    }

    /** While a lease is open: LOST over SUSPENDED over HELD; a component released behind our back counts as lost. */
    LeaseState heldState() {
        boolean suspended = false;
        for (Lease component : components) {
            LeaseState s = component.state();
            if (ZkLease.isFinal(s)) {
                return LeaseState.LOST;
            }
            suspended |= s == LeaseState.SUSPENDED;
        }
        return suspended ? LeaseState.SUSPENDED : LeaseState.HELD;
    }

    /** Once the last lease is closed: LOST if a component is, RELEASED once every one is, else the worst of the rest. */
    LeaseState releasingState() {
        boolean released = true;
        boolean suspended = false;
        for (Lease component : components) {
            LeaseState s = component.state();
            if (s == LeaseState.LOST) {
                return LeaseState.LOST;
            }
            released &= s == LeaseState.RELEASED;
            suspended |= s == LeaseState.SUSPENDED;
        }
        return released ? LeaseState.RELEASED : suspended ? LeaseState.SUSPENDED : LeaseState.HELD;
    }

    /** Releases every component: the created nodes in one transaction, re-entered ones by closing them. */
    void release() {
        if (!released.compareAndSet(false, true)) {
            return;
        }
        forget();
        List<Lease> others = new ArrayList<>(components);
        others.removeIf(component -> created.stream().anyMatch(c -> c == component));
        others.forEach(Lease::close);
        if (!created.isEmpty()) {
            releaseCreated.accept(created);
        }
    }

    private void forget() {
        forget.run();
    }

    @Override
    public boolean isLive() {
        if (count.get() <= 0 || heldState() == LeaseState.LOST) {
            return false;
        }
        for (WeakReference<MultiLeaseView> ref : leases) {     // no stream: every acquisition asks
            MultiLeaseView lease = ref.get();
            if (lease != null && lease.isOpen()) {
                return true;
            }
        }
        return false;
    }

    /** {@return whether the grant is live and every component HELD} */
    public boolean isHeld() {
        return isLive() && heldState() == LeaseState.HELD;
    }

    @Override
    public String describe() {
        return description + " (its nodes " + String.join(", ", created.stream().map(Lease::nodePath).toList()) + ")";
    }
}
