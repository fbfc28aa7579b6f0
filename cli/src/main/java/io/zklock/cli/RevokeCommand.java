package io.zklock.cli;

import java.io.Console;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.zklock.core.LockAdmin;
import io.zklock.core.LockException;
import io.zklock.core.LockPaths;
import io.zklock.core.LockStatus;
import io.zklock.core.Participant;
import io.zklock.core.RevocationResult;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code zklock revoke}: asks the holder(s) of a lock path, or one node, to let go, by writing a
 * revocation request into the node (a holder that opted in with
 * {@code Lease.onRevocationRequested} decides); with {@code --force}, deletes the holder's node
 * after a confirmation.
 */
@Command(name = "revoke", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Asks the current holder(s) of PATH, or the one node --node names, to let go:",
            "writes a revocation request into the node. A holder that opted in with",
            "Lease.onRevocationRequested is told and decides (usually it closes its",
            "lease); any other holder keeps its lease. Nothing is deleted.",
            "",
            "--force deletes the holder's node instead, after a confirmation: the lock",
            "passes to the next waiter at once. Safe only when the protected resource",
            "checks fencing tokens: the old holder may still be working, and only its",
            "token, lower than the next holder's, gets its writes refused.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:a request was written or was already pending (--force: a node was deleted)",
            "1:ZooKeeper could not be reached or refused the write",
            "2:bad usage (an invalid path or node name; --force with no terminal and no --yes)",
            "3:nothing done: nobody holds, the node is gone, or the deletion was not confirmed"})
public final class RevokeCommand implements Callable<Integer> {
    static final int NOTHING_DONE = 3;

    @Spec
    CommandSpec spec;

    @Mixin
    ConnectOptions connection;

    @Parameters(index = "0", paramLabel = "PATH", description = "The lock path, as given to the recipe.")
    String path;

    @Option(names = "--node", paramLabel = "NAME",
            description = "Only this node: its name as 'zklock status' shows it (_c_<uuid>-<kind>-<sequence>), or its full path.")
    String node;

    @Option(names = "--force", description = "Delete the holder's node (or --node's) instead of asking; asks for confirmation.")
    boolean force;

    @Option(names = {"-y", "--yes"}, description = "With --force: no confirmation (for scripts).")
    boolean yes;

    /** Where the confirmation is asked: the terminal, unless a test says otherwise. */
    Confirmation confirmation = new TerminalConfirmation();

    /** Asks the operator to confirm a deletion. */
    interface Confirmation {
        /** {@return whether there is someone to ask} */
        boolean available();

        /** {@return whether the operator answered yes to the question} */
        boolean ask(String question);
    }

    @Override
    public Integer call() throws Exception {
        try {
            LockPaths.validate(path);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        String nodePath = node == null ? null : nodePath();
        if (yes && !force) {
            throw new ParameterException(spec.commandLine(), "--yes confirms a --force deletion; without --force nothing is deleted");
        }
        if (force && !yes && !confirmation.available()) {
            throw new ParameterException(spec.commandLine(),
                    "--force asks for confirmation on a terminal, and there is none; add --yes to delete without asking");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (CuratorFramework client = connection.open()) {
            LockAdmin admin = new LockAdmin(client);
            LockStatus status = admin.status(path);
            if (status.state() != LockStatus.State.LOCK) {
                StatusReport.text(List.of(status), Instant.now()).forEach(out::println);
                out.println("nothing done");
                return NOTHING_DONE;
            }
            List<Participant> targets;
            if (nodePath != null) {
                Optional<Participant> named = status.participants().stream().filter(p -> p.nodePath().equals(nodePath)).findFirst();
                if (named.isEmpty()) {
                    out.println(gone(nodePath));
                    return NOTHING_DONE;
                }
                targets = List.of(named.get());
            } else {
                targets = status.holders();
                if (targets.isEmpty()) {
                    out.println("nobody holds " + path + "; nothing done");
                    return NOTHING_DONE;
                }
            }
            return force ? delete(client, targets, out) : request(admin, targets, nodePath != null, out);
        }
    }

    /** The full path of {@code --node}, which must be a lock node's name, in {@code PATH}. */
    private String nodePath() {
        String full = node.startsWith("/") ? node : ZKPaths.makePath(path, node);
        String name = ZKPaths.getNodeFromPath(full);
        if (LockNode.parse(name).isEmpty()) {
            throw new ParameterException(spec.commandLine(),
                    "--node '" + node + "' is not a lock node: its name is not _c_<uuid>-<kind>-<sequence>");
        }
        if (!ZKPaths.getPathAndNode(full).getPath().equals(path)) {
            throw new ParameterException(spec.commandLine(), "--node '" + node + "' is not in " + path);
        }
        return full;
    }

    /** Writes a request into each node: every holder's, or the one node named. */
    private int request(LockAdmin admin, List<Participant> targets, boolean oneNode, PrintWriter out) {
        Map<String, RevocationResult> results = new LinkedHashMap<>();
        if (oneNode) {
            results.put(targets.get(0).nodePath(), admin.requestRevocation(targets.get(0).nodePath()));
        } else {
            results.putAll(admin.requestRevocationOfHolders(path));
        }
        Map<String, Participant> known = new LinkedHashMap<>();
        targets.forEach(p -> known.put(p.nodePath(), p));
        boolean asked = false;
        for (Map.Entry<String, RevocationResult> e : results.entrySet()) {
            Participant p = known.get(e.getKey());
            String who = p == null ? e.getKey() : describe(p);
            switch (e.getValue()) {
                case REQUESTED -> {
                    asked = true;
                    out.println("REQUESTED          " + who);
                    out.println("  " + (p != null && !p.holding()
                            ? "it waits: if it opted in, it is told once it is granted"
                            : "a holder that opted in with Lease.onRevocationRequested is told and decides; others keep the lock"));
                }
                case ALREADY_REQUESTED -> {
                    asked = true;
                    out.println("ALREADY_REQUESTED  " + who);
                    out.println("  a request was already pending; nothing written");
                }
                case NODE_GONE -> out.println("NODE_GONE          " + gone(e.getKey()));
                case NOT_AUTHORIZED -> {
                    out.println("NOT_AUTHORIZED     " + who);
                    out.println("  the node's ACL does not let this identity write it (NoAuth); nothing written");
                }
            }
        }
        if (results.isEmpty()) {
            out.println("nobody holds " + path + "; nothing done");   // the holders left between the two reads
        }
        out.flush();
        return asked ? 0 : NOTHING_DONE;
    }

    /** Deletes each holder's node, once confirmed, and only the node status showed. */
    private int delete(CuratorFramework client, List<Participant> targets, PrintWriter out) {
        for (Participant p : targets) {
            if (!p.holding()) {
                out.println(describe(p) + ": it waits; --force deletes a holder's node only; nothing done");
                return NOTHING_DONE;
            }
        }
        out.println("about to delete " + (targets.size() == 1 ? "the node" : "the " + targets.size() + " nodes") + " of:");
        targets.forEach(p -> out.println("  " + describe(p)));
        out.flush();
        if (!yes) {
            boolean confirmed = confirmation.ask("The next waiter is granted at once. A resource that checks fencing tokens "
                    + "refuses the old holder once the new one has written; one that does not may see two holders at once. "
                    + "Type yes to delete: ");
            if (!confirmed) {
                out.println("not confirmed; nothing deleted");
                return NOTHING_DONE;
            }
        }
        int deleted = 0;
        for (Participant p : targets) {
            if (deleteExactly(client, p, out)) {
                deleted++;
                out.println("deleted " + p.nodePath() + " (token " + StatusReport.token(p.fencingToken()) + ")");
                out.println("  the next waiter is granted now; a holder that opted in with Lease.onRevocationRequested sees");
                out.println("  its lease turn LOST at once, any other is not told and may keep working: a resource that");
                out.println("  checks fencing tokens refuses its writes once a later holder has written");
            }
        }
        out.flush();
        return deleted > 0 ? 0 : NOTHING_DONE;
    }

    /**
     * Deletes the node if it is still the one status showed: same czxid (the token), and the
     * data version just read (a write in between makes the delete read again).
     */
    private static boolean deleteExactly(CuratorFramework client, Participant p, PrintWriter out) {
        for (int race = 0; race < 10; race++) {
            try {
                Stat stat = client.checkExists().forPath(p.nodePath());
                if (stat == null) {
                    out.println(gone(p.nodePath()));
                    return false;
                }
                if (stat.getCzxid() != p.fencingToken()) {
                    out.println("node " + p.nodePath() + " is not the node status showed (token "
                            + StatusReport.token(stat.getCzxid()) + ", not " + StatusReport.token(p.fencingToken()) + "); not deleted");
                    return false;
                }
                client.delete().withVersion(stat.getVersion()).forPath(p.nodePath());
                return true;
            } catch (KeeperException.BadVersionException changed) {
                // its data changed (a revocation request, a grant notice): read it again
            } catch (KeeperException.NoNodeException e) {
                out.println(gone(p.nodePath()));
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockException("interrupted while deleting " + p.nodePath(), e);
            } catch (Exception e) {
                throw new LockException("could not delete " + p.nodePath() + ": " + e, e);
            }
        }
        throw new LockException("could not delete " + p.nodePath() + ": its data kept changing");
    }

    private static String describe(Participant p) {
        return p.nodeName() + "  " + (p.holding() ? (p.cached() ? "CACHED" : "HOLDS") : "waits") + "  " + p.mode() + "  "
                + StatusReport.owner(p.owner()) + "  token " + StatusReport.token(p.fencingToken());
    }

    private static String gone(String nodePath) {
        return "node " + nodePath + " no longer exists; nothing done";
    }

    /** The process's terminal, when it has one. */
    private static final class TerminalConfirmation implements Confirmation {
        @Override
        public boolean available() {
            return System.console() != null;
        }

        @Override
        public boolean ask(String question) {
            Console console = System.console();
            String answer = console == null ? null : console.readLine("%s", question);
            return answer != null && answer.trim().equals("yes");
        }
    }
}
