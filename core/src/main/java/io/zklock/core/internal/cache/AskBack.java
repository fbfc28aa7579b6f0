package io.zklock.core.internal.cache;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.zklock.core.internal.LockContext;
import io.zklock.core.internal.NodeData;
import io.zklock.core.internal.zk.ClientTag;
import io.zklock.core.internal.zk.NodePaths;
import io.zklock.core.internal.zk.Threads;
import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiter's side of the cache: the asks of one wait (the ASK of the package's Overview).
 * Which nodes it asks is {@link WhoAsks}'s; how, per node asked, once per wait:
 * <ol>
 *   <li>READ: getData; gone, or already asked back (by anyone): done.</li>
 *   <li>WRITE: setData(data + the ask, version read). BADVERSION (written meanwhile): 1, up to
 *       {@code MAX_TRIES} in all.</li>
 * </ol>
 * Connection trouble, or BADVERSION on every try, asks again after {@code RETRY_MS}, until the
 * wait ends (a reply of trouble can come after the reconnection's listing, so the next listing
 * is not enough). Any other refusal (a node whose ACL does not let us write) is logged: the
 * cached node then goes when its holder stops granting it again (the age limit).
 *
 * <p>Every call here (the wait's decision, each reply, the escalation's and the retries'
 * timers) runs as a step of the request, on {@code steps}: its one state value needs no lock of
 * its own (the request package's serialisation rule).
 */
public final class AskBack {
    private static final Logger LOG = LoggerFactory.getLogger(AskBack.class);
    private static final int MAX_TRIES = 3;
    private static final long RETRY_MS = 500;

    /** Where the wait's asks are: waiting, its escalation scheduled, escalated (every cached node ahead asked), stopped. */
    private enum Phase { WAITING, ESCALATION_SCHEDULED, ESCALATED, STOPPED }

    /** The one state value: the phase, and the last listing asked about (what the escalation asks on). */
    private record State(Phase phase, List<LockNode> latest) { }

    private final LockContext context;
    private final LockNode ours;
    private final Executor steps;
    private State state = new State(Phase.WAITING, List.of());   // changed in steps only
    private Set<String> asked;                 // changed in steps only; made at the first ask (most waits ask nobody)

    /**
     * @param context the directory
     * @param ours the waiting node
     * @param steps runs a step of the request (under its lock)
     */
    public AskBack(LockContext context, LockNode ours, Executor steps) {
        this.context = context;
        this.ours = ours;
        this.steps = steps;
    }

    /**
     * Asks the cached nodes ahead of ours in {@code sorted} that {@link WhoAsks#askedBy} names and
     * this wait did not ask yet; schedules the escalation if waiting longer would ask more. Call
     * from a step.
     */
    public void ask(List<LockNode> sorted) {
        Phase phase = state.phase();
        String tag = ClientTag.of(context.monitor());
        askAll(WhoAsks.askedBy(sorted, ours, context.maxLeases(), context.driver(), phase == Phase.ESCALATED, tag));
        if (phase == Phase.WAITING && WhoAsks.escalationAsksMore(sorted, ours, context.maxLeases(), context.driver(), tag)) {
            phase = Phase.ESCALATION_SCHEDULED;   // the rest of them if the wait lasts: no permit idle past the bound
            LeaseCaches registry = LeaseCaches.of(context.monitor());   // one holder at a time: only heard nodes wait
            long bound = context.maxLeases() > 1 ? registry.escalationNanos() : registry.heardBoundNanos();
            Threads.TIMER.schedule(() -> steps.execute(this::escalate), bound, TimeUnit.NANOSECONDS);
        }
        state = new State(phase, sorted);
    }

    /** The wait ended: nothing more is asked. Call from a step. */
    public void stop() {
        state = new State(Phase.STOPPED, List.of());
    }

    private void escalate() {
        if (state.phase() != Phase.STOPPED) {
            state = new State(Phase.ESCALATED, state.latest());
            askAll(WhoAsks.askedBy(state.latest(), ours, context.maxLeases(), context.driver(), true, null));
        }
    }

    private void askAll(List<LockNode> nodes) {
        for (LockNode node : nodes) {
            if (asked == null) {
                asked = new HashSet<>();
            }
            if (asked.add(node.name())) {
                read(node.name(), 1);
            }
        }
    }

    private void retryLater(String name) {
        if (state.phase() != Phase.STOPPED) {
            Threads.TIMER.schedule(() -> steps.execute(() -> {
                if (state.phase() != Phase.STOPPED) {
                    read(name, 1);
                }
            }), RETRY_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void read(String name, int attempt) {
        String path = NodePaths.child(context.path(), name);
        context.port().data(path, null).whenComplete((reply, error) -> steps.execute(() -> {
            if (error != null || reply.connectionTrouble()) {
                retryLater(name);
            } else if (!reply.ok() && !reply.noNode()) {
                LOG.warn("could not read {} to ask it back ({}); it goes when its holder stops re-granting it", path, reply.rc());
            } else if (reply.ok() && !NodeData.askedBack(reply.data())) {
                write(name, path, reply.data(), reply.stat().getVersion(), attempt);
            }
        }));
    }

    private void write(String name, String path, byte[] data, int version, int attempt) {
        context.port().setData(path, NodeData.withAskBack(data, ours.name()), version).whenComplete((reply, error) -> steps.execute(() -> {
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
        }));
    }
}
