package io.zklock.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/** Server-side session expiry, the real thing rather than a client-side simulation. */
public final class Sessions {
    private Sessions() {
    }

    /**
     * Expires {@code client}'s current session on the server: a second handle attaches to the
     * same session and closes it, so the server deletes the session's ephemeral nodes at once
     * and the client learns of the expiry when it next talks to the server.
     */
    public static void expire(CuratorFramework client, String connectString) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        long id = zk.getSessionId();
        byte[] password = zk.getSessionPasswd();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString, 30_000, event -> {
            if (event.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, id, password);
        try {
            if (!connected.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not attach to session 0x" + Long.toHexString(id));
            }
        } finally {
            twin.close();
        }
    }
}
