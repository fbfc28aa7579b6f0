package io.zklock.micrometer;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.zklock.core.LeaseState;
import io.zklock.core.OwnerInfo;
import io.zklock.core.observe.LockObserver;
import io.zklock.core.observe.LockObservers;
import io.zklock.core.observe.RequestObserver;
import org.apache.curator.framework.CuratorFramework;

/**
 * Micrometer meters (and, if asked, observations) for the zklock locks of one client or of the
 * whole process, recipe by recipe, until closed:
 *
 * <pre>{@code
 * try (ZkLockMetrics metrics = ZkLockMetrics.builder().client(curator).bind(registry)) {
 *     ... // every ZkMutex, ZkSemaphore, ZkReadWriteLock and ZkMultiLock made with curator is measured
 * }
 * }</pre>
 *
 * <p><b>Scope.</b> A binding records the locks of the {@code CuratorFramework} client given to
 * {@link Builder#client} (an application's: two applications in one JVM, each with its client
 * and binding, each record their own locks only), or every lock of the process without one
 * ({@link #bind(MeterRegistry)}). Each binding installs its own observer
 * ({@link LockObservers#install(CuratorFramework, LockObserver)}); nothing is shared between
 * bindings.
 *
 * <table>
 * <caption>The meters</caption>
 * <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 * <tr><td>{@value #ACQUIRE}</td><td>timer</td><td>mode, outcome</td><td>how long each
 *     acquisition waited, by how it ended: {@code granted}, {@code timed_out},
 *     {@code cancelled} (interrupted or cancelled by its caller), {@code failed} (a closed
 *     client, a ZooKeeper failure, a refusal by the recipe)</td></tr>
 * <tr><td>{@value #HOLD}</td><td>timer</td><td>mode</td><td>how long each granted node was held,
 *     from its grant until it was released (a lost lease is counted as lost instead)</td></tr>
 * <tr><td>{@value #LOST}</td><td>counter</td><td>mode</td><td>leases lost: their session expired or
 *     the client closed while they were held, or (for a lease that opted in to revocation)
 *     another client deleted their node</td></tr>
 * <tr><td>{@value #SUSPENDED}</td><td>counter</td><td>mode</td><td>times a held lease was suspended
 *     by a connection loss</td></tr>
 * <tr><td>{@value #REQUESTS}</td><td>summary</td><td>mode</td><td>ZooKeeper requests each
 *     acquisition issued: 2 for an uncontended mutex, 1 for a re-acquire nobody else
 *     interleaved with</td></tr>
 * <tr><td>{@value #QUEUE}</td><td>summary</td><td>mode</td><td>nodes ahead of the acquisition's node
 *     when it first looked at the queue</td></tr>
 * <tr><td>{@value #HELD}</td><td>gauge</td><td>mode</td><td>nodes granted and not yet released
 *     or lost, now (a cached idle node included: it is still held)</td></tr>
 * <tr><td>{@value #WAITING}</td><td>gauge</td><td>mode</td><td>acquisitions begun and not yet
 *     ended, now</td></tr>
 * </table>
 *
 * <p><b>Observations.</b> Given an {@link ObservationRegistry} ({@link Builder#observations}),
 * each acquisition is also a Micrometer {@link Observation} named {@value #WAIT_OBSERVATION},
 * started on the caller's thread (so it is a child of the caller's current observation, and
 * with a tracing bridge a span of the caller's trace) and stopped when the acquisition ends;
 * each granted node's hold is one named {@value #HOLD_OBSERVATION}, from its grant to its
 * release or loss, a child of the caller's observation (or of the wait, if the caller had
 * none). Their key values: {@code zklock.mode} and {@code zklock.outcome} (the wait's) or
 * {@code zklock.end} ({@code released} or {@code lost}, the hold's), low cardinality;
 * {@code zklock.path}, and for a wait that queued behind a node {@code zklock.holder} (that
 * node's owner: thread, process id and host, as its data names them), {@code zklock.holder.node}
 * and, when the holder ran in a trace, {@code zklock.holder.trace_id}, high cardinality. The
 * node waited behind is the one right ahead in the queue: the holder when the waiter is next
 * in line. With {@link Builder#traceIds}, each acquisition writes its caller's trace id into
 * its node's owner data (no extra request: it goes with the create), which is how a waiter
 * names the holder's trace.
 *
 * <p>The {@code mode} tag is {@code mutex}, {@code read}, {@code write}, {@code permit} (a
 * semaphore) or {@code multi} (a multi-lock's acquisition, one per multi-lock acquire; the
 * nodes it holds report their hold time, suspensions and losses under their own locks' modes).
 * Re-entry by a thread that already holds a lock makes no request and is not measured. Lock
 * paths are not tags unless {@link Builder#pathTags(boolean)} asks for them: each path is a
 * new time series.
 *
 * <p>Meters are registered on first use and stay in the registry after {@link #close()}, which
 * only stops the recording. Bind once per registry: two bindings count everything twice.
 */
public final class ZkLockMetrics implements AutoCloseable {
    /** The acquisition wait timer. */
    public static final String ACQUIRE = "zklock.acquire";
    /** The hold time timer. */
    public static final String HOLD = "zklock.hold";
    /** The lost leases counter. */
    public static final String LOST = "zklock.lease.lost";
    /** The suspended leases counter. */
    public static final String SUSPENDED = "zklock.lease.suspended";
    /** The ZooKeeper requests per acquisition summary. */
    public static final String REQUESTS = "zklock.acquire.requests";
    /** The queue length per acquisition summary. */
    public static final String QUEUE = "zklock.acquire.queue";
    /** The gauge of nodes held now. */
    public static final String HELD = "zklock.leases.held";
    /** The gauge of acquisitions waiting now. */
    public static final String WAITING = "zklock.acquire.waiting";
    /** The observation of an acquisition's wait. */
    public static final String WAIT_OBSERVATION = "zklock.lock.wait";
    /** The observation of a granted node's hold. */
    public static final String HOLD_OBSERVATION = "zklock.lock.hold";

    private final Recorder recorder;
    private final LockObservers.Installation installation;

    private ZkLockMetrics(Recorder recorder, CuratorFramework client) {
        this.recorder = recorder;
        this.installation = client == null ? LockObservers.install(recorder) : LockObservers.install(client, recorder);
    }

    /**
     * The nodes this binding's locks hold now, over every mode and path: the sum of the
     * {@value #HELD} gauges.
     *
     * @return the count
     */
    public long leasesHeld() {
        return recorder.held.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /**
     * The acquisitions of this binding's locks waiting now, over every mode and path: the sum
     * of the {@value #WAITING} gauges.
     *
     * @return the count
     */
    public long requestsWaiting() {
        return recorder.waiting.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /**
     * Measures every lock of this process into {@code registry}, without path tags, until the
     * returned binding is closed.
     *
     * @param registry where the meters go
     * @return the binding; close it to stop recording
     * @throws IllegalArgumentException if the registry is null
     */
    public static ZkLockMetrics bind(MeterRegistry registry) {
        return builder().bind(registry);
    }

    /**
     * Options for a binding.
     *
     * @return a builder with the defaults: no path tags, no extra tags
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Stops recording; the meters stay registered with what they counted. Idempotent. */
    @Override
    public void close() {
        installation.close();
    }

    /** Options of a {@link ZkLockMetrics} binding. */
    public static final class Builder {
        private boolean pathTags;
        private Tags tags = Tags.empty();
        private CuratorFramework client;
        private ObservationRegistry observations;
        private Supplier<String> traceIds;

        private Builder() {
        }

        /**
         * Whether every meter also carries a {@code path} tag: the lock's path (a multi-lock's
         * paths joined by commas). Off by default: every path is a time series of its own, so
         * turn it on only for a bounded set of lock paths.
         *
         * @param on true to tag meters by lock path
         * @return this builder
         */
        public Builder pathTags(boolean on) {
            this.pathTags = on;
            return this;
        }

        /**
         * Tags added to every meter of the binding (an application or cluster name, say).
         *
         * @param extra the tags
         * @return this builder
         * @throws IllegalArgumentException if the tags are null
         */
        public Builder tags(Iterable<Tag> extra) {
            if (extra == null) {
                throw new IllegalArgumentException("tags are null");
            }
            this.tags = this.tags.and(extra);
            return this;
        }

        /**
         * Records only the locks made with {@code client} (see the class comment's Scope);
         * without it, every lock of the process.
         *
         * @param client the application's client
         * @return this builder
         * @throws IllegalArgumentException if the client is null
         */
        public Builder client(CuratorFramework client) {
            if (client == null) {
                throw new IllegalArgumentException("client is null");
            }
            this.client = client;
            return this;
        }

        /**
         * Also makes an observation of each acquisition's wait and each node's hold in
         * {@code registry} (see the class comment's Observations).
         *
         * @param registry where the observations go; a no-op registry makes none
         * @return this builder
         * @throws IllegalArgumentException if the registry is null
         */
        public Builder observations(ObservationRegistry registry) {
            if (registry == null) {
                throw new IllegalArgumentException("observation registry is null");
            }
            this.observations = registry;
            return this;
        }

        /**
         * The trace id of the caller's thread (a tracer's current span's, say), asked on the
         * caller's thread when an acquisition begins and written into its node's owner data, so
         * that its waiters can name it; null from the supplier means none. Only 1 to 64 letters,
         * digits, {@code -} or {@code _} are written.
         *
         * @param currentTraceId gives the current trace id, or null
         * @return this builder
         * @throws IllegalArgumentException if the supplier is null
         */
        public Builder traceIds(Supplier<String> currentTraceId) {
            if (currentTraceId == null) {
                throw new IllegalArgumentException("trace id supplier is null");
            }
            this.traceIds = currentTraceId;
            return this;
        }

        /**
         * Starts measuring the locks of the binding's scope into {@code registry}.
         *
         * @param registry where the meters go
         * @return the binding; close it to stop recording
         * @throws IllegalArgumentException if the registry is null
         */
        public ZkLockMetrics bind(MeterRegistry registry) {
            if (registry == null) {
                throw new IllegalArgumentException("registry is null");
            }
            ObservationRegistry observing = observations == null || observations.isNoop() ? null : observations;
            return new ZkLockMetrics(new Recorder(registry, tags, pathTags, observing, traceIds), client);
        }
    }

    /**
     * The observer behind a binding: one Micrometer meter per name and tag set, found on each
     * event; a counter per tag set behind each gauge, moved by the paired events (a start and
     * its end, a grant and its release or loss); a {@link Follower} per request when observing.
     */
    private static final class Recorder implements LockObserver {
        private final MeterRegistry registry;
        private final Tags common;
        private final ObservationRegistry observations;
        private final Supplier<String> traceIds;
        final Map<Tags, AtomicLong> held = new ConcurrentHashMap<>();
        final Map<Tags, AtomicLong> waiting = new ConcurrentHashMap<>();
        private final boolean pathTags;
        private final Meter.MeterProvider<Timer> acquire;
        private final Meter.MeterProvider<Timer> hold;
        private final Meter.MeterProvider<Counter> lost;
        private final Meter.MeterProvider<Counter> suspended;
        private final Meter.MeterProvider<DistributionSummary> requests;
        private final Meter.MeterProvider<DistributionSummary> queue;

        Recorder(MeterRegistry registry, Tags tags, boolean pathTags, ObservationRegistry observations, Supplier<String> traceIds) {
            this.registry = registry;
            this.common = tags;
            this.observations = observations;
            this.traceIds = traceIds;
            this.pathTags = pathTags;
            this.acquire = Timer.builder(ACQUIRE).tags(tags)
                    .description("Time each lock acquisition waited, by how it ended").withRegistry(registry);
            this.hold = Timer.builder(HOLD).tags(tags)
                    .description("Time each granted lock node was held, until released").withRegistry(registry);
            this.lost = Counter.builder(LOST).tags(tags)
                    .description("Leases lost with their session").withRegistry(registry);
            this.suspended = Counter.builder(SUSPENDED).tags(tags)
                    .description("Held leases suspended by a connection loss").withRegistry(registry);
            this.requests = DistributionSummary.builder(REQUESTS).tags(tags).baseUnit("requests")
                    .description("ZooKeeper requests each lock acquisition issued").withRegistry(registry);
            this.queue = DistributionSummary.builder(QUEUE).tags(tags).baseUnit("nodes")
                    .description("Nodes ahead of each lock acquisition when it first looked").withRegistry(registry);
        }

        @Override
        public RequestObserver acquireStarted(AcquireStart start) {
            gauge(waiting, WAITING, "Lock acquisitions waiting now", tags(start.path(), start.mode())).incrementAndGet();
            if (observations == null && traceIds == null) {
                return null;
            }
            String traceId = traceIds == null ? null : traceIds.get();
            return observations == null ? new TraceOnly(traceId) : new Follower(this, start, traceId);
        }

        @Override
        public void leaseGranted(LeaseEvent event) {
            gauge(held, HELD, "Lock nodes held now", tags(event.path(), event.mode())).incrementAndGet();
        }

        /** The counter behind the gauge {@code name} with {@code tags}: registered on first use. */
        private AtomicLong gauge(Map<Tags, AtomicLong> counters, String name, String description, Tags tags) {
            AtomicLong counter = counters.get(tags);
            if (counter != null) {
                return counter;
            }
            return counters.computeIfAbsent(tags, t -> {
                AtomicLong made = new AtomicLong();
                Gauge.builder(name, made, AtomicLong::get).tags(common).tags(t).description(description).strongReference(true)
                        .register(registry);
                return made;
            });
        }

        @Override
        public void acquireEnded(AcquireEvent event) {
            gauge(waiting, WAITING, "Lock acquisitions waiting now", tags(event.path(), event.mode())).decrementAndGet();
            Tags mode = tags(event.path(), event.mode());
            acquire.withTags(mode.and("outcome", event.outcome().name().toLowerCase(Locale.ROOT)))
                    .record(event.waitNanos(), TimeUnit.NANOSECONDS);
            requests.withTags(mode).record(event.requests());
            queue.withTags(mode).record(event.queueLength());
        }

        @Override
        public void leaseChanged(LeaseEvent event) {
            if (event.state() == LeaseState.RELEASED || event.state() == LeaseState.LOST) {
                gauge(held, HELD, "Lock nodes held now", tags(event.path(), event.mode())).decrementAndGet();
            }
            if (event.state() == LeaseState.RELEASED) {
                hold.withTags(tags(event.path(), event.mode())).record(event.heldNanos(), TimeUnit.NANOSECONDS);
            } else if (event.state() == LeaseState.LOST) {
                lost.withTags(tags(event.path(), event.mode())).increment();
            } else if (event.state() == LeaseState.SUSPENDED) {
                suspended.withTags(tags(event.path(), event.mode())).increment();
            }
        }

        private Tags tags(String path, String mode) {
            return pathTags ? Tags.of("mode", mode, "path", path) : Tags.of("mode", mode);
        }

        @Override
        public String toString() {
            return "ZkLockMetrics" + (pathTags ? "[path tags]" : "") + (observations == null ? "" : "[observations]");
        }
    }

    /** A request whose caller's trace id goes into its node, with no observation. */
    private record TraceOnly(String traceId) implements RequestObserver {
    }

    /**
     * One request's observations: its wait, started here on the caller's thread and stopped at
     * its end; a hold per granted node (a multi-lock's request has several), each stopped at
     * that node's release or loss.
     */
    private static final class Follower implements RequestObserver {
        private final ObservationRegistry registry;
        private final Observation parent;      // the caller's, or the wait
        private final Observation wait;
        private final String traceId;
        private final Map<String, Observation> holds = new ConcurrentHashMap<>(2);

        Follower(Recorder recorder, LockObserver.AcquireStart start, String traceId) {
            this.registry = recorder.observations;
            this.traceId = traceId;
            Observation caller = registry.getCurrentObservation();
            this.wait = Observation.createNotStarted(WAIT_OBSERVATION, registry)
                    .contextualName("zklock wait " + start.mode())
                    .lowCardinalityKeyValue("zklock.mode", start.mode())
                    .highCardinalityKeyValue("zklock.path", start.path())
                    .start();
            this.parent = caller != null ? caller : wait;
        }

        @Override
        public String traceId() {
            return traceId;
        }

        @Override
        public void waitsBehind(LockObserver.WaitedNode node) {
            OwnerInfo owner = node.owner();
            node.traceId().ifPresent(id -> wait.highCardinalityKeyValue("zklock.holder.trace_id", id));
            wait.highCardinalityKeyValue("zklock.holder.node", node.nodePath());
            wait.event(Observation.Event.of("zklock.waits.behind", "waits behind " + node.nodePath()));
            // the holder last: a reader that sees it sees the rest
            wait.highCardinalityKeyValue("zklock.holder", owner.thread() + " (pid " + owner.pid() + " on " + owner.host() + ")");
        }

        @Override
        public void ended(LockObserver.AcquireEvent event) {
            wait.lowCardinalityKeyValue("zklock.outcome", event.outcome().name().toLowerCase(Locale.ROOT));
            wait.stop();
        }

        @Override
        public void leaseGranted(LockObserver.LeaseEvent event) {
            holds.put(event.path(), Observation.createNotStarted(HOLD_OBSERVATION, registry)
                    .contextualName("zklock hold " + event.mode())
                    .parentObservation(parent)
                    .lowCardinalityKeyValue("zklock.mode", event.mode())
                    .highCardinalityKeyValue("zklock.path", event.path())
                    .start());
        }

        @Override
        public void leaseChanged(LockObserver.LeaseEvent event) {
            if (event.state() == LeaseState.SUSPENDED) {
                Observation hold = holds.get(event.path());
                if (hold != null) {
                    hold.event(Observation.Event.of("zklock.suspended"));
                }
            } else if (event.state() == LeaseState.RELEASED || event.state() == LeaseState.LOST) {
                Observation hold = holds.remove(event.path());
                if (hold != null) {
                    hold.lowCardinalityKeyValue("zklock.end", event.state().name().toLowerCase(Locale.ROOT));
                    hold.stop();
                }
            }
        }
    }
}
