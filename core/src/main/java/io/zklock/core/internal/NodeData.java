package io.zklock.core.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.zklock.core.OwnerInfo;
import io.zklock.core.RevocationRequest;
import org.apache.zookeeper.data.Stat;

/*
 * The one home of what a lock node's data says: short UTF-8 "key=value" lines, one per line.
 *   host=, pid=, thread=, requested=      the owner (OwnerInfo), written at the create
 *   trace=<trace id>                      the owner's trace, written at the create when an observer
 *                                         gave the request one (older readers skip the line)
 *   participant=<id>                      a leader election's candidate, after the owner's lines,
 *                                         written at the create (Participant.participantId)
 *   multi=<n>                             on each node of a multi-lock's transaction over n locks
 *   granted=yes                           once a semaphore node announced its grant
 *   revoke-requested=, revoke-by=         a RevocationRequest, written by LockAdmin
 *   asked-back-by=<waiting node>          a waiter asks a cached node back (AskBack); only the
 *                                         holder's cache hears it, never its lease's handlers
 *   lock-delay-until=<instant>            a granted node waits out a lock-delay (LockDelay) until then
 * Every writer keeps the lines it found and appends its own: a node's data only grows, up to
 * MAX_WRITTEN bytes; past that (another client wrote up to ZooKeeper's 1 MB into the node) a
 * writer keeps only this codec's lines, as a larger write would be refused by the server as a
 * connection error. Node data is written by other clients too, so every reader here takes any
 * bytes (null, empty, huge, invalid UTF-8, lines without '=') and never throws: what it cannot
 * read is a default, and values are cut to MAX_VALUE characters. A revocation request counts
 * only when both of its lines are there and its time is a well-formed instant: garbage that
 * merely contains "revoke-requested=" is no request.
 */
/** The node-data line formats, in one codec; see the comment at the top of the class. */
public final class NodeData {
    private static final String HOST = "host=";
    private static final String PID = "pid=";
    private static final String THREAD = "thread=";
    private static final String REQUESTED = "requested=";
    private static final String TRACE = "trace=";
    /** What a trace id may be: W3C and B3 ids are hex, others alphanumeric; nothing else is written or read. */
    private static final int MAX_TRACE_ID = 64;
    private static final String PARTICIPANT = "participant=";
    private static final String GRANTED = "granted=yes";
    private static final String MULTI = "multi=";
    private static final String REVOKE_AT = "revoke-requested=";
    private static final String REVOKE_BY = "revoke-by=";
    private static final String ASKED_BACK = "asked-back-by=";
    private static final String LOCK_DELAY = "lock-delay-until=";
    private static final long LAST_FOUR_DIGIT_DAY = LocalDate.of(9999, 12, 31).toEpochDay();
    /** The most a writer here lets a node's data grow to; ZooKeeper refuses packets over about 1 MB. */
    static final int MAX_WRITTEN = 512 * 1024;
    /** The longest value a reader keeps; the rest of a longer one is cut. */
    static final int MAX_VALUE = 256;

    private NodeData() {
    }

    // ---- writing ----------------------------------------------------------------------------

    /** {@return the data a node is created with: its owner's lines} */
    public static byte[] of(OwnerInfo owner) {
        return of(owner, null);
    }

    /**
     * The data a node is created with: its owner's lines, and its owner's trace id if it has one
     * (a waiter's observer reads it back with {@link #traceId}). A trace id that is not one
     * ({@link #isTraceId}) is left out.
     *
     * @param owner the owner
     * @param traceId the trace the request runs in, or null
     * @return the data
     */
    public static byte[] of(OwnerInfo owner, String traceId) {
        StringBuilder text = new StringBuilder(64 + owner.host().length() + owner.thread().length());
        text.append(HOST).append(oneLine(owner.host())).append('\n').append(PID).append(owner.pid())
                .append('\n').append(THREAD).append(oneLine(owner.thread())).append('\n').append(REQUESTED);
        appendInstant(text, owner.requestedAt());
        text.append('\n');
        if (traceId != null && isTraceId(traceId)) {
            text.append(TRACE).append(traceId).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The data a node is created with when its request names a participant (a leader election's
     * candidate): its owner's lines, then the participant's.
     *
     * @param owner who asks
     * @param traceId the owner's trace id (see {@link #of(OwnerInfo, String)}); null for none
     * @param participantId the participant's id, checked by {@link #checkParticipantId}; null for none
     * @return the data
     */
    public static byte[] ofParticipant(OwnerInfo owner, String traceId, String participantId) {
        return participantId == null ? of(owner, traceId) : withLine(of(owner, traceId), PARTICIPANT + participantId);
    }

    /**
     * Checks a participant id before it is written: not blank, one line, at most
     * {@link #MAX_VALUE} characters (what a reader keeps).
     *
     * @param participantId the id
     * @return the id
     * @throws IllegalArgumentException naming the bad value
     */
    public static String checkParticipantId(String participantId) {
        if (participantId == null || participantId.isBlank()) {
            throw new IllegalArgumentException("participantId must not be null or blank, was " + participantId);
        }
        if (participantId.indexOf('\n') >= 0 || participantId.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("participantId must be one line, was \"" + oneLine(participantId) + "\"");
        }
        if (participantId.length() > MAX_VALUE) {
            throw new IllegalArgumentException("participantId must be at most " + MAX_VALUE + " characters, was "
                    + participantId.length());
        }
        return participantId;
    }

    /** {@return the data of a node made by a multi-lock over {@code locks} locks} */
    public static byte[] ofMulti(byte[] ownerData, int locks) {
        return withLine(ownerData, MULTI + locks);
    }

    /** {@return {@code data} with the grant announcement appended} */
    public static byte[] withGrant(byte[] data) {
        return withLine(data, GRANTED);
    }

    /** {@return {@code data} with {@code request}'s lines appended; the lines found are kept} */
    public static byte[] withRevocationRequest(byte[] data, RevocationRequest request) {
        return withLine(withLine(data, REVOKE_AT + request.requestedAt()), REVOKE_BY + oneLine(request.requestedBy()));
    }

    /** {@return {@code data} with a waiter's ask for the cached node appended; the lines found are kept} */
    public static byte[] withAskBack(byte[] data, String waitingNode) {
        return withLine(data, ASKED_BACK + oneLine(waitingNode));
    }

    /** {@return {@code data} with the line of a granted node that waits out a lock-delay until {@code until}} */
    public static byte[] withLockDelay(byte[] data, Instant until) {
        return withLine(data, LOCK_DELAY + until);
    }

    // ---- reading ----------------------------------------------------------------------------

    /** {@return the end of the lock-delay the node waits out, if its data says so and the time is well-formed} */
    public static Optional<Instant> lockDelayUntil(byte[] data) {
        String value = fields(data).get(LOCK_DELAY);
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(value.trim()));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** {@return whether a waiter asked the node back (a cached node's process then lets it go)} */
    public static boolean askedBack(byte[] data) {
        String by = fields(data).get(ASKED_BACK);
        return by != null && !by.isBlank();
    }

    /**
     * The owner the data names; anything missing or unreadable becomes {@code "?"}, {@code -1}
     * or {@link Instant#EPOCH}, as foreign data must not break status.
     *
     * @param data a node's data, or {@code null}
     * @return the owner described by it
     */
    public static OwnerInfo owner(byte[] data) {
        Map<String, String> fields = fields(data);
        long pid;
        try {
            pid = Long.parseLong(fields.getOrDefault(PID, "-1"));
        } catch (NumberFormatException e) {
            pid = -1;
        }
        return new OwnerInfo(fields.getOrDefault(HOST, "?"), pid, fields.getOrDefault(THREAD, "?"),
                instant(fields.get(REQUESTED)));
    }

    /**
     * The trace id the node's owner wrote at its create, if it wrote one that is one.
     *
     * @param data a node's data, or null
     * @return the trace id, or empty
     */
    public static Optional<String> traceId(byte[] data) {
        String id = fields(data).get(TRACE);
        return id != null && isTraceId(id) ? Optional.of(id) : Optional.empty();
    }

    /** {@return whether {@code id} can be a trace id: 1 to 64 letters, digits, '-' or '_'} */
    public static boolean isTraceId(String id) {
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

    /**
     * The participant the data names (a leader election's candidate).
     *
     * @param data a node's data, or null
     * @return the participant's id, or empty if the data names none
     */
    public static Optional<String> participantId(byte[] data) {
        String id = fields(data).get(PARTICIPANT);
        return id == null || id.isBlank() ? Optional.empty() : Optional.of(id);
    }

    /**
     * The revocation request the data records.
     *
     * @param data a node's data, or null
     * @return the request, or empty if the data records none
     */
    public static Optional<RevocationRequest> revocationRequest(byte[] data) {
        Map<String, String> fields = fields(data);
        String at = fields.get(REVOKE_AT);
        String by = fields.get(REVOKE_BY);
        if (at == null || by == null || by.isBlank()) {
            return Optional.empty();          // both lines, or no request
        }
        try {
            return Optional.of(new RevocationRequest(by, Instant.parse(at)));
        } catch (DateTimeParseException e) {
            return Optional.empty();          // a time that is not an instant: garbage, not a request dated 1970
        }
    }

    /**
     * Whether the data holds an owner as zklock writes it: the host, pid, thread and time lines,
     * with a number for the pid and an instant for the time. Status reports a node whose data
     * is not as unreadable; its owner then reads as {@link #owner} defaults.
     *
     * @param data a node's data, or null
     * @return true if every owner line is there and well-formed
     */
    public static boolean isOwnerData(byte[] data) {
        Map<String, String> fields = fields(data);
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

    /** {@return whether the node was made by a multi-lock's transaction} */
    public static boolean isMulti(byte[] data) {
        return fields(data).containsKey(MULTI);
    }

    /** {@return whether the data carries the grant announcement} */
    public static boolean hasGrantLine(byte[] data) {
        return lines(data).contains("\n" + GRANTED + "\n");
    }

    /**
     * Whether a node's data, read with its Stat, says it announced its grant: the grant line,
     * which only the node's owner writes. Any other write (a revocation request, or bytes some
     * other client wrote) is not an announcement, so it wakes a waiter at most once.
     *
     * @param stat the node's Stat, or null
     * @param data the node's data, or null
     * @return true if the grant was announced
     */
    public static boolean announcedGrant(Stat stat, byte[] data) {
        return stat != null && stat.getVersion() > 0 && hasGrantLine(data);
    }

    /** The lines of the data, each ended by a newline and the whole preceded by one, so a line matches as "\n...\n". */
    private static String lines(byte[] data) {
        if (data == null || data.length == 0) {
            return "\n";
        }
        String text = new String(data, StandardCharsets.UTF_8).replace('\r', '\n');
        return "\n" + text + (text.endsWith("\n") ? "" : "\n");
    }

    /** Every {@code key=value} line, keyed by {@code key=}; of a repeated key, the last line wins. */
    private static Map<String, String> fields(byte[] data) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : lines(data).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && eq < MAX_VALUE) {
                String value = line.substring(eq + 1);
                fields.put(line.substring(0, eq + 1), value.length() > MAX_VALUE ? value.substring(0, MAX_VALUE) : value);
            }
        }
        return fields;
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

    private static byte[] withLine(byte[] data, String line) {
        if (data != null && data.length + line.length() + 2 > MAX_WRITTEN) {
            data = ownLines(data);
        }
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        if (!text.isEmpty() && !text.endsWith("\n")) {
            text += "\n";
        }
        return (text + line + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The lines of {@code data} this codec writes (as read: cut to MAX_VALUE), and nothing else. */
    private static byte[] ownLines(byte[] data) {
        StringBuilder kept = new StringBuilder();
        fields(data).forEach((key, value) -> {
            if (key.equals(HOST) || key.equals(PID) || key.equals(THREAD) || key.equals(REQUESTED) || key.equals(TRACE)
                    || key.equals(PARTICIPANT) || key.equals(MULTI)
                    || key.equals(REVOKE_AT) || key.equals(REVOKE_BY) || key.equals(ASKED_BACK) || (key + value).equals(GRANTED)) {
                kept.append(key).append(value).append('\n');
            }
        });
        return kept.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String oneLine(String s) {
        return s.replace('\n', ' ').replace('\r', ' ');
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
