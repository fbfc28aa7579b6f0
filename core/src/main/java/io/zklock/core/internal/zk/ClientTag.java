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
     * {@return {@code monitor}'s client's tag if it may hear creations through a tree watch
     * ({@link TreeWatch#mayHear}), else null}
     */
    public static String hearing(SessionMonitor monitor) {
        return TreeWatch.mayHear(monitor) ? of(monitor) : null;
    }
}
