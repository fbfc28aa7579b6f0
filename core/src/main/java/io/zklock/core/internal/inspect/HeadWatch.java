package io.zklock.core.internal.inspect;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.zklock.core.LockPaths;
import io.zklock.core.internal.zk.CuratorPort;
import io.zklock.core.internal.zk.SessionListener;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.Watches;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview.
 *
 * One watch per client and lock directory on the head of its queue (its first lock node, in
 * queue order), shared by every subscriber of that client and directory: an election's observers
 * see its leader through it. While it has subscribers, repeatedly:
 *   1. LIST   children(dir), with no watch.
 *   2. WATCH  - no such directory: exists(dir) with a watch, which fires when it is made;
 *             - no lock node in it: children(dir) with a watch, which fires when one joins (a
 *               listing that already shows one: 1);
 *             - else data(head) with a watch: the read gives the head's data and Stat (its
 *               czxid, its creation), and the watch fires when the node goes or its data changes
 *               (NoNode: 1 at once).
 *   3. On the watch's event: 1. On a reconnection: 1 (a new session has none of the old
 *      watches; in the same one it costs one listing).
 * Subscribers are told the head after each read that names another node than the one told
 * before (or none). Each read carries a step number and only the current step's replies act;
 * every reply and event still does its watch bookkeeping. The watches are counted in the
 * client's watch book (Watches), as the waiters' are: ZooKeeper keeps one watch per path and
 * session, and only "remove every watch of the path" removes it, so the book removes it when its
 * last registration ends, and neither a waiter's end nor this watch's end removes a watch the
 * other relies on. With the last subscriber every registration ends. The steps run under this
 * object's monitor, and only do bookkeeping and issue background calls; subscribers are told
 * outside it.
 */
/** The shared watch on the head of one lock directory's queue; see the Overview at the top of the class. */
public final class HeadWatch implements SessionListener {
    private static final Logger LOG = LoggerFactory.getLogger(HeadWatch.class);

    /**
     * The head of the queue as read: its node, and the data and Stat the read returned.
     *
     * @param nodePath the node's full path (the client's)
     * @param node the node, parsed
     * @param stat its Stat as read
     * @param data its data as read
     */
    public record Head(String nodePath, LockNode node, Stat stat, byte[] data) {
    }

    private final ZkPort port;
    private final SessionMonitor monitor;
    private final String path;
    private final List<Consumer<Optional<Head>>> subscribers = new CopyOnWriteArrayList<>();
    private final List<Runnable> tells = new ArrayList<>();   // guarded by this: told after the step
    // guarded by this
    private Watches watches;                   // null while nobody subscribes
    private int step;
    private Optional<Head> told;               // null before the first read of this period
    private boolean telling;

    /**
     * The watch of {@code path} on {@code port}.
     *
     * @param port the door to ZooKeeper
     * @param monitor the client's session monitor (its watch book, its session news)
     * @param path the lock directory, valid
     */
    public HeadWatch(ZkPort port, SessionMonitor monitor, String path) {
        this.port = port;
        this.monitor = monitor;
        this.path = path;
    }

    /**
     * The one watch of {@code client} on {@code path}, made the first time.
     *
     * @throws IllegalArgumentException if the client is null or the path is invalid
     */
    public static HeadWatch of(CuratorFramework client, String path) {
        if (client == null) {
            throw new IllegalArgumentException("client is null");
        }
        String directory = LockPaths.validate(path);
        SessionMonitor monitor = SessionMonitor.of(client);
        CuratorPort port = new CuratorPort(client, monitor);
        return monitor.attachment(Registry.class, Registry::new).byDirectory
                .computeIfAbsent(port.serverPath(directory), k -> new HeadWatch(port, monitor, directory));
    }

    /** The client's head watches, one per directory: an attachment of its session monitor. */
    private static final class Registry {
        final Map<String, HeadWatch> byDirectory = new ConcurrentHashMap<>();
    }

    /**
     * Tells {@code subscriber} the head now (once it is read; at once if it is known) and each
     * time another node becomes the head, until the returned action is run.
     *
     * @param subscriber told the new head, or empty when the queue is empty or the path missing
     * @return ends the subscription; idempotent
     */
    public Runnable subscribe(Consumer<Optional<Head>> subscriber) {
        synchronized (this) {
            subscribers.add(subscriber);
            if (watches == null) {
                watches = new Watches(monitor.watches(), port);
                told = null;
                monitor.addListener(this);
                read();
            } else if (told != null) {
                Optional<Head> known = told;
                tells.add(() -> tell(subscriber, known));
            }
        }
        runTells();
        AtomicBoolean ended = new AtomicBoolean();
        return () -> {
            if (ended.compareAndSet(false, true)) {
                unsubscribe(subscriber);
            }
        };
    }

    private void unsubscribe(Consumer<Optional<Head>> subscriber) {
        synchronized (this) {
            subscribers.remove(subscriber);
            if (subscribers.isEmpty() && watches != null) {
                monitor.removeListener(this);
                watches.endAll();              // removes our watches the book no longer needs
                watches = null;
                step++;
            }
        }
    }

    /** {@return whether anybody subscribes now} */
    public synchronized boolean active() {
        return watches != null;
    }

    @Override
    public void reconnected(long sessionId) {
        inStep(() -> {
            if (watches != null) {
                read();
            }
        });
    }

    // ---- the steps (under this object's monitor) ------------------------------------------------

    private void read() {
        int s = ++step;
        port.children(path, null, null).whenComplete((reply, error) -> inStep(() -> listed(s, reply, error)));
    }

    private void listed(int s, ZkPort.Reply reply, Throwable error) {
        if (s != step || error != null) {
            return;                            // stale, or not issued: the next reconnection reads again
        }
        if (reply.noNode()) {
            arm(WatchKey.data(port.serverPath(path)), w -> port.exists(path, w), again -> {
                if (again.ok()) {
                    read();                    // made between the listing and the watch
                } else if (again.noNode()) {
                    told(Optional.empty());
                }
            });
        } else if (reply.ok()) {
            List<LockNode> sorted = LockNode.sorted(reply.children());
            if (sorted.isEmpty()) {
                arm(WatchKey.children(port.serverPath(path)), w -> port.children(path, w, null), again -> {
                    if (again.ok() && LockNode.sorted(again.children()).isEmpty()) {
                        told(Optional.empty());
                    } else if (again.ok() || again.noNode()) {
                        read();                // a node joined, or the directory went, meanwhile
                    }
                });
            } else {
                LockNode head = sorted.get(0);
                String nodePath = ZKPaths.makePath(path, head.name());
                arm(WatchKey.data(port.serverPath(nodePath)), w -> port.data(nodePath, w), again -> {
                    if (again.ok()) {
                        told(Optional.of(new Head(nodePath, head, again.stat(), again.data())));
                    } else if (again.noNode()) {
                        read();                // gone between the listing and the read
                    }
                });
            }
        } else if (!reply.connectionTrouble()) {
            LOG.warn("watching the head of {}: listing failed with {}", path, reply.rc());
        }
    }

    /** Issues the call {@code call} makes with a watcher, counted in the book; {@code then} takes a current step's reply. */
    private void arm(WatchKey key, java.util.function.Function<Watcher, CompletableFuture<ZkPort.Reply>> call,
            Consumer<ZkPort.Reply> then) {
        int s = step;
        Watches w = watches;
        Watcher watcher = event -> {
            if (event.getType() != Watcher.Event.EventType.None) {
                inStep(() -> {
                    w.fired(s, key);
                    if (s == step && w == watches) {
                        read();
                    }
                });
            }
        };
        Supplier<CompletableFuture<ZkPort.Reply>> issue = () -> call.apply(watcher);
        w.register(key, issue).whenComplete((reply, error) -> inStep(() -> {
            w.answered(error == null ? reply.rc() : null, key, s);
            if (error == null && s == step && w == watches) {
                then.accept(reply);
            }
        }));
    }

    private void told(Optional<Head> head) {
        Optional<String> was = told == null ? null : told.map(Head::nodePath);
        if (was != null && was.equals(head.map(Head::nodePath))) {
            return;
        }
        told = head;
        for (Consumer<Optional<Head>> subscriber : subscribers) {
            tells.add(() -> tell(subscriber, head));
        }
    }

    /** Runs {@code step} under the monitor, then tells subscribers what it found, outside it. */
    private void inStep(Runnable step) {
        synchronized (this) {
            step.run();
        }
        runTells();
    }

    /** Tells what the steps found, in order: one thread at a time tells; another that finds it telling leaves its news to it. */
    private void runTells() {
        synchronized (this) {
            if (telling) {
                return;
            }
            telling = true;
        }
        while (true) {
            Runnable next;
            synchronized (this) {
                if (tells.isEmpty()) {
                    telling = false;
                    return;
                }
                next = tells.remove(0);
            }
            next.run();
        }
    }

    private void tell(Consumer<Optional<Head>> subscriber, Optional<Head> head) {
        try {
            subscriber.accept(head);
        } catch (RuntimeException e) {
            LOG.warn("a subscriber to the head of {} threw", path, e);
        }
    }

    @Override
    public String toString() {
        return "HeadWatch[" + path + "]";
    }
}
