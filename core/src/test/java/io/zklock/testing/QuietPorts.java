package io.zklock.testing;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.curator.test.InstanceSpec;

/**
 * Ports for servers a test stops and starts again on the same port. A port picked the usual way
 * (bind to 0) lies in the system's ephemeral range, from which every outgoing connection of the
 * machine takes its local port too: while the server is down, a connection of another test JVM
 * may take its port, and the restart fails to bind. These ports lie outside that range, where
 * only a listening socket that asks for them can take them. A JVM never hands out the same port
 * twice, and the test JVMs Surefire runs side by side ({@code zklock.fork}, its fork number) pick
 * from slices of their own, so no two of them pick the port of a server the other has stopped.
 */
public final class QuietPorts {
    private static final int SLICES = 8;
    private static final int[] RANGE = quietRange();
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private QuietPorts() {
    }

    /** A port outside the ephemeral range that nothing listens on now and this JVM has not handed out. */
    public static synchronized int next() {
        int fork = Integer.getInteger("zklock.fork", 1);
        int width = (RANGE[1] - RANGE[0]) / SLICES;
        int low = RANGE[0] + Math.floorMod(fork - 1, SLICES) * width;
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(low, low + width);
            if (HANDED_OUT.contains(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port)) {
                HANDED_OUT.add(port);
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IllegalStateException("no free port between " + low + " and " + (low + width));
    }

    /**
     * A server of an ensemble whose client, quorum and election ports are all {@linkplain #next()
     * quiet}, with a fresh data directory deleted on close.
     */
    public static InstanceSpec ensembleMember(int serverId, int tickMs) {
        return new InstanceSpec((File) null, next(), next(), next(), true, serverId, tickMs, -1);
    }

    /** The wider of the gaps below and above the ephemeral range, as [first, last). */
    private static int[] quietRange() {
        int start = 32_768;
        int end = 60_999;          // Linux's default range, when it cannot be read
        try {
            // a line read to its end: /proc files report a size of 0, which readString trusts
            String[] range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim().split("\\s+");
            start = Integer.parseInt(range[0]);
            end = Integer.parseInt(range[1]);
        } catch (IOException | RuntimeException unreadable) {
            // the default
        }
        int below = start - 10_000;
        int above = 65_535 - end;
        if (Math.max(below, above) < SLICES * 100) {
            throw new IllegalStateException("the ephemeral range " + start + "-" + end + " leaves no quiet ports");
        }
        return below >= above ? new int[] {10_000, start} : new int[] {end + 1, 65_536};
    }
}
