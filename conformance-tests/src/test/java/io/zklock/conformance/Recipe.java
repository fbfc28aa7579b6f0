package io.zklock.conformance;

import java.util.function.BiFunction;
import java.util.function.IntSupplier;

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

    /** A recipe of a fixed capacity. */
    static Recipe of(String name, int capacity, boolean reentrant,
            BiFunction<CuratorFramework, String, DistributedLock> factory) {
        return of(name, () -> capacity, reentrant, factory);
    }

    /** A recipe whose capacity a test may change between tries. */
    static Recipe of(String name, IntSupplier capacity, boolean reentrant,
            BiFunction<CuratorFramework, String, DistributedLock> factory) {
        return new Recipe() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public DistributedLock create(CuratorFramework client, String path) {
                return factory.apply(client, path);
            }

            @Override
            public int capacity() {
                return capacity.getAsInt();
            }

            @Override
            public boolean reentrant() {
                return reentrant;
            }
        };
    }
}
