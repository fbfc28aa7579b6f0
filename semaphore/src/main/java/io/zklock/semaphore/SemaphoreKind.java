package io.zklock.semaphore;

import java.util.List;

import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockKind;
import io.zklock.core.spi.queue.LockNode;

/** The semaphore's nodes, for inspection: kind {@code sem<maxLeases>}, each a permit. */
public final class SemaphoreKind implements LockKind {
    private static final SemaphoreDriver DRIVER = new SemaphoreDriver();

    @Override
    public String recipe() {
        return "semaphore";
    }

    @Override
    public boolean owns(String nodeKind) {
        return SemaphoreDriver.declaredMaxLeases(nodeKind).isPresent();
    }

    @Override
    public String mode(String nodeKind) {
        return "permit";
    }

    /** The earliest node's maxLeases is the semaphore's (see {@link SemaphoreDriver}). */
    @Override
    public int maxLeases(List<LockNode> sorted) {
        return SemaphoreDriver.declaredMaxLeases(sorted.get(0).kind()).orElse(1);
    }

    @Override
    public LockDriver driver() {
        return DRIVER;
    }
}
