package io.zklock.core.internal.inspect;

import static io.zklock.core.internal.zk.ScriptedPort.Kind.CHILDREN;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.EXISTS;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.REMOVE_WATCHES;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.WATCH_DATA;
import static io.zklock.core.internal.zk.ScriptedPort.dirStat;
import static io.zklock.core.internal.zk.ScriptedPort.listing;
import static io.zklock.core.internal.zk.ScriptedPort.nodeStat;
import static io.zklock.core.internal.zk.ScriptedPort.rc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.zklock.core.internal.zk.ScriptedPort;
import io.zklock.core.internal.zk.ScriptedPort.Call;
import io.zklock.core.internal.zk.SessionMonitor;
import io.zklock.core.internal.zk.WatchKey;
import io.zklock.core.internal.zk.ZkPort;
import io.zklock.core.spi.queue.LockNodeTest;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.junit.jupiter.api.Test;

/** {@link HeadWatch} against a scripted server: what it reads, what it tells, and the watches it leaves and removes. */
class HeadWatchTest {
    private static final long SESSION = 0x5e55;
    private static final String DIR = "/elections/e";
    private static final String FIRST = LockNodeTest.curatorName("0f8fad5b-d9cb-469f-a165-70867728950e", "leader", 0);
    private static final String SECOND = LockNodeTest.curatorName("7c9e6679-7425-40de-944b-e07fc1f90ae7", "leader", 1);

    private final ScriptedPort port = new ScriptedPort(SESSION);
    private final SessionMonitor monitor = SessionMonitor.detached(() -> port.sessionId);
    private final HeadWatch watch = new HeadWatch(port, monitor, DIR);
    private final List<Optional<String>> heard = new CopyOnWriteArrayList<>();

    private Runnable subscribe() {
        return watch.subscribe(head -> heard.add(head.map(HeadWatch.Head::nodePath)));
    }

    private static ZkPort.Reply read(String path, long czxid) {
        return new ZkPort.Reply(Code.OK, path, nodeStat(czxid, SESSION), null, null, new byte[0]);
    }

    /** The head is read with one unwatched listing and one watched read; its deletion reads again and tells the next head, once. */
    @Test
    void headChangesAreToldOncePerChange() {
        Runnable end = subscribe();
        Call listing = port.last(CHILDREN);
        assertNull(listing.watcher, "the first listing leaves no children watch");
        port.reply(listing, listing(DIR, dirStat(1, 2, 2), SECOND, FIRST));
        Call headRead = port.last(WATCH_DATA);
        assertEquals(DIR + "/" + FIRST, headRead.path);
        port.reply(headRead, read(headRead.path, 10));
        assertEquals(List.of(Optional.of(DIR + "/" + FIRST)), heard);

        port.fire(headRead, EventType.NodeDataChanged);         // a revocation request written into it: read again, tell nothing
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(1, 2, 2), SECOND, FIRST));
        port.reply(port.last(WATCH_DATA), read(headRead.path, 10));
        assertEquals(1, heard.size());

        port.fire(port.last(WATCH_DATA), EventType.NodeDeleted);
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(1, 2, 1), SECOND));
        Call next = port.last(WATCH_DATA);
        port.reply(next, read(next.path, 11));
        assertEquals(List.of(Optional.of(DIR + "/" + FIRST), Optional.of(DIR + "/" + SECOND)), heard);

        end.run();
        assertEquals(WatchKey.data(DIR + "/" + SECOND), port.last(REMOVE_WATCHES).removed, "the last subscriber's end removes the watch");
        end.run();
        assertEquals(1, port.count(REMOVE_WATCHES), "ending twice removes once");
    }

    /** An empty queue is watched through the directory's children, a missing directory through exists; both tell "nobody". */
    @Test
    void emptyAndMissingDirectoriesAreWatchedUntilACandidateJoins() {
        subscribe();
        port.reply(port.last(CHILDREN), rc(Code.NONODE));
        Call exists = port.last(EXISTS);
        port.reply(exists, rc(Code.NONODE));
        assertEquals(List.of(Optional.empty()), heard);

        port.fire(exists, EventType.NodeCreated);
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(1, 0, 0)));
        Call watched = port.last(CHILDREN);
        assertEquals(DIR, watched.path);
        port.reply(watched, listing(DIR, dirStat(1, 0, 0)));
        assertEquals(1, heard.size(), "still nobody: not told again");

        port.fire(watched, EventType.NodeChildrenChanged);
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(1, 1, 1), FIRST));
        port.reply(port.last(WATCH_DATA), read(DIR + "/" + FIRST, 10));
        assertEquals(List.of(Optional.empty(), Optional.of(DIR + "/" + FIRST)), heard);
    }

    /** A second subscriber shares the watch and hears the known head at once; the watch ends with the last subscriber only. */
    @Test
    void subscribersShareOneWatch() {
        Runnable first = subscribe();
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(1, 1, 1), FIRST));
        port.reply(port.last(WATCH_DATA), read(DIR + "/" + FIRST, 10));
        List<Optional<String>> second = new CopyOnWriteArrayList<>();
        Runnable end = watch.subscribe(head -> second.add(head.map(HeadWatch.Head::nodePath)));

        assertEquals(List.of(Optional.of(DIR + "/" + FIRST)), second);
        assertEquals(1, port.count(CHILDREN), "the second subscriber read nothing");
        first.run();
        assertEquals(0, port.count(REMOVE_WATCHES));
        end.run();
        assertEquals(1, port.count(REMOVE_WATCHES));
    }

    /** A reconnection reads again: a leader that changed while the client was cut off (the old watch gone with a new session) is told. */
    @Test
    void reconnectionReadsAgainAndTellsAChangeMissedMeanwhile() {
        subscribe();
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(1, 2, 2), FIRST, SECOND));
        Call oldWatch = port.last(WATCH_DATA);
        port.reply(oldWatch, read(DIR + "/" + FIRST, 10));

        port.sessionId = SESSION + 1;          // expired: the old session's watch is gone on the server, and never fires
        monitor.stateChanged(ConnectionState.LOST);
        monitor.stateChanged(ConnectionState.RECONNECTED);
        port.reply(port.last(CHILDREN), listing(DIR, dirStat(1, 2, 1), SECOND));
        port.reply(port.last(WATCH_DATA), read(DIR + "/" + SECOND, 11));

        assertEquals(List.of(Optional.of(DIR + "/" + FIRST), Optional.of(DIR + "/" + SECOND)), heard);
    }
}
