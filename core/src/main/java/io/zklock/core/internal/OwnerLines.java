package io.zklock.core.internal;

import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;

import io.zklock.core.OwnerInfo;

/*
 * The owner's lines of a lock node's data, written once, at the create (NodeData's top comment
 * lists every line of the data; NodeData splits the data into lines and calls these):
 *   host=, pid=, thread=, requested=      the owner (OwnerInfo)
 *   trace=<trace id>                      the owner's trace, when an observer gave the request one
 *   participant=<id>                      a leader election's candidate, after the lines above
 * The readers take the data's fields as NodeData parsed them (values already cut to
 * NodeData.MAX_VALUE) and never throw: a missing or unreadable owner line reads as a default.
 */
/** The owner's lines of a node's data (who, its trace, its participant): see the comment at the top of the class. */
final class OwnerLines {
    private static final String HOST = "host=";
    private static final String PID = "pid=";
    private static final String THREAD = "thread=";
    private static final String REQUESTED = "requested=";
    private static final String TRACE = "trace=";
    /** What a trace id may be: W3C and B3 ids are hex, others alphanumeric; nothing else is written or read. */
    private static final int MAX_TRACE_ID = 64;
    static final String PARTICIPANT = "participant=";
    private static final long LAST_FOUR_DIGIT_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

    private OwnerLines() {
    }

    /** {@return the owner's lines, each ended by a newline, and its trace id's line if {@code traceId} is one} */
    static String write(OwnerInfo owner, String traceId) {
        StringBuilder text = new StringBuilder(64 + owner.host().length() + owner.thread().length());
        text.append(HOST).append(NodeData.oneLine(owner.host())).append('\n').append(PID).append(owner.pid())
                .append('\n').append(THREAD).append(NodeData.oneLine(owner.thread())).append('\n').append(REQUESTED);
        appendInstant(text, owner.requestedAt());
        text.append('\n');
        if (traceId != null && isTraceId(traceId)) {
            text.append(TRACE).append(traceId).append('\n');
        }
        return text.toString();
    }

    /** {@return whether {@code key} (with its '=') is one of these lines' keys} */
    static boolean isOwnerKey(String key) {
        return key.equals(HOST) || key.equals(PID) || key.equals(THREAD) || key.equals(REQUESTED) || key.equals(TRACE)
                || key.equals(PARTICIPANT);
    }

    /** See {@link NodeData#checkParticipantId}. */
    static String checkParticipantId(String participantId) {
        if (participantId == null || participantId.isBlank()) {
            throw new IllegalArgumentException("participantId must not be null or blank, was " + participantId);
        }
        if (participantId.indexOf('\n') >= 0 || participantId.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("participantId must be one line, was \"" + NodeData.oneLine(participantId) + "\"");
        }
        if (participantId.length() > NodeData.MAX_VALUE) {
            throw new IllegalArgumentException("participantId must be at most " + NodeData.MAX_VALUE + " characters, was "
                    + participantId.length());
        }
        return participantId;
    }

    /** See {@link NodeData#owner}. */
    static OwnerInfo owner(Map<String, String> fields) {
        long pid;
        try {
            pid = Long.parseLong(fields.getOrDefault(PID, "-1"));
        } catch (NumberFormatException e) {
            pid = -1;
        }
        return new OwnerInfo(fields.getOrDefault(HOST, "?"), pid, fields.getOrDefault(THREAD, "?"),
                instant(fields.get(REQUESTED)));
    }

    /** See {@link NodeData#traceId}. */
    static Optional<String> traceId(Map<String, String> fields) {
        String id = fields.get(TRACE);
        return id != null && isTraceId(id) ? Optional.of(id) : Optional.empty();
    }

    /** See {@link NodeData#isTraceId}. */
    static boolean isTraceId(String id) {
        if (id.isEmpty() || id.length() > MAX_TRACE_ID) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** See {@link NodeData#participantId}. */
    static Optional<String> participantId(Map<String, String> fields) {
        String id = fields.get(PARTICIPANT);
        return id == null || id.isBlank() ? Optional.empty() : Optional.of(id);
    }

    /** See {@link NodeData#isOwnerData}. */
    static boolean isOwnerData(Map<String, String> fields) {
        if (!fields.containsKey(HOST) || !fields.containsKey(THREAD) || !fields.containsKey(PID) || !fields.containsKey(REQUESTED)) {
            return false;
        }
        try {
            Long.parseLong(fields.get(PID));
            Instant.parse(fields.get(REQUESTED));
            return true;
        } catch (NumberFormatException | DateTimeParseException e) {
            return false;
        }
    }

    private static Instant instant(String text) {
        if (text == null) {
            return Instant.EPOCH;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
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

    private static StringBuilder digits(StringBuilder b, int value, int width) {
        for (int p = width - 1, div = (int) Math.pow(10, p); p >= 0; p--, div /= 10) {
            b.append((char) ('0' + value / div % 10));
        }
        return b;
    }
}
