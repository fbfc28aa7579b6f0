package io.zklock.core;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
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

    /** {@return the current process and thread, now} */
    @SuppressWarnings("deprecation")           // Thread.threadId() is JDK 19+; getId() is the same number
    public static OwnerInfo current() {
        String name = Thread.currentThread().getName();
        if (name.isEmpty()) {
            name = "thread-" + Thread.currentThread().getId();
        }
        if (name.length() > MAX_THREAD_NAME) {
            name = name.substring(0, MAX_THREAD_NAME);
        }
        return new OwnerInfo(HOST, ProcessHandle.current().pid(), name, Instant.now());
    }

    /** {@return the bytes stored in a node} */
    public byte[] toBytes() {
        StringBuilder text = new StringBuilder(64 + host.length() + thread.length());
        text.append("host=").append(oneLine(host)).append("\npid=").append(pid)
                .append("\nthread=").append(oneLine(thread)).append("\nrequested=");
        appendInstant(text, requestedAt);
        return text.append('\n').toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Appends exactly what {@code Instant.toString()} gives; for the years 1970 to 9999 without
     * the java.time formatter, which every acquisition paid on the caller's thread before its
     * create was sent (about 1.5 us cold, more under load; this takes a fraction of that).
     */
    private static void appendInstant(StringBuilder b, Instant t) {
        long seconds = t.getEpochSecond();
        long day = Math.floorDiv(seconds, 86_400L);
        if (day < 0 || day > LAST_FOUR_DIGIT_DAY) {
            b.append(t);
            return;
        }
        LocalDate date = LocalDate.ofEpochDay(day);
        int secondOfDay = (int) Math.floorMod(seconds, 86_400L);
        digits(b, date.getYear(), 4).append('-');
        digits(b, date.getMonthValue(), 2).append('-');
        digits(b, date.getDayOfMonth(), 2).append('T');
        digits(b, secondOfDay / 3600, 2).append(':');
        digits(b, secondOfDay / 60 % 60, 2).append(':');
        digits(b, secondOfDay % 60, 2);
        int nano = t.getNano();
        if (nano != 0) {
            b.append('.');
            if (nano % 1_000_000 == 0) {
                digits(b, nano / 1_000_000, 3);
            } else if (nano % 1_000 == 0) {
                digits(b, nano / 1_000, 6);
            } else {
                digits(b, nano, 9);
            }
        }
        b.append('Z');
    }

    private static final long LAST_FOUR_DIGIT_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

    private static StringBuilder digits(StringBuilder b, int value, int width) {
        for (int p = width - 1, div = (int) Math.pow(10, p); p >= 0; p--, div /= 10) {
            b.append((char) ('0' + value / div % 10));
        }
        return b;
    }

    /**
     * Reads node data written by {@link #toBytes()}; anything missing or unreadable becomes
     * {@code "?"}, {@code -1} or {@link Instant#EPOCH}, as foreign data must not break status.
     *
     * @param data a node's data, or {@code null}
     * @return the owner described by it
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
