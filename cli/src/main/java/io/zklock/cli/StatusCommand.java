package io.zklock.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;

import io.zklock.core.LockAdmin;
import io.zklock.core.LockException;
import io.zklock.core.LockPaths;
import io.zklock.core.LockStatus;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/*
 * Overview.
 *
 * One read of every path (LockAdmin.status), printed; with --watch, repeatedly:
 *   1. WATCH  with --recursive, list every directory under each root with a children watch
 *             (lock nodes are not descended into), so a new lock directory anywhere under it
 *             is noticed; this comes before 2, so nothing made after the walk goes unseen.
 *   2. READ   the lock paths (LockAdmin.lockPaths for a root), then each path's status with
 *             LockAdmin.status(path, onNextChange): ZooKeeper watches on the directory, its
 *             nodes' data, or the path's creation. No polling: nothing is read until one fires.
 *   3. DRAW   unless nothing but ages differs from the last drawing (a watch of an older read
 *             that fired late), then wait for the next change and go to 1.
 * A reconnection counts as a change: a session that expired meanwhile took its watches along.
 */
/** {@code zklock status}: who holds and who waits, for lock paths on a real ensemble. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Shows who holds and who waits at each lock path, in queue order: role",
            "(HOLDS; CACHED: holds, and its process keeps the node after use, so it may",
            "be idle; waits), kind (mutex, read, write, permit, multi), owner",
            "(thread@host[pid N]), age, fencing token, and a pending revocation request.",
            "",
            "A holder's age is that of its node, an upper bound of the hold (the server",
            "does not record the moment of the grant). Durations are written like 500ms, 2s.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the paths were read (absent paths and directories that are not locks included)",
            "1:ZooKeeper could not be reached or read",
            "2:bad usage (an invalid path, an unknown option)"})
public final class StatusCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectOptions connection;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Lock paths, as given to the recipes; with --recursive, roots.")
    List<String> paths;

    @Option(names = "--json", description = "Print one JSON document on one line instead of tables (with --watch, one per change).")
    boolean json;

    @Option(names = {"-r", "--recursive"}, description = "Treat each PATH as a root: show every lock directory at or under it.")
    boolean recursive;

    @Option(names = {"-w", "--watch"}, description = "Redraw on every change (ZooKeeper watches, no polling) until Ctrl-C.")
    boolean watch;

    /** For tests and scripts: with --watch, stop after this many redraws (the first drawing not counted). */
    @Option(names = "--watch-count", hidden = true, paramLabel = "N")
    int watchCount = -1;

    @Override
    public Integer call() throws Exception {
        for (String path : paths) {
            if (!(recursive && path.equals("/"))) {
                try {
                    LockPaths.validate(path);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), e.getMessage());
                }
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        try (CuratorFramework client = connection.open()) {
            LockAdmin admin = new LockAdmin(client);
            if (!watch) {
                draw(read(client, admin, null, null), out, false);
                return 0;
            }
            return watch(client, admin, out);
        }
    }

    /** The redraw loop of the overview; returns after {@code --watch-count} redraws, if given. */
    int watch(CuratorFramework client, LockAdmin admin, PrintWriter out) throws InterruptedException {
        Semaphore changes = new Semaphore(0);
        Runnable changed = changes::release;
        Watcher treeWatcher = event -> {
            if (event.getType() != Watcher.Event.EventType.None) {
                changes.release();
            }
        };
        ConnectionStateListener reconnection = (c, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                changes.release();
            }
        };
        client.getConnectionStateListenable().addListener(reconnection);
        try {
            List<LockStatus> drawn = null;
            int redraws = 0;
            while (true) {
                List<LockStatus> now = read(client, admin, changed, treeWatcher);
                if (!now.equals(drawn)) {
                    if (drawn != null) {
                        redraws++;
                    }
                    draw(now, out, true);
                    drawn = now;
                    if (watchCount >= 0 && redraws >= watchCount) {
                        return 0;
                    }
                }
                changes.acquire();
                changes.drainPermits();        // one change often fires several watches: read once
            }
        } finally {
            client.getConnectionStateListenable().removeListener(reconnection);
        }
    }

    /** The statuses of the paths, or of the lock paths under each root; with watches when given. */
    private List<LockStatus> read(CuratorFramework client, LockAdmin admin, Runnable onChange, Watcher treeWatcher) {
        List<LockStatus> statuses = new ArrayList<>();
        for (String path : paths) {
            if (!recursive) {
                statuses.add(onChange == null ? admin.status(path) : admin.status(path, onChange));
                continue;
            }
            if (treeWatcher != null) {
                watchTree(client, path, treeWatcher);
            }
            List<String> found = admin.lockPaths(path);
            if (found.isEmpty()) {
                statuses.add(rootWithoutLocks(admin, path));
            }
            for (String lockPath : found) {
                statuses.add(onChange == null ? admin.status(lockPath) : admin.status(lockPath, onChange));
            }
        }
        return statuses;
    }

    /** A root with no lock directory at or under it: absent or empty as it is, otherwise said so. */
    private static LockStatus rootWithoutLocks(LockAdmin admin, String root) {
        LockStatus status = root.equals("/") ? null : admin.status(root);
        if (status != null && status.state() != LockStatus.State.NOT_A_LOCK) {
            return status;
        }
        return new LockStatus(root, LockStatus.State.NOT_A_LOCK, "", OptionalInt.empty(), List.of(),
                status == null ? List.of() : status.foreignChildren(), List.of("no lock directory at or under it"));
    }

    /** Step 1 of the overview: a children watch on {@code dir} and every directory under it. */
    private static void watchTree(CuratorFramework client, String dir, Watcher watcher) {
        List<String> children;
        try {
            children = client.getChildren().usingWatcher(watcher).forPath(dir);
        } catch (KeeperException.NoNodeException e) {
            exists(client, dir, watcher);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while watching " + dir, e);
        } catch (Exception e) {
            throw new LockException("could not read " + dir + ": " + e, e);
        }
        for (String child : children) {
            String full = ZKPaths.makePath(dir, child);
            if (LockNode.parse(child).isEmpty() && !full.equals("/zookeeper")) {
                watchTree(client, full, watcher);
            }
        }
    }

    private static void exists(CuratorFramework client, String dir, Watcher watcher) {
        try {
            if (client.checkExists().usingWatcher(watcher).forPath(dir) != null) {
                watchTree(client, dir, watcher);   // made between the listing and this watch
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while watching " + dir, e);
        } catch (Exception e) {
            throw new LockException("could not read " + dir + ": " + e, e);
        }
    }

    private void draw(List<LockStatus> statuses, PrintWriter out, boolean watching) {
        Instant now = Instant.now();
        if (json) {
            out.println(StatusReport.json(statuses, now));
        } else {
            if (watching) {
                if (System.console() != null) {
                    out.print("\033[H\033[2J");          // a terminal: redraw in place
                }
                out.println("zklock status at " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS)
                        + ", redrawn on every change (Ctrl-C to stop)");
                out.println();
            }
            StatusReport.text(statuses, now).forEach(out::println);
        }
        out.flush();
    }
}
