package io.zklock.spring.boot;

import java.util.function.LongSupplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the client's ZooKeeper session, as a load balancer should read it: {@code UP}
 * while the session lives, including while the connection is down and the session not yet
 * expired ({@code connection: SUSPENDED} in the details: locks held are suspended, not lost,
 * and come back with the connection); {@code DOWN} only once the session is lost (locks held
 * are lost; the client makes a new session when it reconnects) or while none was ever
 * established. Details: the connection state, the session id and the server, and, when the
 * application's locks are measured ({@code ZkLockMetrics}, whose gauges count the same), the
 * lock nodes this application holds ({@code leasesHeld}) and its acquisitions waiting
 * ({@code requestsWaiting}) now. Reads the client's state and those counts only: no request
 * to ZooKeeper.
 */
public class ZkLockHealthIndicator implements HealthIndicator {
    private final CuratorFramework client;
    private final LongSupplier leasesHeld;
    private final LongSupplier requestsWaiting;
    private volatile ConnectionState last;     // null until the first state the client reports

    /** @param client the client whose session is reported */
    public ZkLockHealthIndicator(CuratorFramework client) {
        this(client, null, null);
    }

    /**
     * @param client the client whose session is reported
     * @param leasesHeld the lock nodes the application holds now, or null to show none
     * @param requestsWaiting the application's acquisitions waiting now, or null to show none
     */
    public ZkLockHealthIndicator(CuratorFramework client, LongSupplier leasesHeld, LongSupplier requestsWaiting) {
        this.client = client;
        this.leasesHeld = leasesHeld;
        this.requestsWaiting = requestsWaiting;
        client.getConnectionStateListenable().addListener((c, state) -> last = state);
    }

    @Override
    public Health health() {
        boolean connected = client.getZookeeperClient().isConnected();
        ConnectionState state = last;
        if (state == null) {
            state = connected ? ConnectionState.CONNECTED : null;
        } else if (connected && state == ConnectionState.LOST) {
            state = ConnectionState.RECONNECTED;     // a new session, reported before the listener heard it
        }
        Health.Builder health;
        if (state == null) {
            health = Health.down().withDetail("connection", "never established");
        } else if (state == ConnectionState.LOST) {
            health = Health.down().withDetail("connection", "LOST: the session expired; locks held were lost");
        } else {
            health = Health.up().withDetail("connection", state.name());
        }
        if (connected) {
            try {
                health.withDetail("sessionId", "0x" + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()));
            } catch (Exception e) {
                // no handle at the moment: no session id to show
            }
        }
        if (leasesHeld != null && requestsWaiting != null) {
            health.withDetail("leasesHeld", leasesHeld.getAsLong()).withDetail("requestsWaiting", requestsWaiting.getAsLong());
        }
        String server = client.getZookeeperClient().getCurrentConnectionString();
        return health.withDetail("connectString", server == null ? "none" : server).build();
    }
}
