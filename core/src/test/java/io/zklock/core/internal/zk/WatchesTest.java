package io.zklock.core.internal.zk;

import static io.zklock.core.internal.zk.ScriptedPort.Kind.REMOVE_WATCHES;
import static io.zklock.core.internal.zk.ScriptedPort.Kind.WATCH_DATA;
import static io.zklock.core.internal.zk.ScriptedPort.nodeStat;
import static io.zklock.core.internal.zk.ScriptedPort.ok;
import static io.zklock.core.internal.zk.ScriptedPort.rc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.zklock.core.internal.zk.ScriptedPort.Call;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * The watch counts of a session change (the rule in the comment at the top of {@link Watches}),
 * on a {@link ScriptedPort}: the test answers each registration, and moves the client to a new
 * session, in the order it chooses. The counts and the removals issued are the observable state.
 */
class WatchesTest {
    private static final long OLD_SESSION = 0x01d;
    private static final long NEW_SESSION = 0x2e3;
    private static final String NODE = "/locks/a/_c_x-lock-0000000000";
    private static final WatchKey KEY = WatchKey.data(NODE);

    private final ScriptedPort port = new ScriptedPort(OLD_SESSION);
    private final Watches.Book book = new Watches.Book(() -> port.sessionId);

    /** A registration whose outcome was unknown when its session ended is uncounted with the session: the new session's last waiter removes the watch. */
    @Test
    void unknownOutcomeOfAnEndedSessionIsUncounted() {
        Watches old = new Watches(book, port);
        Call lost = register(old, 1);
        port.reply(lost, rc(Code.CONNECTIONLOSS));
        assertEquals(1, book.count(KEY), "an unknown outcome is kept while its session lives");

        newSession();
        assertEquals(0, book.count(KEY), "the ended session's count was kept");
        Watches next = new Watches(book, port);
        Call set = register(next, 1);
        port.reply(set, ok(NODE, nodeStat(1, NEW_SESSION)));
        next.endAll();

        assertEquals(1, port.count(REMOVE_WATCHES), "the new session's last waiter left its watch on the server");
        assertEquals(0, book.count(KEY));
    }

    /** A registration issued on the old session and answered OK after the change (Curator retried it onto the new one) is counted again: another waiter's end does not remove the watch it relies on. */
    @Test
    void registrationSpanningTheChangeIsNotUnderCounted() {
        Watches spanning = new Watches(book, port);
        Call retried = register(spanning, 1);
        newSession();
        Watches other = new Watches(book, port);
        Call set = register(other, 1);
        port.reply(set, ok(NODE, nodeStat(1, NEW_SESSION)));
        port.reply(retried, ok(NODE, nodeStat(1, NEW_SESSION)));
        assertEquals(2, book.count(KEY));

        other.endAll();
        assertEquals(0, port.count(REMOVE_WATCHES), "a waiter's end removed the watch another waiter relies on");
        spanning.endAll();
        assertEquals(1, port.count(REMOVE_WATCHES), "the last waiter left its watch on the server");
        assertEquals(0, book.count(KEY));
    }

    /** A registration confirmed on a session that ended removes nothing when its wait ends or its watch fires: the server dropped the watch with the session, and the new session's count stays. */
    @Test
    void endOfARegistrationOfAnEndedSessionRemovesNothing() {
        Watches old = new Watches(book, port);
        port.reply(register(old, 1), ok(NODE, nodeStat(1, OLD_SESSION)));
        Watches fired = new Watches(book, port);
        port.reply(register(fired, 1), ok(NODE, nodeStat(1, OLD_SESSION)));
        newSession();
        Watches next = new Watches(book, port);
        port.reply(register(next, 1), ok(NODE, nodeStat(1, NEW_SESSION)));

        old.endAll();
        fired.fired(1);
        assertEquals(0, port.count(REMOVE_WATCHES), "a removal for a watch that went with its session");
        assertEquals(1, book.count(KEY), "an old session's end uncounted a registration of the new one");
        next.endAll();
        assertEquals(1, port.count(REMOVE_WATCHES));
    }

    /** The monitor's reconnection on the same session keeps every count. */
    @Test
    void reconnectionOnTheSameSessionKeepsTheCounts() {
        Watches w = new Watches(book, port);
        port.reply(register(w, 1), rc(Code.CONNECTIONLOSS));
        book.seen(OLD_SESSION);
        book.seen(0);
        assertEquals(1, book.count(KEY));
    }

    private Call register(Watches watches, int step) {
        watches.register(KEY, () -> port.data(NODE, event -> { }))
                .whenComplete((reply, error) -> watches.answered(error == null ? reply.rc() : null, KEY, step));
        return port.last(WATCH_DATA);
    }

    private void newSession() {
        port.sessionId = NEW_SESSION;
        book.seen(NEW_SESSION);
    }
}
