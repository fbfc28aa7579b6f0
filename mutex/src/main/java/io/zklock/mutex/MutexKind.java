package io.zklock.mutex;

import java.util.List;

import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockKind;
import io.zklock.core.spi.queue.LockNode;

/** The mutex's nodes, for inspection: kind {@value ZkMutex#KIND}, exclusive; read from the mutex's {@code RECIPE}. */
public final class MutexKind implements LockKind {

    @Override
    public String recipe() {
        return "mutex";
    }

    @Override
    public boolean owns(String nodeKind) {
        return ZkMutex.RECIPE.kind().equals(nodeKind);
    }

    @Override
    public String mode(String nodeKind) {
        return "mutex";
    }

    @Override
    public int maxLeases(List<LockNode> sorted) {
        return ZkMutex.RECIPE.maxLeases();
    }

    @Override
    public LockDriver driver() {
        return ZkMutex.RECIPE.driver();
    }
}
