package io.zklock.micrometer;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.zklock.core.LeaseState;
import io.zklock.core.observe.LockObserver;
import io.zklock.core.observe.LockObservers;

/**
 * Micrometer meters for every zklock lock of this process, recipe by recipe, until closed:
 *
 * <pre>{@code
 * try (ZkLockMetrics metrics = ZkLockMetrics.bind(registry)) {
 *     ... // every ZkMutex, ZkSemaphore, ZkReadWriteLock and ZkMultiLock is measured
 * }
 * }</pre>
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
 * </table>
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

    private final LockObservers.Installation installation;

    private ZkLockMetrics(Recorder recorder) {
        this.installation = LockObservers.install(recorder);
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
         * Starts measuring every lock of this process into {@code registry}.
         *
         * @param registry where the meters go
         * @return the binding; close it to stop recording
         * @throws IllegalArgumentException if the registry is null
         */
        public ZkLockMetrics bind(MeterRegistry registry) {
            if (registry == null) {
                throw new IllegalArgumentException("registry is null");
            }
            return new ZkLockMetrics(new Recorder(registry, tags, pathTags));
        }
    }

    /** The observer behind a binding: one Micrometer meter per name and tag set, found on each event. */
    private static final class Recorder implements LockObserver {
        private final boolean pathTags;
        private final Meter.MeterProvider<Timer> acquire;
        private final Meter.MeterProvider<Timer> hold;
        private final Meter.MeterProvider<Counter> lost;
        private final Meter.MeterProvider<Counter> suspended;
        private final Meter.MeterProvider<DistributionSummary> requests;
        private final Meter.MeterProvider<DistributionSummary> queue;

        Recorder(MeterRegistry registry, Tags tags, boolean pathTags) {
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
        public void acquireEnded(AcquireEvent event) {
            Tags mode = tags(event.path(), event.mode());
            acquire.withTags(mode.and("outcome", event.outcome().name().toLowerCase(Locale.ROOT)))
                    .record(event.waitNanos(), TimeUnit.NANOSECONDS);
            requests.withTags(mode).record(event.requests());
            queue.withTags(mode).record(event.queueLength());
        }

        @Override
        public void leaseChanged(LeaseEvent event) {
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
            return "ZkLockMetrics" + (pathTags ? "[path tags]" : "");
        }
    }
}
