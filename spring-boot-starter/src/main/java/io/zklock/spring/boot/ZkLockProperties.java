package io.zklock.spring.boot;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code zklock.}: where the ZooKeeper ensemble is and where the locks live.
 * The connection settings apply only to the client the starter makes; an application that
 * defines its own {@code CuratorFramework} bean keeps its own.
 */
@ConfigurationProperties("zklock")
public class ZkLockProperties {
    /** The ZooKeeper ensemble, host:port[,host:port...][/chroot]. */
    private String connectString = "localhost:2181";
    /** The ZooKeeper path under which the starter's beans keep their locks (the lock registry's under <root>/spring-integration, ShedLock's under <root>/shedlock). */
    private String root = "/zklock";
    /** The session timeout the client asks for; the server may bound it. */
    private Duration sessionTimeout = Duration.ofSeconds(60);
    /** How long the start-up waits for the first connection to the ensemble, and Curator for each connection attempt. */
    private Duration connectionTimeout = Duration.ofSeconds(15);

    /** {@return the ensemble, {@code host:port[,host:port...][/chroot]}; default {@code localhost:2181}} */
    public String getConnectString() {
        return connectString;
    }

    /** @param connectString the ensemble, {@code host:port[,host:port...][/chroot]} */
    public void setConnectString(String connectString) {
        this.connectString = connectString;
    }

    /**
     * {@return the ZooKeeper path under which the starter's beans keep their locks; default
     * {@code /zklock}: the lock registry under {@code <root>/spring-integration}, ShedLock's
     * provider under {@code <root>/shedlock}}
     */
    public String getRoot() {
        return root;
    }

    /** @param root an absolute ZooKeeper path, not under {@code /zookeeper} */
    public void setRoot(String root) {
        this.root = root;
    }

    /** {@return the session timeout the client asks for (the server may bound it); default 60 s} */
    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    /** @param sessionTimeout the session timeout to ask for */
    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    /**
     * {@return how long the start-up waits for the first connection, and Curator for each
     * connection attempt; default 15 s}
     */
    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    /** @param connectionTimeout how long to wait for a connection */
    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }
}
