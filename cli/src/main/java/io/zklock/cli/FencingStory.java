package io.zklock.cli;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.zklock.core.Lease;
import io.zklock.mutex.ZkMutex;
import org.apache.curator.framework.CuratorFramework;

/**
 * Fencing: a holder is frozen past its session timeout (its connection goes through a
 * {@link FreezingProxy}, which stops relaying, as a long GC pause would). The server expires its
 * session and grants the lock to the next session, which writes to a {@link FencedStore} with
 * its higher token. The frozen holder then wakes and writes with the token it still carries:
 * the store refuses it. A lock alone cannot prevent that late write; the token makes it harmless.
 */
final class FencingStory {
    private static final String HOLDER = "fence-A";
    private static final String NEXT = "fence-B";

    List<Story.Check> run(Stage stage) throws Exception {
        stage.print("");
        stage.print("== mutex: fencing a holder frozen past its session timeout ==");
        stage.timeline.lane(HOLDER, "fencing");
        stage.timeline.lane(NEXT, "fencing");
        String lockPath = stage.root + "/mutex/fenced";
        try (FreezingProxy proxy = FreezingProxy.start(stage.connectString.split(",")[0].trim())) {
            CuratorFramework frozen = stage.session(proxy.connectString(), (int) stage.sessionTimeout.toMillis());
            try {
                return story(stage, proxy, frozen, lockPath);
            } finally {
                proxy.thaw();
                frozen.close();    // before the proxy goes, so it does not keep reconnecting to nothing
            }
        }
    }

    private List<Story.Check> story(Stage stage, FreezingProxy proxy, CuratorFramework frozen, String lockPath)
            throws Exception {
        FencedStore store = new FencedStore();
        CuratorFramework next = stage.session();
        long negotiated = frozen.getZookeeperClient().getZooKeeper().getSessionTimeout();

        long askedA = stage.timeline.now();
        Lease lease = new ZkMutex(frozen, lockPath).acquire();
        long grantedA = stage.timeline.now();
        long tokenA = lease.fencingToken();
        FencedStore.Write first = store.write(tokenA, "A-1");
        stage.say(HOLDER + " holds the lock, token " + hex(tokenA) + "; writes 'A-1' with it: "
                + (first.accepted() ? "accepted" : "refused"));

        proxy.freeze();
        stage.say(HOLDER + " freezes (its connection stops, as in a long GC pause); session timeout "
                + Durations.format(Duration.ofMillis(negotiated)));
        long askedB = stage.timeline.now();
        stage.say(NEXT + " asks for the lock ...");
        Duration bound = Duration.ofMillis(negotiated * 3 + 10_000);
        Optional<Lease> granted = new ZkMutex(next, lockPath).tryAcquire(bound);
        if (granted.isEmpty()) {
            proxy.thaw();
            stage.say(NEXT + " was not granted within " + Durations.format(bound));
            return List.of(Story.Check.of("successor granted once the frozen holder's session expired", false,
                    "not granted within " + Durations.format(bound)));
        }
        long grantedB = stage.timeline.now();
        long tokenB = granted.get().fencingToken();
        FencedStore.Write second = store.write(tokenB, "B-1");
        stage.say(NEXT + " granted after " + Durations.formatNanos(grantedB - askedB) + ", token " + hex(tokenB)
                + "; writes 'B-1' with it: " + (second.accepted() ? "accepted" : "refused"));

        // the frozen process wakes up and carries on where it stopped: it does not look at its lease first
        long wokeAt = stage.timeline.now();
        FencedStore.Write stale = store.write(tokenA, "A-2");
        stage.say(HOLDER + " wakes and, believing it still holds the lock, writes 'A-2' with token " + hex(tokenA)
                + " (its lease is " + lease.state() + " by now; a paused process does not look)");
        if (stale.accepted()) {
            stage.say(HOLDER + "'s stale write was ACCEPTED: the store now holds '" + store.value() + "'");
        } else {
            stage.say("REFUSED: the store rejects " + HOLDER + "'s write, token " + hex(tokenA)
                    + " < highest seen " + hex(stale.highestSeen()) + "; it keeps '" + store.value() + "'");
        }
        stage.timeline.bar(HOLDER, Timeline.Kind.MUTEX, askedA, grantedA, wokeAt, "token " + hex(tokenA) + ", frozen");
        stage.timeline.mark(HOLDER, wokeAt, "stale write refused (token " + hex(tokenA) + " < " + hex(stale.highestSeen()) + ")");
        granted.get().close();
        stage.timeline.bar(NEXT, Timeline.Kind.MUTEX, askedB, grantedB, stage.timeline.now(), "token " + hex(tokenB));
        proxy.thaw();
        lease.close();

        return List.of(
                Story.Check.of("successor granted once the frozen holder's session expired, with a higher token",
                        tokenB > tokenA && second.accepted(),
                        "after " + Durations.formatNanos(grantedB - askedB) + ", " + hex(tokenA) + " -> " + hex(tokenB)),
                Story.Check.of("the frozen holder's stale write refused", first.accepted() && !stale.accepted(),
                        "token " + hex(tokenA) + " < " + hex(stale.highestSeen())));
    }

    private static String hex(long token) {
        return "0x" + Long.toHexString(token);
    }
}
