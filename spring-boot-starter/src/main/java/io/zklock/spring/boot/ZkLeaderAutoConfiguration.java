package io.zklock.spring.boot;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.zklock.core.LockPaths;
import io.zklock.leader.ZkLeaderElection;
import io.zklock.spring.integration.ZkLeaderInitiator;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * Joins the application to a leader election when {@code zklock.leader.path} is set: a
 * {@link ZkLeaderInitiator} over a {@link ZkLeaderElection} on the starter's client, whose
 * candidate takes the role {@code zklock.leader.role} and is named {@code zklock.leader.participant-id}
 * (default: host name and process id). Spring Integration's {@code SmartLifecycleRoleController}
 * then runs the endpoints of that role on the leader only.
 *
 * <p>It steps aside for the application's own initiator: a {@code ZkLeaderInitiator}, a
 * {@code LockRegistryLeaderInitiator} or Spring Integration's ZooKeeper {@code LeaderInitiator}
 * bean. A {@code Candidate} bean of the application's is used instead of the default one (its
 * id and role then win over the properties).
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass({ZkLeaderInitiator.class, ZkLeaderElection.class, Candidate.class})
@ConditionalOnProperty(prefix = "zklock.leader", name = "path")
@ConditionalOnMissingBean(type = {"io.zklock.spring.integration.ZkLeaderInitiator",
        "org.springframework.integration.support.leader.LockRegistryLeaderInitiator",
        "org.springframework.integration.zookeeper.leader.LeaderInitiator"})
@EnableConfigurationProperties(ZkLeaderProperties.class)
public class ZkLeaderAutoConfiguration {
    /** Made by Spring Boot. */
    public ZkLeaderAutoConfiguration() {
    }

    /**
     * The initiator, started with the context unless {@code zklock.leader.auto-startup=false};
     * it steps down and leaves the election when the context closes.
     *
     * @param client the client
     * @param properties the {@code zklock.leader.} settings
     * @param candidates the application's own candidate, if any
     * @return the initiator
     */
    @Bean
    @ConditionalOnBean(CuratorFramework.class)
    public ZkLeaderInitiator zkLeaderInitiator(CuratorFramework client, ZkLeaderProperties properties,
            org.springframework.beans.factory.ObjectProvider<Candidate> candidates) {
        String path = properties.getPath();
        try {
            LockPaths.validate(path);
        } catch (IllegalArgumentException e) {
            throw new InvalidZkLockPropertyException("zklock.leader.path", path, e.getMessage());
        }
        Candidate candidate = candidates.getIfUnique(() -> new DefaultCandidate(participantId(properties), role(properties)));
        ZkLeaderInitiator initiator;
        try {
            initiator = new ZkLeaderInitiator(client, path, candidate);
        } catch (IllegalArgumentException e) {
            throw new InvalidZkLockPropertyException("zklock.leader.participant-id", candidate.getId(), e.getMessage());
        }
        initiator.setAutoStartup(properties.isAutoStartup());
        return initiator;
    }

    private static String role(ZkLeaderProperties properties) {
        String role = properties.getRole();
        if (role == null || role.isBlank()) {
            throw new InvalidZkLockPropertyException("zklock.leader.role", role, "it is blank: it names the role the leader takes");
        }
        return role;
    }

    private static String participantId(ZkLeaderProperties properties) {
        String id = properties.getParticipantId();
        if (id != null) {
            return id;
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        return host + ":" + ProcessHandle.current().pid();
    }
}
