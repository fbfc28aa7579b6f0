package io.zklock.leader;

import java.util.List;

import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockKind;
import io.zklock.core.spi.queue.LockNode;

/** An election's nodes, for inspection: kind {@value ZkLeaderElection#KIND}, exclusive (the first leads); read from the election's {@code RECIPE}. */
public final class LeaderKind implements LockKind {

    @Override
    public String recipe() {
        return "leader";
    }

    @Override
    public boolean owns(String nodeKind) {
        return ZkLeaderElection.RECIPE.kind().equals(nodeKind);
    }

    @Override
    public String mode(String nodeKind) {
        return "candidate";
    }

    @Override
    public int maxLeases(List<LockNode> sorted) {
        return ZkLeaderElection.RECIPE.maxLeases();
    }

    @Override
    public LockDriver driver() {
        return ZkLeaderElection.RECIPE.driver();
    }
}
