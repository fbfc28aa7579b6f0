package io.zklock.core.internal.request;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.zklock.core.LockException;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.ForeignLayout;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/*
 * Step 2 of a wait (GrantWait), when the listing shows a directory of the driver's ForeignLayout:
 * each such directory is listed, all at once, with no watch. A lock node there whose uuid zklock
 * did not pick is another library's participant (Curator's lease or guard node); names that are
 * no lock node's are ignored, as in any listing (hostile data). A compatibility-mode client's
 * nodes there are zklock's, so a default-mode client beside them goes on to decide as usual.
 * A listing that shows none of the directories costs nothing: the check is not made.
 */
/** Looks below a lock directory for another library's participants; see {@link ForeignLayout}. */
final class ForeignLayoutCheck {
    /** What the directories held: another library's nodes (as {@code dir/name}), or the first failed call's code. */
    record Found(List<String> foreign, KeeperException.Code failure) { }

    private ForeignLayoutCheck() {
    }

    /** Lists {@code shown}, each a child directory of the lock directory, counting each call in {@code tally}. */
    static CompletableFuture<Found> read(LockContext context, List<String> shown, AcquireTally tally) {
        List<CompletableFuture<ZkPort.Reply>> replies = new ArrayList<>();
        for (String dir : shown) {
            tally.issued();
            replies.add(context.port().children(ZKPaths.makePath(context.path(), dir), null, null));
        }
        return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).handle((v, error) -> {
            List<String> foreign = new ArrayList<>();
            for (int i = 0; i < shown.size(); i++) {
                ZkPort.Reply reply = replies.get(i).isCompletedExceptionally() ? null : replies.get(i).join();
                if (reply == null || !reply.ok() && !reply.noNode()) {
                    return new Found(List.of(), reply == null ? KeeperException.Code.CONNECTIONLOSS : reply.rc());
                }
                if (reply.ok()) {
                    for (LockNode node : LockNode.sorted(reply.children())) {
                        if (!node.zklockMarked()) {
                            foreign.add(shown.get(i) + "/" + node.name());
                        }
                    }
                }
            }
            return new Found(foreign, null);
        });
    }

    /** The refusal of {@code context}'s lock beside {@code foreign}: whose clients, which nodes, and the two ways out. */
    static LockException refusal(LockContext context, List<String> foreign) {
        return new LockException("lock " + context.path() + ": " + context.driver().foreignLayout().owner() + " holds or waits on this path (" + String.join(", ", foreign) + ") and its clients do not"
                + " see this client's nodes, so the default mode cannot be safe here; finish the migration first (no Curator"
                + " client left: zklock status shows whose nodes are whose), or use LockCompatibility.CURATOR while any"
                + " Curator client uses the path");
    }
}
