package io.zklock.leader;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.zklock.core.Lease;
import io.zklock.core.LeaseListener;
import io.zklock.core.LeaseState;
import org.apache.curator.framework.api.transaction.CuratorOp;

/** A leadership over the engine's lease of a candidate node: every lease call is the lease's; listeners hear this object. */
final class ElectedLeadership implements Leadership {
    private final Lease lease;
    private final ZkLeaderElection election;

    ElectedLeadership(Lease lease, ZkLeaderElection election) {
        this.lease = lease;
        this.election = election;
    }

    @Override
    public long epoch() {
        return lease.fencingToken();
    }

    @Override
    public String participantId() {
        return election.participantId();
    }

    @Override
    public CompletableFuture<Leadership> requeue() {
        election.checkOpen();
        close();                               // its delete goes out before the create below, on the same connection
        return election.leadershipAsync();
    }

    @Override
    public String nodePath() {
        return lease.nodePath();
    }

    @Override
    public long fencingToken() {
        return lease.fencingToken();
    }

    @Override
    public LeaseState state() {
        return lease.state();
    }

    @Override
    public boolean isValid() {
        return lease.isValid();
    }

    @Override
    public void addListener(LeaseListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        lease.addListener((l, state) -> listener.stateChanged(this, state));
    }

    @Override
    public void onRevocationRequested(Consumer<? super Lease> handler) {
        if (handler == null) {
            throw new IllegalArgumentException("handler is null");
        }
        lease.onRevocationRequested(l -> handler.accept(this));
    }

    @Override
    public Duration validFor() {
        return lease.validFor();                        // the default would say ZERO: never sure
    }

    @Override
    public CuratorOp guard() {
        return lease.guard();
    }

    @Override
    public void close() {
        election.forget(this);
        lease.close();
    }

    @Override
    public String toString() {
        return "Leadership[" + participantId() + ", epoch " + epoch() + ", " + state() + ", " + nodePath() + "]";
    }
}
