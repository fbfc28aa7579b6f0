package io.zklock.spring.boot;

import java.io.IOException;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * An application with the starter and {@code zklock.leader.path} set, run as a process of its
 * own by {@link ZkLeaderKilledInstanceTest}: arguments are the connect string, the session
 * timeout, the election's path and the participant id. It runs until it is killed, or until its
 * standard input closes (the test's JVM went away).
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ZkLockAutoConfiguration.class, ZkLeaderAutoConfiguration.class})
public class LeaderInstance {
    /**
     * @param args connect string, session timeout (a duration such as {@code 2s}), path, participant id
     * @throws IOException if standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(LeaderInstance.class)
                .web(WebApplicationType.NONE)
                .properties("zklock.connect-string=" + args[0], "zklock.session-timeout=" + args[1],
                        "zklock.leader.path=" + args[2], "zklock.leader.participant-id=" + args[3],
                        "spring.main.banner-mode=off")
                .run();
        while (System.in.read() != -1) {
            // nothing is expected on standard input: it only tells when the test's JVM is gone
        }
        context.close();
    }
}
