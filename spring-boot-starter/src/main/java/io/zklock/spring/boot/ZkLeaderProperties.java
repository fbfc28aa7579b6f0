package io.zklock.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code zklock.leader.}: the leader election the starter joins for the
 * application ({@link ZkLeaderAutoConfiguration}). Nothing is joined unless
 * {@code zklock.leader.path} is set.
 */
@ConfigurationProperties("zklock.leader")
public class ZkLeaderProperties {
    /** The election's ZooKeeper path, absolute (e.g. /elections/orders); every instance of the application names the same one. */
    private String path;
    /** The Spring Integration role the leader takes: SmartLifecycleRoleController starts the endpoints of this role on the leader only. */
    private String role = "leader";
    /** This instance's participant id, as observers and zklock status show it; default the host name and process id. */
    private String participantId;
    /** Whether the application context starts the election (joins it) when it starts. */
    private boolean autoStartup = true;

    /** {@return the election's path; none by default (no election)} */
    public String getPath() {
        return path;
    }

    /** @param path the election's path, absolute */
    public void setPath(String path) {
        this.path = path;
    }

    /** {@return the role the leader takes; default {@code leader}} */
    public String getRole() {
        return role;
    }

    /** @param role the role the leader takes */
    public void setRole(String role) {
        this.role = role;
    }

    /** {@return this instance's participant id; null for the default, the host name and process id} */
    public String getParticipantId() {
        return participantId;
    }

    /** @param participantId this instance's participant id */
    public void setParticipantId(String participantId) {
        this.participantId = participantId;
    }

    /** {@return whether the context starts the election; default true} */
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /** @param autoStartup whether the context starts the election */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }
}
