package io.zklock.core.spi.queue;

import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * What a recipe module tells inspection about its nodes, so that the status of a lock path can
 * be read with no lock object: which node kinds are its, how to name them, how many holders it
 * admits, and its driver. Each recipe module provides one through {@link ServiceLoader}
 * ({@code META-INF/services/io.zklock.core.spi.queue.LockKind}).
 */
public interface LockKind {

    /** {@return the recipe's name: {@code mutex}, {@code semaphore}, {@code readwrite}} */
    String recipe();

    /**
     * @param nodeKind the kind written in a node's name ({@link LockNode#kind()})
     * @return whether nodes of that kind are this recipe's
     */
    boolean owns(String nodeKind);

    /**
     * @param nodeKind a kind this recipe {@linkplain #owns owns}
     * @return what a node of it asks for, as status shows it ({@code mutex}, {@code read},
     *         {@code write}, {@code permit})
     */
    String mode(String nodeKind);

    /**
     * @param sorted a directory's lock nodes in queue order, the first of them this recipe's
     * @return how many holders the directory admits
     */
    int maxLeases(List<LockNode> sorted);

    /** {@return the driver that decides this recipe's grants} */
    LockDriver driver();

    /** {@return the kinds of every recipe module on the class path} */
    static List<LockKind> installed() {
        return InstalledKinds.KINDS;
    }

    /**
     * @param nodeKind the kind written in a node's name
     * @return the installed recipe that owns it
     */
    static Optional<LockKind> of(String nodeKind) {
        return installed().stream().filter(k -> k.owns(nodeKind)).findFirst();
    }
}

/** The installed kinds, loaded once by the class loader of core. */
final class InstalledKinds {
    static final List<LockKind> KINDS = ServiceLoader.load(LockKind.class, LockKind.class.getClassLoader())
            .stream().map(ServiceLoader.Provider::get).toList();

    private InstalledKinds() {
    }
}
