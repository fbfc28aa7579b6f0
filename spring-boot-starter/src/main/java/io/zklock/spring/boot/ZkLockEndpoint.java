package io.zklock.spring.boot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.zklock.core.LockAdmin;
import io.zklock.core.LockStatus;
import io.zklock.core.OwnerInfo;
import io.zklock.core.Participant;
import io.zklock.core.RevocationResult;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code zklock} actuator endpoint: who holds and who waits, from ZooKeeper itself
 * ({@link LockAdmin}, the same reads as the {@code zklock status} command), and revocation.
 *
 * <ul>
 *   <li>{@code GET /actuator/zklock}: every lock directory under the configured roots (the
 *       registry's and the provider's, under {@code zklock.root}), with its holders and waiters;</li>
 *   <li>{@code GET /actuator/zklock/{path}}: the status of one lock path (the path without its
 *       leading slash, e.g. {@code /actuator/zklock/zklock/shedlock/report});</li>
 *   <li>{@code POST /actuator/zklock/{path}}: asks every holder of that lock to let go (see
 *       {@link LockAdmin#requestRevocationOfHolders}); a holder hears it only if its lease opted in
 *       to revocation.</li>
 * </ul>
 *
 * <p>The endpoint's default access is read-only, as a write operation of Boot's own endpoints
 * would be made safe: revocation is refused until the application sets
 * {@code management.endpoint.zklock.access=unrestricted}, and, as every endpoint but health,
 * nothing of it is reachable over HTTP until {@code management.endpoints.web.exposure.include}
 * names {@code zklock} (and whatever secures the application's actuator paths applies).
 */
@Endpoint(id = "zklock", defaultAccess = Access.READ_ONLY)
public class ZkLockEndpoint {
    private final LockAdmin admin;
    private final List<String> roots;

    /**
     * @param admin reads the lock directories and writes revocation requests
     * @param roots the paths whose lock directories the read without a path lists
     */
    public ZkLockEndpoint(LockAdmin admin, List<String> roots) {
        this.admin = admin;
        this.roots = List.copyOf(roots);
    }

    /**
     * Every lock directory under the configured roots.
     *
     * @return the roots walked and each lock found, with its holders and waiters
     */
    @ReadOperation
    public LocksDescriptor locks() {
        List<LockDescriptor> locks = new ArrayList<>();
        for (String root : roots) {
            if (admin.status(root).state() == LockStatus.State.ABSENT) {
                continue;                      // nothing was ever locked there
            }
            for (String path : admin.lockPaths(root)) {
                locks.add(LockDescriptor.of(admin.status(path)));
            }
        }
        return new LocksDescriptor(roots, locks);
    }

    /**
     * The status of one lock path.
     *
     * @param path the lock path's segments
     * @return its state, holders and waiters
     */
    @ReadOperation
    public LockDescriptor lock(@Selector(match = Selector.Match.ALL_REMAINING) String[] path) {
        return LockDescriptor.of(admin.status(pathOf(path)));
    }

    /**
     * Asks every holder of one lock path to let go.
     *
     * @param path the lock path's segments
     * @return the result per holder's node path: {@code REQUESTED}, {@code ALREADY_REQUESTED},
     *         {@code NODE_GONE} or {@code NOT_AUTHORIZED}; empty if nobody holds it
     */
    @WriteOperation
    public Map<String, RevocationResult> revoke(@Selector(match = Selector.Match.ALL_REMAINING) String[] path) {
        return new LinkedHashMap<>(admin.requestRevocationOfHolders(pathOf(path)));
    }

    private static String pathOf(String[] segments) {
        return "/" + String.join("/", segments);
    }

    /**
     * What the endpoint shows without a path.
     *
     * @param roots the roots walked
     * @param locks the lock directories found under them
     */
    public record LocksDescriptor(List<String> roots, List<LockDescriptor> locks) {
    }

    /**
     * One lock path.
     *
     * @param path the lock path
     * @param state {@code ABSENT}, {@code EMPTY}, {@code LOCK} or {@code NOT_A_LOCK}
     * @param recipe the recipe its nodes belong to
     * @param maxLeases holders admitted at once, or null without lock nodes
     * @param holders the nodes granted now, in queue order
     * @param waiters the nodes waiting, in queue order
     * @param problems what is wrong with the directory, if anything
     */
    public record LockDescriptor(String path, String state, String recipe, Integer maxLeases, List<ParticipantDescriptor> holders,
            List<ParticipantDescriptor> waiters, List<String> problems) {
        static LockDescriptor of(LockStatus status) {
            return new LockDescriptor(status.path(), status.state().name(), status.recipe(),
                    status.maxLeases().isPresent() ? status.maxLeases().getAsInt() : null,
                    status.holders().stream().map(ParticipantDescriptor::of).toList(),
                    status.waiters().stream().map(ParticipantDescriptor::of).toList(), status.problems());
        }
    }

    /**
     * One lock node.
     *
     * @param node the node's path
     * @param mode what it asks for ({@code mutex}, {@code read}, {@code write}, {@code permit}, {@code multi})
     * @param owner who created it: thread, process id and host, as its data says
     * @param requestedAt when its owner asked for the lock
     * @param createdAt when the server created it
     * @param fencingToken its fencing token
     * @param cached whether it is a cached lease's node
     * @param revocationRequestedBy who asked its holder to let go, or null
     */
    public record ParticipantDescriptor(String node, String mode, String owner, String requestedAt, String createdAt,
            long fencingToken, boolean cached, String revocationRequestedBy) {
        static ParticipantDescriptor of(Participant p) {
            OwnerInfo o = p.owner();
            return new ParticipantDescriptor(p.nodePath(), p.mode(), o.thread() + " (pid " + o.pid() + " on " + o.host() + ")",
                    o.requestedAt().toString(), p.createdAt().toString(), p.fencingToken(), p.cached(),
                    p.revocationRequest().map(r -> r.requestedBy()).orElse(null));
        }
    }
}
