package io.zklock.conformance.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import io.zklock.testing.ZkTesting;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * The fault suites' ensembles: a member left down by a previous run (a restart that failed) is
 * noticed before the next run, which gets a new ensemble that serves, instead of every later run
 * failing against a lost quorum; and their ports lie outside the ephemeral range, where outgoing
 * connections cannot take them while a member is down, none given twice.
 */
class EnsemblesSelfTest {
    private static final int TICK_MS = 200;

    @Test
    void anEnsembleWithAMemberLeftDownIsReplacedByOneThatServes() throws Exception {
        TestingCluster first = Ensembles.start(TICK_MS);
        TestingCluster next = null;
        try {
            assertSame(first, Ensembles.serving(first, TICK_MS), "an ensemble whose members all serve is kept");
            InstanceSpec left = first.getInstances().iterator().next();
            first.killServer(left);
            next = Ensembles.serving(first, TICK_MS);
            assertNotEquals(first.getConnectString(), next.getConnectString(), "a member down: a new ensemble");
            try (CuratorFramework client = ZkTesting.client(next.getConnectString(), 3_000)) {
                String node = client.create().withMode(CreateMode.EPHEMERAL).forPath("/served");
                assertEquals("/served", node, "the new ensemble serves");
            }
            Path file = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
            String[] range = Files.exists(file) ? Files.readAllLines(file).get(0).trim().split("\\s+") : new String[] {"32768", "60999"};
            Set<Integer> ports = new HashSet<>();
            for (InstanceSpec spec : next.getInstances()) {
                for (int port : new int[] {spec.getPort(), spec.getQuorumPort(), spec.getElectionPort()}) {
                    assertTrue(port < Integer.parseInt(range[0]) || port > Integer.parseInt(range[1]),
                            "port " + port + " of " + spec + " outside the ephemeral range " + String.join("-", range));
                    assertTrue(ports.add(port), "port " + port + " given twice");
                }
            }
        } finally {
            first.close();                                   // closing twice is harmless
            if (next != null) {
                next.close();
            }
        }
    }
}
