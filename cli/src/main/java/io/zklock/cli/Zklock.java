package io.zklock.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

import io.zklock.core.Lease;
import io.zklock.core.Participant;
import io.zklock.mutex.ZkMutex;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The {@code zklock} command. */
@Command(name = "zklock", mixinStandardHelpOptions = true, version = "zklock 0.1.0-SNAPSHOT",
        description = "Distributed locks on ZooKeeper.", subcommands = Zklock.Demo.class)
public final class Zklock implements Runnable {

    public static void main(String[] args) {
        System.exit(new CommandLine(new Zklock()).execute(args));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /**
     * Starts an embedded ZooKeeper and lets a few clients contend: for a mutex, each grant is
     * printed with its fencing token and the queue behind it; then for a semaphore of two
     * permits.
     */
    @Command(name = "demo", mixinStandardHelpOptions = true,
            description = "Run clients contending for a mutex and a semaphore on an embedded ZooKeeper.")
    static final class Demo implements Callable<Integer> {
        private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

        @Option(names = "--clients", defaultValue = "3", description = "ZooKeeper sessions contending (default ${DEFAULT-VALUE}).")
        int clients;

        @Option(names = "--rounds", defaultValue = "2", description = "Acquisitions per client (default ${DEFAULT-VALUE}).")
        int rounds;

        @Option(names = "--hold", defaultValue = "PT0.1S", description = "How long each holder keeps the lock (default ${DEFAULT-VALUE}).")
        Duration hold;

        PrintStream out = System.out;

        @Override
        public Integer call() throws Exception {
            if (clients < 1 || rounds < 1 || hold.isNegative()) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--clients and --rounds must be at least 1, --hold not negative");
            }
            try (TestingServer server = new TestingServer(true)) {
                out.println("embedded ZooKeeper on " + server.getConnectString());
                List<CuratorFramework> sessions = new ArrayList<>();
                try {
                    for (int i = 0; i < clients; i++) {
                        CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(),
                                new ExponentialBackoffRetry(100, 5));
                        client.start();
                        client.blockUntilConnected();
                        sessions.add(client);
                    }
                    out.println("\n== mutex /demo/orders: one holder at a time, in arrival order ==");
                    contend(sessions, c -> new ZkMutex(c, "/demo/orders"));
                    out.println("\n== semaphore /demo/pool, 2 permits ==");
                    contend(sessions, c -> new ZkSemaphore(c, "/demo/pool", 2));
                    int left = new ZkMutex(sessions.get(0), "/demo/orders").participants().size()
                            + new ZkSemaphore(sessions.get(0), "/demo/pool", 2).participants().size();
                    out.println("\ndone: every lease released, " + left + " lock nodes left");
                    return left == 0 ? 0 : 1;
                } finally {
                    sessions.forEach(CuratorFramework::close);
                }
            }
        }

        private interface LockFactory {
            Object create(CuratorFramework client);
        }

        private void contend(List<CuratorFramework> sessions, LockFactory factory) throws InterruptedException {
            AtomicInteger holders = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < sessions.size(); i++) {
                String name = "client-" + (i + 1);
                Object lock = factory.create(sessions.get(i));
                Thread t = new Thread(() -> {
                    for (int r = 0; r < rounds; r++) {
                        try (Lease lease = acquire(lock)) {
                            int now = holders.incrementAndGet();
                            say(name + " holds, token " + lease.fencingToken() + ", " + now + " holding now; "
                                    + queue(lock));
                            Thread.sleep(hold.toMillis());
                            holders.decrementAndGet();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }, name);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
        }

        private static Lease acquire(Object lock) throws InterruptedException {
            return lock instanceof ZkMutex m ? m.acquire() : ((ZkSemaphore) lock).acquire();
        }

        private static String queue(Object lock) {
            List<Participant> all = lock instanceof ZkMutex m ? m.participants() : ((ZkSemaphore) lock).participants();
            long waiting = all.stream().filter(p -> !p.holding()).count();
            return waiting + " waiting";
        }

        private synchronized void say(String line) {
            out.println(LocalTime.now().format(TIME) + "  " + line);
        }
    }
}
