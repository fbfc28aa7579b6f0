package io.zklock.mutex;

import java.util.List;

import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockKind;
import io.zklock.core.spi.queue.LockNode;

/** The mutex's nodes, for inspection: kind {@value ZkMutex#KIND}, exclusive. */
public final class MutexKind implements LockKind {

    @Override
    public String recipe() {
        return "mutex";
    }

    @Override
    public boolean owns(String nodeKind) {
        return ZkMutex.KIND.equals(nodeKind);
    }

    @Override
    public String mode(String nodeKind) {
        return "mutex";
    }

    @Override
    public int maxLeases(List<LockNode> sorted) {
        return 1;
    }

    @Override
    public LockDriver driver() {
        return LockDriver.EXCLUSIVE;
    }
}
