package io.zklock.cli;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.zklock.core.LeaseState;
import io.zklock.leader.LeaderInfo;
import io.zklock.leader.LeaderSubscription;
import io.zklock.leader.Leadership;
import io.zklock.leader.ZkLeaderElection;
import org.apache.curator.framework.CuratorFramework;

/**
 * Leader election: a leader is frozen past its session timeout (its connection goes through a
 * {@link FreezingProxy}). The server expires its session, the standby leads with a larger
 * epoch and writes with it; an observer's watch tells the change. The frozen leader then wakes
 * and writes with its old epoch without looking at its leadership: the store refuses it. Its
 * leadership says LOST once it hears from the ensemble.
 */
final class ElectionStory implements Story {
    private static final String LEADER = "elect-A";
    private static final String STANDBY = "elect-B";

    @Override
    public Result run(Stage stage) throws Exception {
        stage.print("");
        stage.print("== leader election: a leader frozen past its session timeout ==");
        stage.timeline.lane(LEADER, "election");
        stage.timeline.lane(STANDBY, "election");
        long started = System.nanoTime();
        String path = stage.root + "/election";
        try (FreezingProxy proxy = FreezingProxy.start(stage.connectString.split(",")[0].trim())) {
            CuratorFramework frozen = stage.session(proxy.connectString(), (int) stage.sessionTimeout.toMillis());
            try {
                List<Check> checks = story(stage, proxy, frozen, path);
                return new Result("leader", 2, 2, System.nanoTime() - started, 1, checks);
            } finally {
                proxy.thaw();
                frozen.close();
            }
        }
    }

    private List<Check> story(Stage stage, FreezingProxy proxy, CuratorFramework frozen, String path) throws Exception {
        FencedStore store = new FencedStore();
        CuratorFramework standbySession = stage.session();
        long negotiated = frozen.getZookeeperClient().getZooKeeper().getSessionTimeout();
        ZkLeaderElection a = new ZkLeaderElection(frozen, path, LEADER);
        ZkLeaderElection b = new ZkLeaderElection(standbySession, path, STANDBY);

        long askedA = stage.timeline.now();
        Leadership first = a.awaitLeadership();
        long grantedA = stage.timeline.now();
        FencedStore.Write write = store.write(first.epoch(), "A-1");
        stage.say(LEADER + " leads, epoch " + hex(first.epoch()) + "; writes 'A-1' with it: " + (write.accepted() ? "accepted" : "refused"));
        long askedB = stage.timeline.now();
        CompletableFuture<Leadership> next = b.leadershipAsync();
        List<String> heard = new CopyOnWriteArrayList<>();
        LeaderSubscription observing = b.onLeaderChange(leader -> heard.add(leader.map(LeaderInfo::participantId).orElse("nobody")));
        stage.say(STANDBY + " waits as a candidate, on a watch of " + LEADER + "'s node (no polling)");

        proxy.freeze();
        long frozenAt = System.nanoTime();
        stage.say(LEADER + " freezes (as in a long GC pause); session timeout " + Durations.format(Duration.ofMillis(negotiated)));
        Duration bound = Duration.ofMillis(negotiated * 3 + 10_000);
        Leadership second;
        try {
            second = next.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            next.cancel(false);
            observing.close();
            return List.of(Check.of("the standby leads once the frozen leader's session expired", false,
                    "not within " + Durations.format(bound)));
        }
        long grantedB = stage.timeline.now();
        long tookNanos = System.nanoTime() - frozenAt;
        FencedStore.Write newer = store.write(second.epoch(), "B-1");
        stage.say(STANDBY + " leads " + Durations.formatNanos(tookNanos) + " after the freeze, epoch " + hex(second.epoch())
                + "; writes 'B-1': " + (newer.accepted() ? "accepted" : "refused"));
        Optional<LeaderInfo> current = b.currentLeader();
        stage.say("observers hear the leader change: " + String.join(" -> ", heard));

        long wokeAt = stage.timeline.now();
        FencedStore.Write stale = store.write(first.epoch(), "A-2");
        stage.say(LEADER + " wakes and, not looking at its leadership (" + first.state() + " by now), writes 'A-2' with epoch "
                + hex(first.epoch()) + ": "
                + (stale.accepted() ? "ACCEPTED" : "REFUSED (epoch " + hex(first.epoch()) + " < " + hex(stale.highestSeen()) + ")")
                + "; the store keeps '" + store.value() + "'");
        stage.timeline.bar(LEADER, Timeline.Kind.LEADER, askedA, grantedA, wokeAt, "epoch " + hex(first.epoch()) + ", frozen");
        stage.timeline.mark(LEADER, wokeAt, "stale write refused (epoch " + hex(first.epoch()) + " < " + hex(stale.highestSeen()) + ")");
        proxy.thaw();
        long lostBy = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(negotiated * 2 + 5_000);
        while (first.state() != LeaseState.LOST && System.nanoTime() < lostBy) {
            Thread.sleep(20);
        }
        stage.say(LEADER + "'s leadership, once it hears from the ensemble: " + first.state());
        observing.close();
        second.close();
        stage.timeline.bar(STANDBY, Timeline.Kind.LEADER, askedB, grantedB, stage.timeline.now(), "epoch " + hex(second.epoch()));
        a.close();
        b.close();

        return List.of(
                Check.of("the standby leads once the frozen leader's session expired, with a larger epoch",
                        second.epoch() > first.epoch() && newer.accepted(),
                        "after " + Durations.formatNanos(tookNanos) + ", " + hex(first.epoch()) + " -> " + hex(second.epoch())),
                Check.of("the deposed leader's write refused", write.accepted() && !stale.accepted(),
                        "epoch " + hex(first.epoch()) + " < " + hex(stale.highestSeen())),
                Check.of("observers told the new leader", current.map(l -> l.participantId().equals(STANDBY)).orElse(false)
                        && !heard.isEmpty() && heard.get(heard.size() - 1).equals(STANDBY), String.join(" -> ", heard)));
    }

    private static String hex(long epoch) {
        return "0x" + Long.toHexString(epoch);
    }
}
