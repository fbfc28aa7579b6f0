package io.zklock.core.internal.request;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.ZkPort;

/*
 * The grant announcements one wait believed (GrantWait's step 3, for a driver that announces
 * grants). A node ahead that announced its grant before our watch was set sends the wait back to
 * list at once. Once only per write and node: a listing after a true grant moves us on, so the
 * same announcement seen again was forged by another client, and the wait keeps its watch.
 * Used under the request's lock.
 */
/** The grant announcements one wait has looked again for; see {@link GrantWait}. */
final class GrantAnnouncements {
    /** Per watched path, the mzxid of the grant announcement last looked again for. */
    private final Map<String, Long> seen = new HashMap<>();

    /** A new WATCH step watches {@code paths}: what was seen of any other path is forgotten. */
    void watching(List<String> paths) {
        seen.keySet().retainAll(paths);
    }

    /** Whether the reply of {@code path}'s watch shows an announcement not looked again for yet; from now on it has been. */
    boolean fresh(LockContext context, String path, ZkPort.Reply reply) {
        if (!context.driver().announcesGrants() || !NodeData.announcedGrant(reply.stat(), reply.data())
                || Long.valueOf(reply.stat().getMzxid()).equals(seen.get(path))) {
            return false;
        }
        seen.put(path, reply.stat().getMzxid());
        return true;
    }
}
