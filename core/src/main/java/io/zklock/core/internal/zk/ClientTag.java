package io.zklock.core.internal.zk;

import java.util.UUID;

/**
 * A client's tag: random hex digits that its nodes which hear creations carry
 * ({@link io.zklock.core.spi.queue.LockNode#taggedBy}), made once per client.
 *
 * @param digits the tag's hex digits
 */
public record ClientTag(String digits) {

    /** {@return {@code monitor}'s client's tag, made the first time} */
    public static String of(SessionMonitor monitor) {
        return monitor.attachment(ClientTag.class, () -> new ClientTag(UUID.randomUUID().toString().substring(0, 8))).digits();
    }

    /**
     * {@return {@code monitor}'s client's tag if it hears creations through a tree watch: one was
     * added on it, so that no waiter behind a node it marks probes a server without them, and
     * its lease caches listen to the creations ({@link TreeWatch#tellsCreations}: a client whose
     * only watch so far was a waiter's hears none for its caches); else null}
     */
    public static String hearing(SessionMonitor monitor) {
        TreeWatch made = TreeWatch.existing(monitor);
        return made != null && made.tellsCreations() ? of(monitor) : null;
    }

    /**
     * {@return whether {@code monitor}'s client may hear through a tree watch: not turned off by
     * {@link TreeWatch#PROPERTY}, not found unsupported by the server yet}
     */
    public static boolean mayHear(SessionMonitor monitor) {
        TreeWatch made = TreeWatch.existing(monitor);
        return made != null ? !made.unsupported() : !"false".equalsIgnoreCase(System.getProperty(TreeWatch.PROPERTY));
    }
}
