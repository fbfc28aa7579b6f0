package io.zklock.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** Clients and tree inspection for tests against a real server. */
public final class ZkTesting {
    private ZkTesting() {
    }

    /** A started, connected client with the given session timeout. */
    public static CuratorFramework client(String connectString, int sessionTimeoutMs) {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(10_000)
                .retryPolicy(new ExponentialBackoffRetry(20, 5, 500))
                .ensembleTracker(false)         // its watch on /zookeeper/config would count as ours
                .build();
        client.start();
        try {
            if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
                client.close();
                throw new IllegalStateException("could not connect to " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new IllegalStateException(e);
        }
        return client;
    }

    /** The children of {@code path}, or an empty list if it does not exist. */
    public static List<String> children(CuratorFramework client, String path) {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every node below {@code path} that is not a container (lock directories are containers,
     * which the server reaps on its own schedule): what a leak check must find empty.
     */
    public static List<String> nonContainerNodes(CuratorFramework client, String path) {
        List<String> out = new ArrayList<>();
        for (String child : children(client, path)) {
            String full = path + "/" + child;
            if (!isContainer(client, full)) {
                out.add(full);
            }
            out.addAll(nonContainerNodes(client, full));
        }
        return out;
    }

    /** Whether {@code path} is a container node (false if it does not exist). */
    public static boolean isContainer(CuratorFramework client, String path) {
        try {
            Stat stat = client.checkExists().forPath(path);
            return stat != null && stat.getEphemeralOwner() == CONTAINER_OWNER;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The ephemeralOwner ZooKeeper gives container nodes. */
    private static final long CONTAINER_OWNER = Long.MIN_VALUE;
}
