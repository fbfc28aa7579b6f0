package io.zklock.conformance;

import io.zklock.core.DistributedLock;
import org.apache.curator.framework.CuratorFramework;

/** What the conformance suite needs to know of a recipe: how to make one, and what it promises. */
public interface Recipe {
    /** Short name, used in lock paths and reports. */
    String name();

    /** A new lock object on {@code path} for {@code client}. */
    DistributedLock create(CuratorFramework client, String path);

    /** How many holders may hold at once (1 for exclusive locks). */
    int capacity();

    /** Whether blocking acquisitions by a holding thread re-enter. */
    boolean reentrant();
}
