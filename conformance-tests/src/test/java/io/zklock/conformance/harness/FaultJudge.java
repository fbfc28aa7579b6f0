package io.zklock.conformance.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import io.zklock.conformance.harness.FaultSchedule.Fault;
import io.zklock.conformance.harness.Recipe.Sharing;
import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.MultiLease;
import io.zklock.core.spi.queue.LockNode;
import io.zklock.testing.FencedResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * Decides which of what a FaultScheduleRunner saw breaks a promise; the runner drives the
 * clients, the faults and the waits, and tells the judge what it saw. Each lock path a lease
 * stands on is one fenced resource (a Guard), judged by the Sharing of the recipe on that path:
 * an exclusive holder holds alone, a shared (read) holder never beside an exclusive one, and at
 * most `permits` bounded (semaphore) holders at once. A holder's writes are atomic with respect
 * to the judge.
 *
 * The judge records, at each write and with its time, every other open lease (granted, not
 * yet closed by its owner) that conflicts with the writer and still says HELD, and every write
 * a FencedResource refused as stale while the writer's lease said HELD. At the end, a lease is
 * "dead" if it was told LOST or its session was expired by the schedule.
 *   - more HELD conflicting leases than the resource admits, not explained by dead ones:
 *     two valid holders;
 *   - a dead lease that still said HELD when a conflicting lease wrote: the holder was not told
 *     (SUSPENDED or LOST) before its successor wrote; excused only for a session the schedule
 *     expired by force, and only for a write made from the moment the runner aimed at the
 *     session to one session timeout after the server closed it. A forced expiry is not what
 *     the holder's own silence causes: the server deletes the session's nodes the moment another
 *     handle closes it, while the holder hears of it through its own connection (closed by the
 *     server when the other handle attached, or found dead by its next ping) and its
 *     connection-state thread, a race the holder may lose by some tens of milliseconds (late by
 *     nature). Within a session timeout it has heard by any path: the client gives up on a
 *     silent connection after two thirds of it. The excuse belongs to the session, not to an
 *     injection: a later injection aimed at a session already expired by force (its client has
 *     not yet heard of the expiry, so its handle still names that session) changes nothing;
 *     (Told LOST before the successor writes cannot hold for a partitioned holder: Curator
 *     reports LOST a whole session timeout after SUSPENDED, when the server has long expired
 *     the session. Holders told SUSPENDED in time but LOST only after a successor wrote are
 *     counted, not failed.)
 *   - a holder whose node is gone on the server (its session ended) must be told LOST;
 *   - a LOST lease's node is gone soon after its client reconnects with a new session;
 *   - a lease is never RELEASED while its node exists;
 *   - an acquisition never fails (faults are ridden out) and returns within its timeout;
 *   - once every fault is healed, each client is granted the lock again, and (single server)
 *     no watch is left on the server;
 *   - once every client is closed, no lock node remains.
 *
 * Unfenced writes (a runner whose holders check validity instead of presenting a token): each
 * write is told with the time its holder checked Lease.checkValidFor and the time it landed,
 * both on this JVM's monotonic clock, which every client shares. An "unfenced overlap" is a
 * write that landed after a later holder of the same exclusive resource was granted (its
 * acquire returned). Whether an overlap breaks a promise is the runner's caller's to say (with
 * a lock-delay it does; without one they are counted): unfencedOverlaps(). One whose later
 * holder's node was made in the lock directory made again (a sequence number not above the
 * earlier holder's: ZooKeeper reaped the emptied container in between, and with it the counts a
 * lock-delay waits out, which zklock does not promise to survive) is logged, not returned.
 */
final class FaultJudge {
    private static final Logger LOG = LoggerFactory.getLogger(FaultJudge.class);

    /** One lock path a request stands on, as the judge sees it: its fenced resource and how holders share it. */
    record Guard(String resource, Sharing sharing, int permits) {
    }

    /** What one write found, at {@code atNanos} (this JVM's monotonic clock). */
    private record Candidate(String what, String resource, int allowed, List<Held> leases, long atNanos) {
    }

    /**
     * A session the schedule expired by force: the runner aimed at it at {@code fromNanos}, and
     * the server had closed it by {@code doneNanos} (equal until the runner says it is done).
     */
    private record ForcedExpiry(long fromNanos, long doneNanos) {
    }

    private final String subject;
    private final int sessionMs;
    private final Map<String, FencedResource> fenced = new ConcurrentHashMap<>();
    private final List<Held> open = new ArrayList<>();                  // guarded by writes
    private final List<Candidate> candidates = new ArrayList<>();       // guarded by writes
    private final Object writes = new Object();
    private final Set<Held> suspendedOnly = ConcurrentHashMap.newKeySet();   // SUSPENDED, not yet LOST, at a successor's write
    private final Map<Long, ForcedExpiry> expiredSessions = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final AtomicInteger written = new AtomicInteger();
    private final AtomicInteger lateForced = new AtomicInteger();
    private final AtomicInteger lostNodeChecks = new AtomicInteger();
    private final List<Held> everGranted = new CopyOnWriteArrayList<>();
    private final List<UnfencedWrite> unfenced = new CopyOnWriteArrayList<>();

    /** One write without a token: by {@code h}, checked at {@code checkedNanos}, landed at {@code landedNanos}. */
    private record UnfencedWrite(Held h, long checkedNanos, long landedNanos) {
    }

    /**
     * @param subject what runs, for the log
     * @param sessionMs the clients' session timeout, on which the bounds of the notices depend
     */
    FaultJudge(String subject, int sessionMs) {
        this.subject = subject;
        this.sessionMs = sessionMs;
    }

    // ---- what the runner tells ----------------------------------------------------------------

    /**
     * The schedule is about to expire {@code session} by force: late notices on it are excused
     * (see the Overview).
     *
     * @return false if the schedule expired it by force already: that expiry stands, whatever
     *         becomes of this attempt (the runner then calls neither of the two methods below)
     */
    boolean expiringByForce(long session) {
        long now = System.nanoTime();
        return expiredSessions.putIfAbsent(session, new ForcedExpiry(now, now)) == null;
    }

    /** {@return whether the schedule expired {@code session} by force, or is about to} */
    boolean forcedExpiryOf(long session) {
        return expiredSessions.containsKey(session);
    }

    /** The forced expiry of {@code session} is done: the server has closed the session. */
    void expiredByForce(long session) {
        long now = System.nanoTime();
        expiredSessions.computeIfPresent(session, (k, f) -> new ForcedExpiry(f.fromNanos, now));
    }

    /** The forced expiry of {@code session}, begun by the last {@link #expiringByForce}, did not happen: no excuse for late notices. */
    void notExpired(long session) {
        expiredSessions.remove(session);
    }

    /**
     * A lease granted to client {@code client}'s request {@code what}, guarded by {@code guards}
     * (one per node of the lease, in the lease's order); its session is its node's owner as
     * {@code ownerOf} reads it on the server (0 if it cannot), else {@code clientSession}.
     */
    Held granted(int client, String what, List<Guard> guards, Lease lease, ToLongFunction<String> ownerOf,
            LongSupplier clientSession) {
        Held h = new Held(client, what, guards, lease, ownerOf, clientSession);
        everGranted.add(h);
        return h;
    }

    /** {@code h}'s holder checked its lease's validity at {@code checkedNanos} and its unfenced write has now landed. */
    void unfencedWrite(Held h, long checkedNanos) {
        unfenced.add(new UnfencedWrite(h, checkedNanos, System.nanoTime()));
    }

    /** {@return how many unfenced writes were made} */
    int unfencedWrites() {
        return unfenced.size();
    }

    /**
     * The unfenced overlaps (see the Overview), one line each: which write landed how long after
     * which later holder was granted, and how long after its own check.
     */
    List<String> unfencedOverlaps() {
        List<String> found = new ArrayList<>();
        for (UnfencedWrite w : unfenced) {
            for (Held later : everGranted) {
                if (later != w.h && later.grantedNanos - w.h.grantedNanos > 0 && w.landedNanos - later.grantedNanos > 0
                        && shareExclusively(w.h, later)) {
                    String overlap = String.format("c%d's write (checked %d ms before it landed) landed %d ms after c%d was granted %s",
                            w.h.client, TimeUnit.NANOSECONDS.toMillis(w.landedNanos - w.checkedNanos),
                            TimeUnit.NANOSECONDS.toMillis(w.landedNanos - later.grantedNanos), later.client, later.nodes);
                    if (directoryMadeAgain(w.h.nodes, later.nodes)) {
                        LOG.warn("not counted: {} in a lock directory made again after its holder's node {} went"
                                + " (ZooKeeper reaped the emptied container: counts start afresh, not promised)", overlap, w.h.nodes);
                        continue;
                    }
                    found.add(overlap);
                    break;
                }
            }
        }
        return found;
    }

    /**
     * Whether a node of {@code later} stands in a directory of a node of {@code earlier} with a
     * sequence number not above it: the directory was made again in between (a reaped container
     * starts its count afresh), and with it its counts of the deletions a lock-delay waits out.
     */
    static boolean directoryMadeAgain(List<String> earlier, List<String> later) {
        for (String a : earlier) {
            for (String b : later) {
                int slash = a.lastIndexOf('/');
                if (slash > 0 && b.lastIndexOf('/') == slash && a.regionMatches(0, b, 0, slash + 1)
                        && sequence(b) >= 0 && sequence(b) <= sequence(a)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The sequence number of the lock node at {@code nodePath}, or -1 if its name is not a lock node's. */
    private static long sequence(String nodePath) {
        return LockNode.parse(nodePath.substring(nodePath.lastIndexOf('/') + 1)).map(LockNode::sequence).orElse(-1L);
    }

    private static boolean shareExclusively(Held a, Held b) {
        for (Guard g : a.guards) {
            int at = b.indexOf(g.resource);
            if (at >= 0 && g.sharing == Sharing.EXCLUSIVE && b.guards.get(at).sharing == Sharing.EXCLUSIVE) {
                return true;
            }
        }
        return false;
    }

    /** {@code h}'s holder starts writing to the resources it protects. */
    void holding(Held h) {
        synchronized (writes) {
            open.add(h);
        }
    }

    /** One write by {@code h} to each resource it protects, judged against every other open lease. */
    void write(Held h) {
        synchronized (writes) {
            if (h.lease.state() != LeaseState.HELD) {
                return;
            }
            long now = System.nanoTime();
            written.incrementAndGet();
            for (int i = 0; i < h.guards.size(); i++) {
                Guard g = h.guards.get(i);
                String r = g.resource;
                long token = h.tokens.get(i);
                if (g.sharing == Sharing.EXCLUSIVE) {
                    FencedResource f = fenced.computeIfAbsent(r, k -> new FencedResource(1, true));
                    if (f.enter(token)) {
                        f.exit(token);
                    } else {
                        candidates.add(new Candidate("write refused as stale while its lease said HELD", r, 0, List.of(h), now));
                    }
                }
                List<Held> conflicting = new ArrayList<>();
                for (Held o : open) {
                    int at = o.indexOf(r);
                    if (o != h && at >= 0 && (g.sharing != Sharing.SHARED || o.guards.get(at).sharing == Sharing.EXCLUSIVE)) {
                        LeaseState os = o.lease.state();
                        if (os == LeaseState.HELD) {
                            conflicting.add(o);
                        } else if (os == LeaseState.SUSPENDED && g.sharing == Sharing.EXCLUSIVE && o.tokens.get(at) < token) {
                            suspendedOnly.add(o);     // counted if it turns out LOST: told SUSPENDED, but LOST only after the successor wrote
                        }
                    }
                }
                int allowed = g.sharing == Sharing.BOUNDED ? g.permits : 1;
                if (conflicting.size() + 1 > allowed) {
                    conflicting.add(h);
                    candidates.add(new Candidate("conflicting leases all said HELD at a write", r, allowed, conflicting, now));
                }
            }
        }
    }

    /** {@code h}'s holder stopped writing. */
    void stoppedWriting(Held h) {
        synchronized (writes) {
            open.remove(h);
        }
    }

    /**
     * Before its owner closes {@code h}, which said {@code before}, with its nodes on the server
     * or not ({@code present}; null if the server could not be asked): it is not RELEASED yet,
     * and if its node is gone it is told LOST within three session timeouts.
     */
    void beforeClose(Held h, LeaseState before, Boolean present) {
        if (before == LeaseState.RELEASED) {
            violation("lease RELEASED before its owner closed it: c%d %s node present on the server: %s%s",
                    h.client, h.nodes, present, knownBugHint("released"));
        }
        if (Boolean.FALSE.equals(present) && before != LeaseState.LOST && before != LeaseState.RELEASED) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3L * sessionMs);
            while (!h.toldLost() && System.nanoTime() - deadline < 0) {
                FaultScheduleRunner.sleep(10);
            }
            if (!h.toldLost()) {
                violation("not told LOST: c%d's lease %s (session 0x%x) says %s %d ms after its node was found gone on the server; told %s",
                        h.client, h.nodes, h.session, h.lease.state(), 3L * sessionMs, h.told);
            }
        }
    }

    /**
     * Once its owner closed {@code h}: RELEASED only when its nodes are gone ({@code present}
     * asks the server), unless a cache keeps them ({@code keptByCache}: the orphan check sees
     * them go with the lock objects).
     */
    void afterClose(Held h, boolean keptByCache, Supplier<Boolean> present) {
        if (!keptByCache && h.lease.state() == LeaseState.RELEASED && Boolean.TRUE.equals(present.get())) {
            violation("lease RELEASED while its node still exists: c%d %s%s", h.client, h.nodes, knownBugHint("released"));
        }
    }

    /**
     * {@code h} was told LOST, its client reconnected with session {@code now}, and
     * {@code graceMs} later its nodes are on the server or not ({@code present}): a LOST
     * session's nodes are deleted on reconnection (DESIGN §2).
     */
    void lostNodeChecked(Held h, long now, long graceMs, Boolean present) {
        lostNodeChecks.incrementAndGet();
        if (Boolean.TRUE.equals(present)) {
            violation("LOST node kept: c%d's lease %s was told LOST, the client reconnected with session 0x%x, and %d ms later the old session's node is still on the server%s",
                    h.client, h.nodes, now, graceMs, knownBugHint("lostnode"));
        }
    }

    /** Client {@code client}'s request {@code what} (the schedule's {@code step}) threw {@code e}. */
    void acquireFailed(int client, Object step, String what, RuntimeException e) {
        violation("acquire failed: c%d %s (%s) threw %s%s", client, step, what, describe(e), knownBugHint(describe(e)));
    }

    /** Client {@code client}'s request {@code what} returned {@code lateMs} after its timeout {@code bound}: a few seconds at most. */
    void returned(int client, Object step, String what, long lateMs, Duration bound) {
        if (lateMs > 3_000) {
            violation("slow give-up: c%d %s (%s) returned %d ms after its %s timeout", client, step, what, lateMs, bound);
        }
    }

    /** Client {@code client}'s request (the schedule's {@code step}) is still {@code phase}, {@code slackMs} past its timeout. */
    void stranded(int client, Object step, Object phase, long slackMs) {
        violation("stranded: c%d's request (%s) still %s %d ms past its timeout%s", client, step, phase, slackMs,
                knownBugHint("stranded"));
    }

    /** Client {@code client} was not granted within {@code bound} once {@code after}. */
    void notGrantedAgain(int client, Duration bound, String after) {
        violation("liveness: c%d not granted within %s once %s%s", client, bound, after, knownBugHint("probe"));
    }

    /** Client {@code client}'s request once {@code after} threw {@code e}. */
    void grantAgainFailed(int client, String after, RuntimeException e) {
        violation("liveness: c%d's request once %s failed: %s%s", client, after, describe(e), knownBugHint(describe(e)));
    }

    /** {@code left} watches were on the server {@code graceMs} after every request ended and every fault healed. */
    void watchesLeft(int left, long graceMs) {
        if (left != 0) {
            violation("watches left: %d watch(es) on the server %d ms after every request ended and every fault healed", left,
                    graceMs);
        }
    }

    /** Lock nodes {@code left} after every client closed. */
    void orphans(List<String> left) {
        violation("orphans: lock nodes left after every client closed: %s", left);
    }

    /** The harness could not inject {@code fault} on client {@code client}. */
    void injectionFailed(Fault fault, int client, Exception e) {
        violation("harness: injecting %s on c%d failed: %s", fault, client, e);
    }

    // ---- the verdict --------------------------------------------------------------------------

    /** Judges the candidates now that every lease has settled (see the overview). */
    void resolve() {
        suspendedOnly.removeIf(h -> !h.toldLost());
        List<Candidate> all;
        synchronized (writes) {
            all = List.copyOf(candidates);
        }
        Set<String> said = ConcurrentHashMap.newKeySet();
        for (Candidate c : all) {
            List<Held> alive = c.leases.stream().filter(h -> !h.dead()).toList();
            if (alive.size() > c.allowed) {
                report(said, "exclusion: %s on %s: %s, none of them dead (two valid holders)", c.what, c.resource, c.leases);
            }
            for (Held h : c.leases) {
                if (!h.dead()) {
                    continue;
                }
                String unexcused = notExcusedByForce(h, c.atNanos);
                if (unexcused == null) {
                    lateForced.incrementAndGet();
                } else {
                    report(said, "late notice: %s still said HELD while a conflicting lease wrote on %s (%s); %s",
                            h, c.resource, c.leases, unexcused);
                }
            }
        }
    }

    /**
     * Why a forced expiry does not excuse {@code h}, a dead lease that said HELD at a conflicting
     * write at {@code atNanos}; null if it does (see the Overview).
     */
    private String notExcusedByForce(Held h, long atNanos) {
        ForcedExpiry f = expiredSessions.get(h.session);
        if (f == null) {
            return "its session ended without a forced expiry";
        }
        if (atNanos - f.fromNanos < 0) {
            return String.format("%d ms before its session was expired by force", TimeUnit.NANOSECONDS.toMillis(f.fromNanos - atNanos));
        }
        long after = atNanos - f.doneNanos;
        if (after > TimeUnit.MILLISECONDS.toNanos(sessionMs)) {
            return String.format("%d ms after its session was expired by force (that excuses a notice late by a session timeout, %d ms, at most)",
                    TimeUnit.NANOSECONDS.toMillis(after), sessionMs);
        }
        LOG.debug("{}: late notice, excused: {} ms after its session was expired by force: {}", subject,
                TimeUnit.NANOSECONDS.toMillis(after), h);
        return null;
    }

    List<String> violations() {
        return List.copyOf(violations);
    }

    int writes() {
        return written.get();
    }

    int lateNoticesAfterForcedExpiry() {
        return lateForced.get();
    }

    int successorWroteBeforeLost() {
        return suspendedOnly.size();
    }

    int lostNodeChecks() {
        return lostNodeChecks.get();
    }

    private void report(Set<String> said, String format, Object... args) {
        String s = String.format(format, args);
        if (said.add(s)) {
            violation("%s", s);
        }
    }

    private void violation(String format, Object... args) {
        String v = String.format(format, args);
        LOG.debug("{}: {}", subject, v);      // reported by the caller: the failing property names every violation
        violations.add(v);
    }

    static String describe(Throwable e) {
        StringBuilder s = new StringBuilder(e.toString());
        for (Throwable c = e.getCause(); c != null && c != e; c = c.getCause()) {
            s.append(" <- ").append(c);
        }
        return s.toString();
    }

    /** Names the known engine bug a violation looks like, so a report can tell old from new. */
    private static String knownBugHint(String what) {
        if (what.contains("NoNode")) {
            return " [looks like known bug: reaped directory under a create fails the acquire]";
        }
        if (what.equals("released")) {
            return " [looks like known bug: HoldLease/MultiLease report RELEASED while the node exists]";
        }
        if (what.equals("lostnode")) {
            return " [looks like known bug: a LOST session's node is not deleted after reconnect]";
        }
        if (what.equals("stranded") || what.equals("probe")) {
            return " [maybe known bug: exceptions in callbacks swallowed, or a LOST session's node kept]";
        }
        return "";
    }

    /** A granted lease and what the judge knows of it. */
    final class Held {
        final int client;
        final String what;
        final List<Guard> guards;
        final Lease lease;
        final List<Long> tokens = new ArrayList<>();
        final List<String> nodes = new ArrayList<>();
        final List<LeaseState> told = new CopyOnWriteArrayList<>();
        final long session;
        /** When its acquire returned (this JVM's monotonic clock). */
        final long grantedNanos = System.nanoTime();

        private Held(int client, String what, List<Guard> guards, Lease lease, ToLongFunction<String> ownerOf,
                LongSupplier clientSession) {
            this.client = client;
            this.what = what;
            this.guards = guards;
            this.lease = lease;
            lease.addListener((l, s) -> told.add(s));
            if (lease instanceof MultiLease m) {
                for (Lease part : m.components()) {
                    tokens.add(part.fencingToken());
                    nodes.add(part.nodePath());
                }
            } else {
                tokens.add(lease.fencingToken());
                nodes.add(lease.nodePath());
            }
            long owner = ownerOf.applyAsLong(nodes.get(0));
            this.session = owner != 0 ? owner : clientSession.getAsLong();
        }

        /** The index of the guard on resource {@code r} among this lease's, or -1 if it holds none there. */
        int indexOf(String r) {
            for (int i = 0; i < guards.size(); i++) {
                if (guards.get(i).resource.equals(r)) {
                    return i;
                }
            }
            return -1;
        }

        boolean toldLost() {
            return told.contains(LeaseState.LOST) || lease.state() == LeaseState.LOST;
        }

        boolean forcedExpiry() {
            return expiredSessions.containsKey(session);
        }

        boolean dead() {
            return toldLost() || forcedExpiry();
        }

        @Override
        public String toString() {
            return "c" + client + ":" + what + tokens + "(session 0x" + Long.toHexString(session) + ", told " + told
                    + (forcedExpiry() ? ", expired by force" : "") + ")";
        }
    }
}
