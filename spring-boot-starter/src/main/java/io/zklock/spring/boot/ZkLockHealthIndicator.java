package io.zklock.spring.boot;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the connection to the ZooKeeper ensemble: {@code UP} while the client is
 * connected, {@code DOWN} otherwise (locks held meanwhile are suspended, and lost if the
 * session expires). Reads the client's state only: no request to ZooKeeper.
 */
public class ZkLockHealthIndicator implements HealthIndicator {
    private final CuratorFramework client;

    /** @param client the client whose connection is reported */
    public ZkLockHealthIndicator(CuratorFramework client) {
        this.client = client;
    }

    @Override
    public Health health() {
        boolean connected = client.getZookeeperClient().isConnected();
        Health.Builder health = connected ? Health.up() : Health.down();
        String server = client.getZookeeperClient().getCurrentConnectionString();
        return health.withDetail("connectString", server == null ? "none" : server).build();
    }
}
