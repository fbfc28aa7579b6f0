package io.zklock.core.internal.inspect;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.zklock.core.LockException;
import io.zklock.core.LockPaths;
import io.zklock.core.LockStatus;
import io.zklock.core.Participant;
import io.zklock.core.RevocationRequest;
import io.zklock.core.RevocationResult;
import io.zklock.core.internal.Failures;
import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.CuratorPort;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockDriver;
import io.zklock.core.spi.queue.LockKind;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/*
 * Overview.
 *
 * Reads a lock path as it is, with no lock object: one listing, then one read per lock node,
 * issued together. Each node is judged by the driver of its own recipe (found by its kind,
 * LockKind) over the whole listing, exactly as that recipe's engine would judge it, so a
 * directory of mixed recipes shows what each of its clients believes. A node that goes between
 * the listing and its read is left out (it has left the queue).
 *
 * Curator's semaphore layout (InterProcessSemaphoreV2, and zklock's compatibility mode): the
 * lease nodes _c_<uuid>-lease-<seq> of <path>/leases are judged by Curator's rule, not by a
 * queue: each is a holder, but for at most one, the newest, when its session holds the guard
 * (the head of <path>/locks): that client created it under the guard and may still be waiting
 * for the count to fall (status cannot know maxLeases, which Curator keeps nowhere). Two more
 * reads, for such a path only: the guard's listing and its head's Stat.
 *
 * A revocation request is a read, then a write of the data read plus the request, conditional
 * on the data version read; a write that loses a race reads again. A write whose reply is lost
 * is sent again by Curator and loses to itself: the read after it finds our own request, which
 * is REQUESTED, not ALREADY_REQUESTED. It never deletes and never writes into a node whose name
 * is not a lock node's.
 */
/**
 * The implementation of {@link io.zklock.core.LockAdmin}; applications use that class.
 */
public final class Inspection {
    private static final int MAX_WRITE_RACES = 10;
    /** Curator's semaphore layout: the leases directory, its nodes' kind, the guard directory (CuratorLayoutPermits). */
    private static final String LEASES = "leases";
    private static final String LEASE_KIND = "lease";
    private static final String GUARD = "locks";

    private final ZkPort port;
    /** The context whose participants are read, if any: it judges its own kind when no installed recipe owns it. */
    private final LockContext own;

    /**
     * @param client a started Curator client
     * @throws IllegalArgumentException if the client is null
     */
    public Inspection(CuratorFramework client) {
        this(new CuratorPort(requireClient(client), SessionMonitor.of(client)), null);
    }

    /** Inspection through {@code port}; {@code own}, if not null, judges nodes of its kind that no {@link LockKind} owns. */
    public Inspection(ZkPort port, LockContext own) {
        this.port = port;
        this.own = own;
    }

    private static CuratorFramework requireClient(CuratorFramework client) {
        if (client == null) {
            throw new IllegalArgumentException("client is null");
        }
        return client;
    }

    /**
     * The status of {@code path}; with a watcher, leaves watches (the directory's children, each
     * lock node's data, or the path's creation when it is absent) that fire on the next change.
     *
     * @throws IllegalArgumentException if the path is not a valid lock path
     * @throws LockException if ZooKeeper cannot be read
     */
    public LockStatus status(String path, Watcher watcher) {
        LockPaths.validate(path);
        ZkPort.Reply listing = read(port.children(path, watcher, null), path);
        if (listing.noNode()) {
            if (watcher != null && read(port.exists(path, watcher), path).ok()) {
                return status(path, watcher);  // made between the listing and the watch
            }
            return new LockStatus(path, LockStatus.State.ABSENT, "", OptionalInt.empty(), List.of(), List.of(), List.of());
        }
        List<String> children = checked(listing, path).children();
        List<LockNode> sorted = LockNode.sorted(children);
        List<String> foreign = children.stream().filter(c -> LockNode.parse(c).isEmpty()).sorted().toList();
        List<CompletableFuture<ZkPort.Reply>> reads = sorted.stream()
                .map(node -> port.data(ZKPaths.makePath(path, node.name()), watcher)).toList();   // issued together
        List<Participant> participants = new ArrayList<>(sorted.size());
        List<String> unreadable = new ArrayList<>();
        long guardSession = leasesLayout(path, sorted) ? guardHolderSession(path) : 0;
        for (int i = 0; i < sorted.size(); i++) {
            LockNode node = sorted.get(i);
            ZkPort.Reply data = read(reads.get(i), path);
            if (data.rc() == KeeperException.Code.NOAUTH) {
                // its ACL hides its data from us; exists() is not subject to ACLs, so its place and token still show
                data = read(port.exists(ZKPaths.makePath(path, node.name()), watcher), path);
                if (data.ok()) {
                    unreadable.add(node.name() + " (not authorized to read its data)");
                }
            } else if (data.ok() && !NodeData.isOwnerData(data.data())) {
                unreadable.add(node.name() + " (its data is not zklock's owner lines)");
            }
            if (!data.noNode()) {
                participants.add(guardSession == 0 && !leasesLayout(path, sorted)
                        ? participant(path, sorted, node, checked(data, path))
                        : lease(path, sorted, node, checked(data, path), guardSession));
            }
        }
        return withCurators(withUnreadable(summary(path, sorted, participants, foreign), unreadable));
    }

    /** Whether {@code path} is a semaphore's leases directory in Curator's layout: named leases, every node a lease. */
    static boolean leasesLayout(String path, List<LockNode> sorted) {
        return ZKPaths.getNodeFromPath(path).equals(LEASES) && !sorted.isEmpty()
                && sorted.stream().allMatch(n -> n.kind().equals(LEASE_KIND));
    }

    /** The session holding the guard of a leases directory (the head of {@code ../locks}), or 0 if none. */
    private long guardHolderSession(String leasesPath) {
        String guard = ZKPaths.makePath(ZKPaths.getPathAndNode(leasesPath).getPath(), GUARD);
        ZkPort.Reply listing = read(port.children(guard, null, null), guard);
        List<LockNode> queue = listing.ok() ? LockNode.sorted(listing.children()) : List.of();
        if (queue.isEmpty()) {
            return 0;
        }
        ZkPort.Reply head = read(port.exists(ZKPaths.makePath(guard, queue.get(0).name()), null), guard);
        return head.ok() ? head.stat().getEphemeralOwner() : 0;
    }

    /** A lease node, judged by Curator's rule (see the Overview): a holder unless the guard holder's newest. */
    private static Participant lease(String path, List<LockNode> sorted, LockNode node, ZkPort.Reply data, long guardSession) {
        LockNode newest = sorted.stream().max(java.util.Comparator.comparingLong(LockNode::sequence)).orElseThrow();
        boolean holding = !(node.equals(newest) && guardSession != 0 && data.stat().getEphemeralOwner() == guardSession);
        String whose = whose(node, data);
        String mode = LEASE_KIND + (whose.isEmpty() ? " [zklock, curator layout]" : whose);   // a lease is Curator's layout
        return new Participant(ZKPaths.makePath(path, node.name()), mode, node.sequence(), NodeData.owner(data.data()), holding,
                data.stat().getCzxid(), Instant.ofEpochMilli(data.stat().getCtime()), NodeData.revocationRequest(data.data()));
    }

    /**
     * Whose node it is, as status appends it to the mode: nothing for zklock's own layout;
     * {@code " [curator]"} for a node of Curator's (neither a uuid zklock picks nor zklock's owner
     * lines); {@code " [zklock, curator layout]"} for a node zklock wrote in Curator's
     * read-write layout (LockCompatibility.CURATOR).
     */
    static String whose(LockNode node, ZkPort.Reply data) {
        boolean zklocks = node.zklockMarked() || data.ok() && NodeData.isOwnerData(data.data());
        if (!zklocks && data.ok()) {
            return " [curator]";
        }
        return node.curatorNamed() ? " [zklock, curator layout]" : "";
    }

    /** The problems a mixed path adds: Curator's participants, and Curator's semaphore layout below the path. */
    private static LockStatus withCurators(LockStatus status) {
        List<String> problems = new ArrayList<>(status.problems());
        List<String> curators = status.participants().stream().filter(p -> p.mode().endsWith(" [curator]"))
                .map(Participant::nodeName).toList();
        if (!curators.isEmpty()) {
            problems.add("Curator participants (not zklock's): " + String.join(", ", curators));
        }
        List<String> semaphoreLayout = status.foreignChildren().stream()
                .filter(c -> c.equals("leases") || c.equals("locks")).toList();
        if (!semaphoreLayout.isEmpty()) {
            problems.add("Curator's semaphore layout below this path (" + String.join(", ", semaphoreLayout)
                    + "): check " + status.path() + "/leases for Curator participants");
        }
        if (problems.size() == status.problems().size()) {
            return status;
        }
        return new LockStatus(status.path(), status.state(), status.recipe(), status.maxLeases(), status.participants(),
                status.foreignChildren(), problems);
    }

    /** {@code status}, with one more problem naming the nodes whose data could not be read, if any. */
    private static LockStatus withUnreadable(LockStatus status, List<String> unreadable) {
        if (unreadable.isEmpty()) {
            return status;
        }
        List<String> problems = new ArrayList<>(status.problems());
        problems.add("unreadable node data, owner unknown: " + String.join(", ", unreadable));
        return new LockStatus(status.path(), status.state(), status.recipe(), status.maxLeases(), status.participants(),
                status.foreignChildren(), problems);
    }

    private Participant participant(String path, List<LockNode> sorted, LockNode node, ZkPort.Reply data) {
        Optional<LockKind> kind = LockKind.of(node.kind());
        boolean ownKind = kind.isEmpty() && own != null && own.kind().equals(node.kind());
        LockDriver driver = kind.map(LockKind::driver).orElse(ownKind ? own.driver() : LockDriver.EXCLUSIVE);
        int maxLeases = kind.map(k -> k.maxLeases(List.of(node))).orElse(ownKind ? own.maxLeases() : 1);   // what this node's client uses
        boolean holding = driver.decide(sorted, node, maxLeases).getsTheLock();
        String mode = NodeData.isMulti(data.data()) ? "multi" : kind.map(k -> k.mode(node.kind())).orElse(node.kind());
        mode += whose(node, data);
        return new Participant(ZKPaths.makePath(path, node.name()), mode, node.sequence(), NodeData.owner(data.data()), holding,
                data.stat().getCzxid(), Instant.ofEpochMilli(data.stat().getCtime()), NodeData.revocationRequest(data.data()),
                NodeData.participantId(data.data()), NodeData.lockDelayUntil(data.data()));
    }

    private static LockStatus summary(String path, List<LockNode> sorted, List<Participant> participants, List<String> foreign) {
        List<String> problems = new ArrayList<>();
        if (!foreign.isEmpty()) {
            problems.add("foreign children, ignored by every recipe: " + String.join(", ", foreign));
        }
        if (leasesLayout(path, sorted)) {
            return new LockStatus(path, LockStatus.State.LOCK, "semaphore", OptionalInt.empty(), participants, foreign, problems);
        }
        if (sorted.isEmpty()) {
            LockStatus.State state = foreign.isEmpty() ? LockStatus.State.EMPTY : LockStatus.State.NOT_A_LOCK;
            if (state == LockStatus.State.NOT_A_LOCK) {
                problems.set(0, "not a lock directory: none of its " + foreign.size() + " children is a lock node");
            }
            return new LockStatus(path, state, "", OptionalInt.empty(), List.of(), foreign, problems);
        }
        Set<String> recipes = new LinkedHashSet<>();
        Set<String> unknown = new TreeSet<>();
        Set<Integer> permits = new TreeSet<>();
        for (LockNode node : sorted) {
            Optional<LockKind> kind = LockKind.of(node.kind());
            kind.ifPresentOrElse(k -> recipes.add(k.recipe()), () -> unknown.add(node.kind()));
            kind.filter(k -> k.recipe().equals("semaphore")).ifPresent(k -> permits.add(k.maxLeases(List.of(node))));
        }
        if (!unknown.isEmpty()) {
            problems.add("node kinds of no recipe on the class path (judged as exclusive): " + String.join(", ", unknown));
        }
        if (recipes.size() > 1) {
            problems.add("nodes of more than one recipe: " + String.join(", ", recipes));
        }
        if (permits.size() > 1) {
            problems.add("semaphore clients disagree on maxLeases: " + permits);
        }
        Optional<LockKind> first = LockKind.of(sorted.get(0).kind());
        String recipe = recipes.size() > 1 ? "mixed" : first.map(LockKind::recipe).orElse(sorted.get(0).kind());
        int maxLeases = first.map(k -> k.maxLeases(sorted)).orElse(1);
        return new LockStatus(path, LockStatus.State.LOCK, recipe, OptionalInt.of(maxLeases), participants, foreign, problems);
    }

    /**
     * The lock directories at or under {@code root}, depth first in name order: every node that
     * has a lock node among its children. Lock nodes themselves are not descended into.
     *
     * @throws IllegalArgumentException if the root is not a valid path
     * @throws LockException if ZooKeeper cannot be read
     */
    public List<String> lockPaths(String root) {
        if (!"/".equals(root)) {
            LockPaths.validate(root);
        }
        List<String> found = new ArrayList<>();
        walk(root, found);
        return found;
    }

    private void walk(String dir, List<String> found) {
        ZkPort.Reply listing = read(port.children(dir, null, null), dir);
        if (listing.noNode()) {
            return;
        }
        List<String> children = new ArrayList<>(checked(listing, dir).children());
        children.sort(null);
        if (children.stream().anyMatch(c -> LockNode.parse(c).isPresent()) && !"/".equals(dir)) {
            found.add(dir);
        }
        for (String child : children) {
            String full = ZKPaths.makePath(dir, child);
            if (LockNode.parse(child).isEmpty() && !full.equals("/zookeeper")) {
                walk(full, found);
            }
        }
    }

    /**
     * Writes {@code request} into the data of the lock node {@code nodePath}, keeping what the
     * data held.
     *
     * @throws IllegalArgumentException if the path is invalid or its last segment is not a lock node's name
     * @throws LockException if ZooKeeper cannot be reached or refuses the write
     */
    public RevocationResult requestRevocation(String nodePath, RevocationRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("request is null");
        }
        LockPaths.validate(nodePath);
        if (LockNode.parse(ZKPaths.getNodeFromPath(nodePath)).isEmpty()) {
            throw new IllegalArgumentException("'" + nodePath + "' is not a lock node: its name is not _c_<uuid>-<kind>-<sequence>");
        }
        for (int race = 0; race < MAX_WRITE_RACES; race++) {
            ZkPort.Reply data = read(port.data(nodePath, null), nodePath);
            if (data.noNode()) {
                return RevocationResult.NODE_GONE;
            } else if (data.rc() == KeeperException.Code.NOAUTH) {
                return RevocationResult.NOT_AUTHORIZED;
            }
            checked(data, nodePath);
            Optional<RevocationRequest> found = NodeData.revocationRequest(data.data());
            if (found.isPresent()) {
                // our own, after a write whose reply was lost and which the client then sent again
                return race > 0 && found.get().equals(request) ? RevocationResult.REQUESTED : RevocationResult.ALREADY_REQUESTED;
            }
            ZkPort.Reply written = read(port.setData(nodePath, NodeData.withRevocationRequest(data.data(), request), data.stat().getVersion()), nodePath);
            if (written.ok()) {
                return RevocationResult.REQUESTED;
            } else if (written.noNode()) {
                return RevocationResult.NODE_GONE;
            } else if (written.rc() == KeeperException.Code.NOAUTH) {
                return RevocationResult.NOT_AUTHORIZED;
            } else if (written.rc() != KeeperException.Code.BADVERSION) {
                throw Failures.of("write of the revocation request into " + nodePath, written.rc(), nodePath);
            }
        }
        throw new LockException("could not write the revocation request into " + nodePath + ": its data changed "
                + MAX_WRITE_RACES + " times while it was written");
    }

    private static ZkPort.Reply read(CompletableFuture<ZkPort.Reply> reply, String path) {
        try {
            return reply.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while reading " + path, e);
        } catch (ExecutionException e) {
            throw Failures.of("read of " + path, e.getCause());
        }
    }

    private static ZkPort.Reply checked(ZkPort.Reply reply, String path) {
        if (!reply.ok()) {
            throw Failures.of("read of " + path, reply.rc(), path);
        }
        return reply;
    }
}
