package io.zklock.testing;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.curator.test.InstanceSpec;

/**
 * Ports for servers a test stops and starts again on the same port. A port picked the usual way
 * (bind to 0) lies in the system's ephemeral range, from which every outgoing connection of the
 * machine takes its local port too: while the server is down, a connection of another test JVM
 * may take its port, and the restart fails to bind. These ports lie below that range, where only
 * a listening socket that asks for them can take them.
 */
public final class QuietPorts {
    private static final int LOWEST = 10_000;
    /** Where the system's ephemeral range starts (Linux's default when it cannot be read). */
    private static final int EPHEMERAL_START = ephemeralStart();

    private QuietPorts() {
    }

    /** A port below the ephemeral range that nothing listens on now. */
    public static int next() {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, EPHEMERAL_START);
            try (ServerSocket socket = new ServerSocket(port)) {
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IllegalStateException("no free port between " + LOWEST + " and " + EPHEMERAL_START);
    }

    /**
     * A server of an ensemble whose client, quorum and election ports are all {@linkplain #next()
     * quiet}, with a fresh data directory deleted on close.
     */
    public static InstanceSpec ensembleMember(int serverId, int tickMs) {
        return new InstanceSpec((File) null, next(), next(), next(), true, serverId, tickMs, -1);
    }

    private static int ephemeralStart() {
        try {
            // a line read to its end: /proc files report a size of 0, which readString trusts
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
            int start = Integer.parseInt(range.split("\\s+")[0]);
            return start > LOWEST + 1_000 ? start : 32_768;
        } catch (IOException | RuntimeException unreadable) {
            return 32_768;
        }
    }
}
