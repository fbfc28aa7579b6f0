package io.zklock.cli;

import static io.zklock.cli.LiveServer.await;
import static io.zklock.cli.LiveServer.onThread;
import static io.zklock.cli.LiveServer.zklock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.core.Lease;
import io.zklock.core.LeaseState;
import io.zklock.core.LockAdmin;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** {@code zklock revoke} end to end, against an embedded server with real mutexes. */
class RevokeEndToEndTest extends LiveServerTest {
    /** A holder that opted in with onRevocationRequested(Lease::close) lets go when asked, and the next waiter is granted. */
    @Test
    void optedInHolderReleasesAndTheWaiterIsGranted() throws Exception {
        String path = "/revoke/cooperative";
        Lease held = new ZkMutex(zk.session(), path).acquire();
        held.onRevocationRequested(Lease::close);
        CompletableFuture<Lease> waiter = new ZkMutex(zk.session(), path).acquireAsync(WAIT.multipliedBy(6));
        awaitParticipants(path, 2);

        LiveServer.Run run = zklock("revoke", path, "--connect", zk.connect());
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.out().startsWith("REQUESTED          " + nodeName(held) + "  HOLDS  mutex  main@"), run.out());
        Lease next = waiter.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(LeaseState.RELEASED, held.state());
        assertTrue(next.fencingToken() > held.fencingToken());
    }

    /** A holder that did not opt in keeps its lease; a second request finds the first pending, and status marks it. */
    @Test
    void requestIsWrittenOnceAndShownByStatus() throws Exception {
        String path = "/revoke/pending";
        Lease held = new ZkMutex(zk.session(), path).acquire();
        String node = nodeName(held);

        assertEquals(0, zklock("revoke", path, "--node", node, "--connect", zk.connect()).exit());
        LiveServer.Run again = zklock("revoke", path, "--node", held.nodePath(), "--connect", zk.connect());
        assertEquals(0, again.exit(), again.err());
        assertTrue(again.out().startsWith("ALREADY_REQUESTED  " + node), again.out());
        assertEquals(LeaseState.HELD, held.state());
        String status = zklock("status", path, "--connect", zk.connect()).out();
        assertTrue(status.matches("(?s).*HOLDS .* requested [\\d.]+ (ms|s) ago by main@\\S+\\[pid \\d+\\]  " + node + "\n.*"), status);
    }

    /** Asking a node that is gone says so in one line, writes nothing, and exits 3. */
    @Test
    void goneNodeIsNodeGoneAndExitThree() throws Exception {
        String path = "/revoke/gone";
        Lease stays = new ZkMutex(zk.session(), path).acquire();
        Lease gone = new ZkMutex(zk.session(), "/revoke/gone-elsewhere").acquire();
        String goneName = nodeName(gone).replace("0000000000", "0000000007");

        LiveServer.Run run = zklock("revoke", path, "--node", goneName, "--connect", zk.connect());
        assertEquals(3, run.exit(), run.err());
        assertEquals("node " + path + "/" + goneName + " no longer exists; nothing done\n", run.out());
        assertTrue(zk.admin().status(path).participants().get(0).revocationRequest().isEmpty());
        assertEquals(LeaseState.HELD, stays.state());
    }

    /** Revoking a path nobody holds does nothing and exits 3. */
    @Test
    void absentLockIsNothingDone() {
        LiveServer.Run run = zklock("revoke", "/revoke/nobody", "--connect", zk.connect());
        assertEquals(3, run.exit(), run.err());
        assertEquals("no lock at /revoke/nobody (nobody holds or waits)\nnothing done\n", run.out());
    }

    /** --force --yes deletes the holder's node: its (opted-in) lease turns LOST at once, and the waiter is granted. */
    @Test
    void forceDeletesTheHoldersNodeSoItsLeaseIsLostAndTheWaiterGranted() throws Exception {
        String path = "/revoke/force";
        Lease held = new ZkMutex(zk.session(), path).acquire();
        CountDownLatch lost = new CountDownLatch(1);
        held.addListener((lease, state) -> {
            if (state == LeaseState.LOST) {
                lost.countDown();
            }
        });
        held.onRevocationRequested(lease -> { });         // watches its node; ignores requests
        CompletableFuture<Lease> waiter = new ZkMutex(zk.session(), path).acquireAsync(WAIT.multipliedBy(6));
        awaitParticipants(path, 2);

        LiveServer.Run run = zklock("revoke", path, "--force", "--yes", "--connect", zk.connect());
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("deleted " + held.nodePath() + " (token " + StatusReport.token(held.fencingToken()) + ")"), run.out());
        assertTrue(lost.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the holder never heard its lease was lost");
        assertEquals(LeaseState.LOST, held.state());
        Lease next = waiter.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(next.fencingToken() > held.fencingToken());
    }

    /** --force without --yes and without a terminal is refused before anything is read or deleted: one line, exit 2. */
    @Test
    void forceWithoutTerminalOrYesIsRefused() throws Exception {
        String path = "/revoke/refused";
        Lease held = new ZkMutex(zk.session(), path).acquire();

        LiveServer.Run run = zklock("revoke", path, "--force", "--connect", zk.connect());
        assertEquals(2, run.exit(), run.err());
        assertEquals("zklock: --force asks for confirmation on a terminal, and there is none; add --yes to delete without asking\n",
                run.err());
        assertEquals("", run.out());
        assertEquals(LeaseState.HELD, held.state());
        assertEquals(1, zk.admin().status(path).participants().size());
    }

    /** --force deletes only on the answer yes: another answer deletes nothing and exits 3. */
    @Test
    void forceDeletesOnlyWhenConfirmed() throws Exception {
        String path = "/revoke/confirm";
        Lease held = new ZkMutex(zk.session(), path).acquire();
        LockAdmin admin = zk.admin();

        LiveServer.Run no = zklock(cli -> answer(cli, false), "revoke", path, "--force", "--connect", zk.connect());
        assertEquals(3, no.exit(), no.err());
        assertTrue(no.out().endsWith("not confirmed; nothing deleted\n"), no.out());
        assertEquals(1, admin.status(path).participants().size());

        LiveServer.Run yes = zklock(cli -> answer(cli, true), "revoke", path, "--force", "--connect", zk.connect());
        assertEquals(0, yes.exit(), yes.err());
        assertTrue(yes.out().contains("deleted " + held.nodePath()), yes.out());
        await("the node gone", WAIT, () -> admin.status(path).participants().isEmpty());
    }

    /** --force on a waiter's node is refused: it deletes holders' nodes only. */
    @Test
    void forceOnAWaiterDeletesNothing() throws Exception {
        String path = "/revoke/waiter";
        new ZkMutex(zk.session(), path).acquire();
        CuratorFramework other = zk.session();
        CompletableFuture<Lease> waiter = onThread("w", () -> new ZkMutex(other, path).acquireAsync(WAIT.multipliedBy(6)));
        awaitParticipants(path, 2);
        String waiting = zk.admin().status(path).waiters().get(0).nodeName();

        LiveServer.Run run = zklock("revoke", path, "--node", waiting, "--force", "--yes", "--connect", zk.connect());
        assertEquals(3, run.exit(), run.err());
        assertTrue(run.out().contains("waits; --force deletes a holder's node only; nothing done"), run.out());
        assertEquals(2, zk.admin().status(path).participants().size());
        assertFalse(waiter.isDone());
    }

    /** A --node that is not a lock node's name, or not in PATH, and --yes without --force, are one line and exit 2. */
    @Test
    void badArgumentsAreOneLineAndExitTwo() {
        String c = zk.connect();
        String name = "_c_0b5a0a57-0000-4000-8000-000000000000-lock-0000000001";
        for (String[] args : List.of(new String[] {"revoke", "/revoke/x", "--node", "config", "--connect", c},
                new String[] {"revoke", "/revoke/x", "--node", "/revoke/y/" + name, "--connect", c},
                new String[] {"revoke", "/revoke/x", "--yes", "--connect", c},
                new String[] {"revoke", "--connect", c},
                new String[] {"revoke", "revoke/x", "--connect", c})) {
            LiveServer.Run run = zklock(args);
            assertEquals(2, run.exit(), String.join(" ", args) + ": " + run.err());
            assertEquals(1, run.err().lines().count(), run.err());
            assertTrue(run.err().startsWith("zklock: "), run.err());
        }
    }

    private static void answer(picocli.CommandLine cli, boolean yes) {
        RevokeCommand revoke = cli.getSubcommands().get("revoke").getCommand();
        assertNotNull(revoke);
        revoke.confirmation = new RevokeCommand.Confirmation() {
            @Override
            public boolean available() {
                return true;
            }

            @Override
            public boolean ask(String question) {
                return yes;
            }
        };
    }

    private static String nodeName(Lease lease) {
        return lease.nodePath().substring(lease.nodePath().lastIndexOf('/') + 1);
    }

}
