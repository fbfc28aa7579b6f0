package io.zklock.core;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who asked for a node: stored in the node as short UTF-8 {@code key=value} lines so that
 * {@code zklock status} can show who holds and who waits.
 *
 * @param host host name of the requesting process
 * @param pid its process id
 * @param thread name of the requesting thread
 * @param requestedAt when the request was made
 */
public record OwnerInfo(String host, long pid, String thread, Instant requestedAt) {

    private static final String HOST = resolveHost();
    private static final int MAX_THREAD_NAME = 100;

    /** The current process and thread, now. */
    public static OwnerInfo current() {
        String name = Thread.currentThread().getName();
        if (name.isEmpty()) {
            name = "thread-" + Owners.current();
        }
        if (name.length() > MAX_THREAD_NAME) {
            name = name.substring(0, MAX_THREAD_NAME);
        }
        return new OwnerInfo(HOST, ProcessHandle.current().pid(), name, Instant.now());
    }

    /** The bytes stored in a node. */
    public byte[] toBytes() {
        String text = "host=" + oneLine(host) + "\npid=" + pid + "\nthread=" + oneLine(thread)
                + "\nrequested=" + requestedAt + "\n";
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads node data written by {@link #toBytes()}; anything missing or unreadable becomes
     * {@code "?"}, {@code -1} or {@link Instant#EPOCH}, as foreign data must not break status.
     */
    public static OwnerInfo parse(byte[] data) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (data != null) {
            for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    fields.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        }
        long pid;
        try {
            pid = Long.parseLong(fields.getOrDefault("pid", "-1"));
        } catch (NumberFormatException e) {
            pid = -1;
        }
        Instant at;
        try {
            at = Instant.parse(fields.getOrDefault("requested", Instant.EPOCH.toString()));
        } catch (DateTimeParseException e) {
            at = Instant.EPOCH;
        }
        return new OwnerInfo(fields.getOrDefault("host", "?"), pid, fields.getOrDefault("thread", "?"), at);
    }

    @Override
    public String toString() {
        return thread + "@" + host + "[pid " + pid + "] since " + requestedAt;
    }

    private static String oneLine(String s) {
        return s.replace('\n', ' ').replace('\r', ' ');
    }

    private static String resolveHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
