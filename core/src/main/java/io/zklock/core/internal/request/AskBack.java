package io.zklock.core.internal.request;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * A waiting node asks back the cached nodes ahead of it (LockNode.caches(): their process may
 * keep them after use) that conflict with it (LockDriver.conflicts), each once per wait, with an
 * ask written into the cached node's data, which its process watches (a cached
 * lease always does): the process then grants nothing more on that node and deletes it when
 * the leases in use on it close. The ask is its own data line (NodeData: asked-back-by), not a
 * revocation request: only the holder's cache hears it, never its leases' revocation handlers,
 * so caching changes nothing a holder's code sees. Which nodes: every cached node ahead that
 * conflicts with ours (a writer: every cached read node ahead), except for a lock of several
 * holders (maxLeases > 1, the semaphore: the first maxLeases nodes hold), where a waiter at
 * index i needs only i - maxLeases + 1 nodes ahead to go: it asks the first that many cached
 * ones, and every other cached one ahead once it has waited the context's escalateMs (the
 * nodes it asked may be in use while another process keeps one idle: a permit idles at most
 * that long while a waiter needs it). Asking them all at once made every waiter of a busy semaphore empty every
 * cache, so caching never re-granted anything. Per node asked:
 *   1. READ   getData; gone, or already asked back (by anyone): done.
 *   2. WRITE  setData(data + the ask, version read). BADVERSION (written meanwhile): 1,
 *             up to MAX_TRIES in all.
 * No write without the read: a conditional write replaces the whole data, and a waiter cannot
 * know the holder's owner lines (host, pid, thread), which status and revoke show while the
 * leases in use on an asked node finish; writing at a guessed version 0 would erase them.
 * Connection trouble, or BADVERSION on every try, asks again after RETRY_MS, until the wait
 * ends (a reply of trouble can come after the reconnection's listing, so the next listing is
 * not enough). Any other refusal (a node whose ACL does not let us write) is logged: the cached
 * node then goes when its holder stops re-granting it (LeaseCache's age limit). Nodes that are
 * not cached cost nothing: a listing's names say which are.
 */
/** The asking back of cached nodes for one wait; see the comment above. */
final class AskBack {
    private static final Logger LOG = LoggerFactory.getLogger(AskBack.class);
    private static final int MAX_TRIES = 3;
    private static final long RETRY_MS = 500;
    private final LockContext context;
    private final LockNode ours;
    private Set<String> asked;                 // guarded by this; made at the first ask (most waits ask nobody)
    private volatile boolean stopped;
    private boolean escalating;                // guarded by the wait's lock: the escalation is scheduled
    private volatile boolean escalated;        // it ran: every cached node ahead is asked from then on
    private volatile List<LockNode> latest = List.of();   // the last listing asked about

    AskBack(LockContext context, LockNode ours) {
        this.context = context;
        this.ours = ours;
    }

    /**
     * Asks the cached nodes ahead of ours in {@code sorted} that conflict with it (of a lock of
     * several holders, those it needs until the escalation) and were not asked yet by this wait.
     *
     * @return how many were asked now
     */
    int ask(List<LockNode> sorted) {
        int index = sorted.indexOf(ours);
        int need = context.maxLeases() > 1 ? index - context.maxLeases() + 1 : Integer.MAX_VALUE;
        int n = ask(sorted, escalated ? Integer.MAX_VALUE : need);
        latest = sorted;
        if (need < Integer.MAX_VALUE && !escalating && cachedAhead(sorted) > Math.max(need, 0)) {
            escalating = true;                 // the rest of them if the wait lasts: no permit idle past escalateMs
            Threads.TIMER.schedule(() -> {
                if (!stopped) {
                    escalated = true;
                    ask(latest, Integer.MAX_VALUE);
                }
            }, context.escalateMs(), TimeUnit.MILLISECONDS);
        }
        return n;
    }

    /** Asks the first {@code need} cached nodes ahead that conflict with ours, those not asked yet. */
    private int ask(List<LockNode> sorted, int need) {
        int n = 0;
        for (LockNode node : sorted) {
            if (node.equals(ours) || need <= 0) {
                break;
            }
            if (node.caches() && context.driver().conflicts(node, ours)) {
                need--;
                if (firstAsk(node.name())) {
                    read(node.name(), 1);
                    n++;
                }
            }
        }
        return n;
    }

    /** How many cached nodes ahead of ours conflict with it. */
    private int cachedAhead(List<LockNode> sorted) {
        int n = 0;
        for (LockNode node : sorted) {
            if (node.equals(ours)) {
                break;
            }
            if (node.caches() && context.driver().conflicts(node, ours)) {
                n++;
            }
        }
        return n;
    }

    private synchronized boolean firstAsk(String name) {
        if (asked == null) {
            asked = new HashSet<>();
        }
        return asked.add(name);
    }

    /** The wait ended: nothing more is asked. */
    void stop() {
        stopped = true;
    }

    private void retryLater(String name) {
        if (!stopped) {
            Threads.TIMER.schedule(() -> {
                if (!stopped) {
                    read(name, 1);
                }
            }, RETRY_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void read(String name, int attempt) {
        String path = ZKPaths.makePath(context.path(), name);
        context.port().data(path, null).whenComplete((reply, error) -> {
            if (error != null || reply.connectionTrouble()) {
                retryLater(name);
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.warn("could not read {} to ask it back ({}); it goes when its holder stops re-granting it", path, reply.rc());
            } else if (reply.ok() && !NodeData.askedBack(reply.data())) {
                write(name, path, reply.data(), reply.stat().getVersion(), attempt);
            }
        });
    }

    private void write(String name, String path, byte[] data, int version, int attempt) {
        context.port().setData(path, NodeData.withAskBack(data, ours.name()), version).whenComplete((reply, error) -> {
            if (error != null || reply.connectionTrouble()) {
                retryLater(name);
            } else if (reply.rc() == KeeperException.Code.BADVERSION) {
                if (attempt < MAX_TRIES) {
                    read(name, attempt + 1);
                } else {
                    retryLater(name);
                }
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.warn("could not ask {} back ({}); it goes when its holder stops re-granting it", path, reply.rc());
            } else if (reply.ok()) {
                LOG.debug("asked cached node {} back for {}", path, ours.name());
            }
        });
    }
}
