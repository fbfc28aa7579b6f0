package io.zklock.conformance.harness;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.zklock.testing.QuietPorts;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three-server ensembles for the fault suites, which kill and restart their members: on
 * {@linkplain QuietPorts quiet ports}, so that a member's port is still free when it restarts,
 * started again from fresh ports when a start fails, and checked before each use, so that a
 * member a previous run could not bring back (or an ensemble it left without a leader) does not
 * fail every run after it.
 */
public final class Ensembles {
    private static final Logger LOG = LoggerFactory.getLogger(Ensembles.class);
    private static final int STARTS = 3;
    private static final long SERVING_WAIT_MS = 5_000;

    private Ensembles() {
    }

    /** A started ensemble of three servers with the given tick. */
    public static TestingCluster start(int tickMs) throws Exception {
        Exception last = null;
        for (int attempt = 1; attempt <= STARTS; attempt++) {
            List<InstanceSpec> specs = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                specs.add(QuietPorts.ensembleMember(id, tickMs));
            }
            TestingCluster cluster = new TestingCluster(specs.toArray(InstanceSpec[]::new));
            try {
                cluster.start();
                return cluster;
            } catch (Exception e) {
                LOG.warn("an ensemble on {} did not start (attempt {} of {}): {}", cluster.getConnectString(), attempt, STARTS, e.toString());
                last = e;
                close(cluster);
            }
        }
        throw new IllegalStateException("no ensemble started in " + STARTS + " attempts", last);
    }

    /**
     * {@code cluster} if every member serves a session within a few seconds (a member up but
     * without a leader accepts connections and serves none); otherwise it is closed and a new
     * ensemble is started (logged: what the last run left down is that run's failure, reported by
     * it).
     */
    public static TestingCluster serving(TestingCluster cluster, int tickMs) throws Exception {
        List<InstanceSpec> down = new ArrayList<>();
        for (InstanceSpec spec : cluster.getInstances()) {
            if (!servesASession(spec)) {
                down.add(spec);
            }
        }
        if (down.isEmpty()) {
            return cluster;
        }
        LOG.warn("ensemble members serving no session before a run: {}; starting a new ensemble", down);
        close(cluster);
        return start(tickMs);
    }

    private static boolean servesASession(InstanceSpec member) throws InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(member.getConnectString(), 3_000, event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
        } catch (IOException e) {
            return false;
        }
        try {
            return connected.await(SERVING_WAIT_MS, TimeUnit.MILLISECONDS);
        } finally {
            zk.close();
        }
    }

    private static void close(TestingCluster cluster) {
        try {
            cluster.close();
        } catch (Exception e) {
            LOG.warn("closing an ensemble on {} failed: {}", cluster.getConnectString(), e.toString());
        }
    }
}
