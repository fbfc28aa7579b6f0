package io.zklock.cli;

import static io.zklock.cli.LiveServer.await;
import static io.zklock.cli.LiveServer.onThread;
import static io.zklock.cli.LiveServer.zklock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.zklock.core.Lease;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.leader.ZkLeaderElection;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code zklock status} end to end, against an embedded server with real locks of every recipe. */
class StatusEndToEndTest extends LiveServerTest {
    /** A mutex shows its holder first, then both waiters in arrival order, each with its owner thread and the lease's token. */
    @Test
    void mutexShowsTheHolderThenTheWaitersInQueueOrder() throws Exception {
        String path = "/status/mutex";
        Lease held = onThread("holder-t", () -> new ZkMutex(zk.session(), path).acquire());
        CompletableFuture<Lease> second = onThread("second-t", () -> new ZkMutex(zk.session(), path).acquireAsync(WAIT.multipliedBy(6)));
        awaitParticipants(path, 2);
        CompletableFuture<Lease> third = onThread("third-t", () -> new ZkMutex(zk.session(), path).acquireAsync(WAIT.multipliedBy(6)));
        awaitParticipants(path, 3);

        LiveServer.Run run = zklock("status", path, "--connect", zk.connect());
        assertEquals(0, run.exit(), run.err());
        List<String> lines = run.out().lines().toList();
        assertEquals(path + ": mutex, 1 holder, 2 waiters", lines.get(0));
        assertTrue(lines.get(1).trim().startsWith("#  role   mode"), run.out());
        assertRow(lines.get(2), 1, "HOLDS", "mutex", "holder-t", "held <= ");
        assertRow(lines.get(3), 2, "waits", "mutex", "second-t", "waiting ");
        assertRow(lines.get(4), 3, "waits", "mutex", "third-t", "waiting ");
        assertTrue(lines.get(2).contains(" " + StatusReport.token(held.fencingToken()) + " "), lines.get(2));
        assertTrue(lines.get(2).endsWith(held.nodePath().substring(path.length() + 1)), lines.get(2));
        assertEquals(5, lines.size(), run.out());
        assertFalse(second.isDone() || third.isDone());
    }

    /** An election shows its leader by participant id with its epoch, and the candidates in queue order, in text and JSON. */
    @Test
    void electionShowsTheLeaderItsEpochAndTheCandidates() throws Exception {
        String path = "/status/election";
        Lease leading = onThread("leader-t", () -> new ZkLeaderElection(zk.session(), path, "node-a").awaitLeadership());
        onThread("standby-t", () -> new ZkLeaderElection(zk.session(), path, "node-b").leadershipAsync());
        awaitParticipants(path, 2);

        LiveServer.Run run = zklock("status", path, "--connect", zk.connect());
        assertEquals(0, run.exit(), run.err());
        List<String> lines = run.out().lines().toList();
        assertEquals(path + ": leader election, leader node-a (epoch " + StatusReport.token(leading.fencingToken())
                + "), 1 candidate waits", lines.get(0), run.out());
        assertTrue(lines.get(2).matches("\\s+1\\s+LEADS\\s+candidate\\s+node-a leader-t@\\S+\\[pid \\d+\\]\\s+held <= .*"), lines.get(2));
        assertTrue(lines.get(3).matches("\\s+2\\s+waits\\s+candidate\\s+node-b standby-t@\\S+\\[pid \\d+\\]\\s+waiting .*"), lines.get(3));
        LiveServer.Run json = zklock("status", path, "--connect", zk.connect(), "--json");
        assertTrue(json.out().contains("\"participantId\":\"node-a\""), json.out());
        assertTrue(json.out().contains("\"recipe\":\"leader\""), json.out());
    }

    /** A semaphore's header names its configured maxLeases; its nodes are permits, the extra one waits. */
    @Test
    void semaphoreShowsMaxLeasesAndPermits() throws Exception {
        String path = "/status/semaphore";
        for (String name : List.of("p1", "p2")) {
            onThread(name, () -> new ZkSemaphore(zk.session(), path, 2).acquire());
        }
        onThread("p3", () -> new ZkSemaphore(zk.session(), path, 2).acquireAsync(WAIT.multipliedBy(6)));
        awaitParticipants(path, 3);

        LiveServer.Run run = zklock("status", path, "--connect", zk.connect());
        List<String> lines = run.out().lines().toList();
        assertEquals(path + ": semaphore, maxLeases 2, 2 holders, 1 waiter", lines.get(0), run.out());
        assertRow(lines.get(2), 1, "HOLDS", "permit", "p1", "held <= ");
        assertRow(lines.get(3), 2, "HOLDS", "permit", "p2", "held <= ");
        assertRow(lines.get(4), 3, "waits", "permit", "p3", "waiting ");
    }

    /** A read-write lock shows readers holding together as read, and the writer queued behind them as write. */
    @Test
    void readWriteLockShowsReadAndWriteKinds() throws Exception {
        String path = "/status/rw";
        ZkReadWriteLock rw = new ZkReadWriteLock(zk.session(), path);
        onThread("reader-a", () -> rw.readLock().acquire());
        onThread("reader-b", () -> new ZkReadWriteLock(zk.session(), path).readLock().acquire());
        onThread("writer-c", () -> new ZkReadWriteLock(zk.session(), path).writeLock().acquireAsync(WAIT.multipliedBy(6)));
        awaitParticipants(path, 3);

        List<String> lines = zklock("status", path, "--connect", zk.connect()).out().lines().toList();
        assertEquals(path + ": readwrite, 2 holders, 1 waiter", lines.get(0));
        assertRow(lines.get(2), 1, "HOLDS", "read", "reader-a", "held <= ");
        assertRow(lines.get(3), 2, "HOLDS", "read", "reader-b", "held <= ");
        assertRow(lines.get(4), 3, "waits", "write", "writer-c", "waiting ");
    }

    /** A node a multi-lock made in a component's directory shows the kind multi. */
    @Test
    void multiLockNodeShowsMulti() throws Exception {
        CuratorFramework c = zk.session();
        onThread("mover", () -> new ZkMultiLock(List.of(new ZkMutex(c, "/status/multi/a"), new ZkMutex(c, "/status/multi/b"))).acquire());

        List<String> lines = zklock("status", "/status/multi/b", "--connect", zk.connect()).out().lines().toList();
        assertRow(lines.get(2), 1, "HOLDS", "multi", "mover", "held <= ");
    }

    /**
     * A holder that keeps its node cached after use (here idle: its lease is closed) shows as
     * CACHED, and as {@code "cached": true} in --json; a plain holder as HOLDS and false.
     */
    @Test
    void aCachedIdleNodeShowsAsCached() throws Exception {
        String path = "/status/cached";
        onThread("cacher", () -> {
            new ZkMutex(zk.session(), path, io.zklock.core.LeaseCaching.keepIdleFor(java.time.Duration.ofMinutes(5))).acquire().close();
            return null;
        });
        awaitParticipants(path, 1);
        List<String> lines = zklock("status", path, "--connect", zk.connect()).out().lines().toList();
        assertRow(lines.get(2), 1, "CACHED", "mutex", "cacher", "held <= ");

        Map<?, ?> doc = (Map<?, ?>) MiniJson.parse(zklock("status", path, "--json", "--connect", zk.connect()).out());
        Map<?, ?> only = (Map<?, ?>) ((List<?>) ((Map<?, ?>) ((List<?>) doc.get("locks")).get(0)).get("participants")).get(0);
        assertEquals(Boolean.TRUE, only.get("cached"));
        assertEquals(Boolean.TRUE, only.get("holding"));

        String plain = "/status/not-cached";
        onThread("plain", () -> new ZkMutex(zk.session(), plain).acquire());
        awaitParticipants(plain, 1);
        Map<?, ?> plainDoc = (Map<?, ?>) MiniJson.parse(zklock("status", plain, "--json", "--connect", zk.connect()).out());
        Map<?, ?> holder = (Map<?, ?>) ((List<?>) ((Map<?, ?>) ((List<?>) plainDoc.get("locks")).get(0)).get("participants")).get(0);
        assertEquals(Boolean.FALSE, holder.get("cached"));
    }

    /** --json prints one document that parses back, with each participant's place, role, owner and exact token; strings are escaped. */
    @Test
    void jsonIsOneDocumentThatParsesBack() throws Exception {
        String path = "/status/json";
        String oddName = "w\u00f6rker \"q\" \\ \t\u2603";
        Lease held = onThread(oddName, () -> new ZkMutex(zk.session(), path).acquire());
        onThread("second", () -> new ZkMutex(zk.session(), path).acquireAsync(WAIT.multipliedBy(6)));
        awaitParticipants(path, 2);

        LiveServer.Run run = zklock("status", path, "/status/json-absent", "--json", "--connect", zk.connect());
        assertEquals(0, run.exit(), run.err());
        assertEquals(1, run.out().lines().count(), run.out());
        assertTrue(run.out().chars().allMatch(ch -> ch < 0x80), "not plain ASCII: " + run.out());
        Map<?, ?> doc = (Map<?, ?>) MiniJson.parse(run.out());
        List<?> locks = (List<?>) doc.get("locks");
        assertEquals(2, locks.size());
        Map<?, ?> lock = (Map<?, ?>) locks.get(0);
        assertEquals(path, lock.get("path"));
        assertEquals("LOCK", lock.get("state"));
        assertEquals("mutex", lock.get("recipe"));
        assertEquals(1L, lock.get("maxLeases"));
        List<?> ps = (List<?>) lock.get("participants");
        Map<?, ?> first = (Map<?, ?>) ps.get(0);
        assertEquals(1L, first.get("position"));
        assertEquals(Boolean.TRUE, first.get("holding"));
        assertEquals("mutex", first.get("mode"));
        assertEquals(held.fencingToken(), first.get("fencingToken"));
        assertEquals(oddName, ((Map<?, ?>) first.get("owner")).get("thread"));
        assertNull(first.get("revocation"));
        assertEquals(Boolean.FALSE, ((Map<?, ?>) ps.get(1)).get("holding"));
        Map<?, ?> absent = (Map<?, ?>) locks.get(1);
        assertEquals("ABSENT", absent.get("state"));
        assertNull(absent.get("recipe"));
        assertEquals(List.of(), absent.get("participants"));
    }

    /** --recursive finds every lock directory under a root, however deep, and skips plain directories. */
    @Test
    void recursiveFindsEveryLockPathUnderTheRoot() throws Exception {
        CuratorFramework c = zk.session();
        c.create().creatingParentsIfNeeded().forPath("/status/tree/plain/empty");
        onThread("t1", () -> new ZkMutex(c, "/status/tree/one").acquire());
        onThread("t2", () -> new ZkSemaphore(c, "/status/tree/deep/er/two", 3).acquire());

        LiveServer.Run run = zklock("status", "--recursive", "/status/tree", "--connect", zk.connect());
        assertEquals(0, run.exit(), run.err());
        List<String> headers = run.out().lines().filter(l -> l.startsWith("/")).toList();
        assertEquals(List.of("/status/tree/deep/er/two: semaphore, maxLeases 3, 1 holder, 0 waiters",
                "/status/tree/one: mutex, 1 holder, 0 waiters"), headers);
    }

    /** --watch draws once, does not redraw while nothing changes, and redraws promptly when a waiter joins. */
    @Test
    void watchRedrawsOnChangeOnly() throws Exception {
        String path = "/status/watch";
        onThread("holder", () -> new ZkMutex(zk.session(), path).acquire());
        Watching w = watch("status", path, "--watch", "--watch-count", "1", "--connect", zk.connect());
        await("the first drawing", WAIT, () -> w.drawings() == 1);
        Thread.sleep(1_500);                                       // nothing changes: no redraw
        assertEquals(1, w.drawings(), w.out());
        assertFalse(w.run.isDone());

        CuratorFramework joiner = zk.session();                  // connected before the clock starts
        long joined = System.nanoTime();
        onThread("joiner", () -> new ZkMutex(joiner, path).acquireAsync(WAIT.multipliedBy(6)));
        LiveServer.Run run = w.run.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(System.nanoTime() - joined < Duration.ofSeconds(5).toNanos(), "redrawn too late");
        assertEquals(0, run.exit(), run.err());
        assertEquals(2, w.drawings(), w.out());
        String last = w.out().substring(w.out().lastIndexOf("zklock status at"));
        assertTrue(last.contains("1 holder, 1 waiter") && last.contains("joiner"), last);
    }

    /** --recursive --watch notices a lock directory made under the root after the first drawing. */
    @Test
    void recursiveWatchNoticesANewLockDirectory() throws Exception {
        CuratorFramework c = zk.session();
        onThread("old", () -> new ZkMutex(c, "/status/rwatch/old").acquire());
        Watching w = watch("status", "-r", "/status/rwatch", "-w", "--watch-count", "1", "--connect", zk.connect());
        await("the first drawing", WAIT, () -> w.drawings() == 1);
        assertFalse(w.out().contains("/status/rwatch/new/deeper"), w.out());

        onThread("new", () -> new ZkMutex(c, "/status/rwatch/new/deeper").acquire());
        assertEquals(0, w.run.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).exit());
        String last = w.out().substring(w.out().lastIndexOf("zklock status at"));
        assertTrue(last.contains("/status/rwatch/new/deeper: mutex, 1 holder") && last.contains("/status/rwatch/old"), last);
    }

    /** A directory of plain children is reported as not a lock; a lock with a stray child shows it; an absent path is said plainly. */
    @Test
    void nonLockDirectoriesForeignChildrenAndAbsentPathsAreReportedPlainly() throws Exception {
        CuratorFramework c = zk.session();
        c.create().creatingParentsIfNeeded().forPath("/status/plain/config");
        c.create().forPath("/status/plain/other");
        onThread("h", () -> new ZkMutex(c, "/status/stray").acquire());
        c.create().forPath("/status/stray/leftover");

        LiveServer.Run run = zklock("status", "/status/plain", "/status/stray", "/status/nobody", "--connect", zk.connect());
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().contains("/status/plain: not a lock directory: none of its 2 children is a lock node\n"
                + "  children: config, other\n"), run.out());
        assertTrue(run.out().contains("  ! foreign children, ignored by every recipe: leftover\n"), run.out());
        assertTrue(run.out().endsWith("no lock at /status/nobody (nobody holds or waits)\n"), run.out());
    }

    /** An invalid path, a missing PATH, a missing --connect or an unknown option is one line on stderr and exit code 2. */
    @Test
    void badArgumentsAreOneLineAndExitTwo() {
        String connect = zk.connect();
        for (String[] args : List.of(new String[] {"status", "locks/x", "--connect", connect},
                new String[] {"status", "/locks/x/", "--connect", connect},
                new String[] {"status", "--connect", connect},
                new String[] {"status", "/locks/x"},
                new String[] {"status", "/locks/x", "--bogus", "--connect", connect},
                new String[] {"status", "/locks/x", "--timeout", "soon", "--connect", connect})) {
            LiveServer.Run run = zklock(args);
            assertEquals(2, run.exit(), String.join(" ", args) + ": " + run.err());
            assertEquals(1, run.err().lines().count(), run.err());
            assertTrue(run.err().startsWith("zklock: "), run.err());
            assertEquals("", run.out());
        }
    }

    /**
     * A path shared with Curator's recipes during a migration: each node shows its library and
     * recipe, Curator's semaphore leases (under the path's leases directory) are judged as
     * holders, and Curator's participants are named as a problem, on the path and below it.
     */
    @Test
    void mixedPathShowsWhoseNodesAreWhose() throws Exception {
        String rw = "/status/mixed/rw";
        new org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock(zk.session(), rw).readLock().acquire();
        onThread("compat-reader", () -> new ZkReadWriteLock(zk.session(), rw, io.zklock.core.LockCompatibility.CURATOR)
                .readLock().acquire());
        String sem = "/status/mixed/sem";
        new org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2(zk.session(), sem, 2).acquire();
        onThread("compat-permit", () -> new ZkSemaphore(zk.session(), sem, 2, io.zklock.core.LockCompatibility.CURATOR).acquire());
        awaitParticipants(rw, 2);
        awaitParticipants(sem + "/leases", 2);

        LiveServer.Run run = zklock("status", rw, sem + "/leases", sem, "--connect", zk.connect());
        assertEquals(0, run.exit(), run.err());
        String out = run.out();
        List<String> lines = out.lines().toList();
        assertEquals(rw + ": readwrite, 2 holders, 0 waiters", lines.get(0), out);
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\s+\\d+\\s+HOLDS\\s+read \\[curator\\]\\s.*")), out);
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\s+\\d+\\s+HOLDS\\s+read \\[zklock, curator layout\\]\\s+compat-reader@.*")), out);
        assertTrue(lines.contains(sem + "/leases: semaphore, 2 holders, 0 waiters"), out);
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\s+\\d+\\s+HOLDS\\s+lease \\[curator\\]\\s.*")), out);
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\s+\\d+\\s+HOLDS\\s+lease \\[zklock, curator layout\\]\\s+compat-permit@.*")), out);
        assertEquals(2, lines.stream().filter(l -> l.startsWith("  ! Curator participants (not zklock's): _c_")).count(), out);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  ! Curator's semaphore layout below this path")), out);
    }

    private static void assertRow(String line, int position, String role, String kind, String thread, String age) {
        Matcher m = Pattern.compile("\\s+(\\d+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)@\\S+\\[pid \\d+\\]\\s+(held <= |waiting )[\\d.]+ (ms|s|min)\\s+0x[0-9a-f]+\\s+-\\s+_c_\\S+")
                .matcher(line);
        assertTrue(m.matches(), line);
        assertEquals(List.of(Integer.toString(position), role, kind, thread, age),
                List.of(m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)), line);
    }


    /** A {@code status --watch} running on its own thread, its output readable while it runs. */
    private record Watching(CompletableFuture<LiveServer.Run> run, StringWriter buffer) {
        String out() {
            synchronized (buffer) {
                return buffer.toString();
            }
        }

        int drawings() {
            return (int) out().lines().filter(l -> l.startsWith("zklock status at ")).count();
        }
    }

    private static Watching watch(String... args) {
        StringWriter buffer = new StringWriter();
        CompletableFuture<LiveServer.Run> run = CompletableFuture.supplyAsync(() -> {
            StringWriter err = new StringWriter();
            CommandLine cli = Zklock.commandLine();
            cli.setOut(new PrintWriter(buffer, true));
            cli.setErr(new PrintWriter(err, true));
            int exit = cli.execute(args);
            return new LiveServer.Run(exit, buffer.toString(), err.toString());
        });
        return new Watching(run, buffer);
    }
}
