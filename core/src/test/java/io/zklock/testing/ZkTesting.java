package io.zklock.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

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
     * Every lock node ({@code _c_...}) at any depth below {@code path}: what a leak check must
     * find empty. Directories are left out: they are containers, which the server reaps on its
     * own schedule (a client cannot tell a container from its Stat).
     */
    public static List<String> lockNodesBelow(CuratorFramework client, String path) {
        List<String> out = new ArrayList<>();
        for (String child : children(client, path)) {
            String full = path + "/" + child;
            if (child.startsWith("_c_")) {
                out.add(full);
            }
            out.addAll(lockNodesBelow(client, full));
        }
        return out;
    }
}
