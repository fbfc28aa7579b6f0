package io.zklock.readwrite;

import java.util.List;

import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockKind;
import io.zklock.core.spi.queue.LockNode;

/** The read-write lock's nodes, for inspection: kinds {@code read} and {@code write}. */
public final class ReadWriteKind implements LockKind {

    @Override
    public String recipe() {
        return "readwrite";
    }

    @Override
    public boolean owns(String nodeKind) {
        return ReadWriteDriver.READ.equals(nodeKind) || ReadWriteDriver.WRITE.equals(nodeKind);
    }

    @Override
    public String mode(String nodeKind) {
        return nodeKind;
    }

    @Override
    public int maxLeases(List<LockNode> sorted) {
        return 1;
    }

    @Override
    public LockDriver driver() {
        return ReadWriteDriver.CURATOR;     // who holds, by the rules both libraries follow
    }
}
