package io.zklock.spring.integration;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.zklock.core.LeaseState;
import io.zklock.leader.Leadership;
import io.zklock.leader.ZkLeaderElection;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/*
 * Overview.
 *
 * A Spring Integration leader initiator driven by the election's lease instead of a heartbeat
 * loop. While running, the candidate is always in exactly one of these:
 *   - JOINING: one asynchronous candidacy (ZkLeaderElection.leadershipAsync) waits on a watch of
 *     the candidate ahead: a standby sends nothing while the leader keeps leading;
 *   - LEADING: the candidacy was granted; Candidate.onGranted and OnGrantedEvent were told, and a
 *     listener on the leadership revokes at its first change away from HELD (SUSPENDED, LOST,
 *     RELEASED), so a deposed leader hears it when its lease does, not at a next poll.
 * A revocation (the lease's change, Context.yield(), stop()) tells Candidate.onRevoked and
 * OnRevokedEvent, steps down (closes the leadership), and, while running, joins again at the back.
 * A candidacy that fails (the client closed, ZooKeeper refused) publishes
 * OnFailedToAcquireMutexEvent and is tried again after a pause. Every call to the candidate and
 * every event runs on the initiator's one thread, in order; the lease's listener only hands over
 * to it.
 */
/**
 * Elects a Spring Integration {@link Candidate} leader of its role through a
 * {@link ZkLeaderElection}, and publishes {@code OnGrantedEvent} / {@code OnRevokedEvent} as
 * Spring Integration's own initiators do, so a {@code SmartLifecycleRoleController} starts and
 * stops the endpoints of the role on the leader only.
 *
 * <p>Unlike {@code LockRegistryLeaderInitiator}, nothing polls: a standby waits on a ZooKeeper
 * watch of the candidate ahead of it and sends no request while the leader leads, and the leader
 * is revoked as soon as its leadership leaves {@code HELD} (connection lost, session expired, node
 * deleted). {@link Context#yield()} steps down and joins again at the back of the queue. The
 * leadership's {@linkplain Leadership#epoch() epoch} ({@link #getLeadership()}) fences the
 * leader's writes.
 *
 * <pre>{@code
 * @Bean
 * ZkLeaderInitiator leaderInitiator(CuratorFramework client) {
 *     return new ZkLeaderInitiator(client, "/elections/orders", new DefaultCandidate("node-1", "orders"));
 * }
 * }</pre>
 */
public final class ZkLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware, DisposableBean {
    private static final Logger LOG = LoggerFactory.getLogger(ZkLeaderInitiator.class);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final ZkLeaderElection election;
    private final Candidate candidate;
    private final LeaderContext context = new LeaderContext();
    private LeaderEventPublisher publisher = new DefaultLeaderEventPublisher();
    private boolean publisherSet;
    private boolean autoStartup = true;
    private int phase = Integer.MAX_VALUE - 1000;   // as Spring Integration's initiators: after the endpoints
    // guarded by this
    private ScheduledExecutorService thread;
    private CompletableFuture<Leadership> joining;
    private Leadership leading;
    private boolean running;

    /**
     * An initiator on its own election, named by the candidate's id.
     *
     * @param client a started Curator client
     * @param path the election's path
     * @param candidate the candidate: its {@code getId()} is the participant id, its
     *        {@code getRole()} the role published
     * @throws IllegalArgumentException naming the bad argument
     */
    public ZkLeaderInitiator(CuratorFramework client, String path, Candidate candidate) {
        this(new ZkLeaderElection(client, path, checked(candidate).getId()), candidate);
    }

    /**
     * An initiator on {@code election} (which it closes when destroyed).
     *
     * @param election the election
     * @param candidate the candidate
     * @throws IllegalArgumentException if an argument is null
     */
    public ZkLeaderInitiator(ZkLeaderElection election, Candidate candidate) {
        if (election == null) {
            throw new IllegalArgumentException("election is null");
        }
        this.election = election;
        this.candidate = checked(candidate);
    }

    private static Candidate checked(Candidate candidate) {
        if (candidate == null) {
            throw new IllegalArgumentException("candidate is null");
        }
        return candidate;
    }

    /** Publishes through Spring Integration's default publisher on the context's event publisher, unless one was set. */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        if (!publisherSet) {
            this.publisher = new DefaultLeaderEventPublisher(applicationEventPublisher);
        }
    }

    /**
     * @param publisher publishes the granted, revoked and failed-to-acquire events
     * @throws IllegalArgumentException if it is null
     */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        if (publisher == null) {
            throw new IllegalArgumentException("publisher is null");
        }
        this.publisher = publisher;
        this.publisherSet = true;
    }

    /** @param autoStartup whether the context starts the initiator (default true) */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /** @param phase the lifecycle phase (default {@code Integer.MAX_VALUE - 1000}) */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /** {@return the context handed to the candidate: whether it leads, its role, and yield()} */
    public Context getContext() {
        return context;
    }

    /** {@return the candidate's leadership while it leads (its epoch fences the leader's writes)} */
    public synchronized Optional<Leadership> getLeadership() {
        return Optional.ofNullable(leading);
    }

    /** {@return the election the candidate runs in} */
    public ZkLeaderElection getElection() {
        return election;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "zklock-leader-" + candidate.getRole());
            t.setDaemon(true);
            return t;
        });
        join();
    }

    /** Withdraws the candidacy, or revokes and steps down if leading; waits for the candidate to hear it. */
    @Override
    public void stop() {
        ScheduledExecutorService was;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            if (joining != null) {
                joining.cancel(false);
                joining = null;
            }
            was = thread;
            Leadership l = leading;
            if (l != null) {
                was.execute(() -> revoke(l));
            }
        }
        was.shutdown();
        try {
            if (!was.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("the candidate of role {} did not return from its revocation within 10 s", candidate.getRole());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    /** Stops, and closes the election. */
    @Override
    public void destroy() {
        stop();
        election.close();
    }

    // ---- the steps --------------------------------------------------------------------------

    /** Starts one candidacy; under this object's monitor, while running. */
    private void join() {
        CompletableFuture<Leadership> candidacy = election.leadershipAsync();
        joining = candidacy;
        candidacy.whenComplete((leadership, error) -> {
            synchronized (this) {
                if (joining != candidacy || !running) {
                    if (leadership != null) {
                        leadership.close();    // stopped while the grant was on its way
                    }
                    return;
                }
                joining = null;
                if (error != null) {
                    thread.execute(() -> failed(error));
                    return;
                }
                leading = leadership;
                thread.execute(() -> granted(leadership));
            }
        });
    }

    private void granted(Leadership leadership) {
        leadership.addListener((lease, state) -> {
            if (state != LeaseState.HELD) {
                handOver(() -> revoke(leadership));
            }
        });
        if (!leadership.isValid()) {
            revoke(leadership);                // changed before the listener was added
            return;
        }
        LOG.info("{} leads role {} (epoch {})", candidate.getId(), candidate.getRole(), leadership.epoch());
        try {
            candidate.onGranted(context);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("the candidate of role {} threw on its grant; it steps down", candidate.getRole(), e);
            revoke(leadership);
            return;
        }
        publisher.publishOnGranted(this, context, candidate.getRole());
    }

    /** Tells the candidate and the context that {@code leadership} is over, steps down, and joins again while running. */
    private void revoke(Leadership leadership) {
        synchronized (this) {
            if (leading != leadership) {
                return;                        // revoked already
            }
            leading = null;
        }
        LOG.info("{} no longer leads role {} (its leadership is {})", candidate.getId(), candidate.getRole(), leadership.state());
        try {
            candidate.onRevoked(context);
        } catch (RuntimeException e) {
            LOG.warn("the candidate of role {} threw on its revocation", candidate.getRole(), e);
        }
        publisher.publishOnRevoked(this, context, candidate.getRole());
        leadership.close();
        synchronized (this) {
            if (running && joining == null) {
                join();
            }
        }
    }

    private void failed(Throwable error) {
        LOG.warn("the candidate of role {} could not join the election {}: {}", candidate.getRole(), election.path(), error.toString());
        publisher.publishOnFailedToAcquire(this, context, candidate.getRole());
        synchronized (this) {
            if (running) {
                thread.schedule(() -> {
                    synchronized (this) {
                        if (running && joining == null && leading == null) {
                            join();
                        }
                    }
                }, RETRY.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Runs {@code step} on the initiator's thread, unless it is shut down (stop() revokes itself then). */
    private synchronized void handOver(Runnable step) {
        if (thread != null && !thread.isShutdown()) {
            thread.execute(step);
        }
    }

    /** The context the candidate is handed. */
    private final class LeaderContext implements Context {
        @Override
        public boolean isLeader() {
            Leadership l = getLeadership().orElse(null);
            return l != null && l.isValid();
        }

        /** Steps down: the candidate is revoked, and joins again at the back of the queue. */
        @Override
        public void yield() {
            getLeadership().ifPresent(l -> handOver(() -> revoke(l)));
        }

        @Override
        public String getRole() {
            return candidate.getRole();
        }

        @Override
        public String toString() {
            return "ZkLeaderInitiator.Context[role " + candidate.getRole() + ", leader " + isLeader() + "]";
        }
    }

    @Override
    public String toString() {
        return "ZkLeaderInitiator[" + election.path() + ", " + candidate.getId() + ", role " + candidate.getRole() + "]";
    }
}
