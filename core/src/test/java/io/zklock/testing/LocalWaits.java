package io.zklock.testing;

import io.zklock.core.internal.cache.CacheProbe;
import org.apache.curator.framework.CuratorFramework;

/**
 * For tests of other modules that count the requests waiting on a lock: the threads that wait
 * inside their process, with caching on, for a node their client holds or is queueing (read
 * from the caches' own state by a probe of core's tests; not API).
 */
public final class LocalWaits {
    private LocalWaits() {
    }

    /**
     * See {@code CacheProbe.localWaits}.
     *
     * @param client a Curator client
     * @param path a lock directory, as the client names it
     * @return how many of {@code client}'s threads wait inside the process on {@code path} now
     */
    public static int on(CuratorFramework client, String path) {
        return CacheProbe.localWaits(client, path);
    }
}
