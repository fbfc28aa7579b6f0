package io.zklock.conformance.harness;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

import io.zklock.testing.QuietPorts;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three-server ensembles for the fault suites, which kill and restart their members: on
 * {@linkplain QuietPorts quiet ports}, so that a member's port is still free when it restarts,
 * started again from fresh ports when a start fails, and checked before each use, so that a
 * member a previous run could not bring back does not fail every run after it.
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
     * {@code cluster} if every member accepts connections within a few seconds; otherwise it is
     * closed and a new ensemble is started (logged: what the last run left down is the harness's
     * failure, reported by that run).
     */
    public static TestingCluster serving(TestingCluster cluster, int tickMs) throws Exception {
        long deadline = System.nanoTime() + SERVING_WAIT_MS * 1_000_000;
        List<InstanceSpec> down = down(cluster);
        while (!down.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(100);
            down = down(cluster);
        }
        if (down.isEmpty()) {
            return cluster;
        }
        LOG.warn("ensemble members down before a run: {}; starting a new ensemble", down);
        close(cluster);
        return start(tickMs);
    }

    private static List<InstanceSpec> down(TestingCluster cluster) {
        List<InstanceSpec> down = new ArrayList<>();
        for (InstanceSpec spec : cluster.getInstances()) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", spec.getPort()), 500);
            } catch (IOException e) {
                down.add(spec);
            }
        }
        return down;
    }

    private static void close(TestingCluster cluster) {
        try {
            cluster.close();
        } catch (Exception e) {
            LOG.warn("closing an ensemble on {} failed: {}", cluster.getConnectString(), e.toString());
        }
    }
}
