package io.zklock.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.zklock.core.LockStatus;
import io.zklock.core.OwnerInfo;
import io.zklock.core.Participant;
import io.zklock.core.RevocationRequest;

/**
 * What {@code zklock status} prints: a header and a table per lock path for people, or one
 * JSON document for scripts. Pure functions of the statuses read and the moment they were
 * read, so tests can check them without a server.
 *
 * <p>Ages come from the server's creation time of each node against this host's clock. The
 * server does not record when a node was granted, so a holder's age is an upper bound of its
 * hold ({@code held <= 12.3 s}); and the two clocks may disagree, so a negative age (a server
 * clock ahead of ours) is shown as 0.
 */
final class StatusReport {
    private static final String[] COLUMNS = {"#", "role", "mode", "owner", "age", "token", "revocation", "node"};
    /** The recipe status names a leader election, and the mode of its nodes (see {@code io.zklock.leader.LeaderKind}). */
    private static final String ELECTION = "leader";
    private static final String CANDIDATE = "candidate";

    private StatusReport() {
    }

    /** The text for people: for each status, a header line, then its table or what the path is. */
    static List<String> text(List<LockStatus> statuses, Instant now) {
        List<String> lines = new ArrayList<>();
        for (LockStatus status : statuses) {
            if (!lines.isEmpty()) {
                lines.add("");
            }
            lines.addAll(text(status, now));
        }
        return lines;
    }

    private static List<String> text(LockStatus status, Instant now) {
        List<String> lines = new ArrayList<>();
        switch (status.state()) {
            case ABSENT -> lines.add("no lock at " + status.path() + " (nobody holds or waits)");
            case EMPTY -> lines.add(status.path() + ": an empty directory, nobody holds or waits");
            case NOT_A_LOCK -> {
                // the problems say why, plainly; the children show what the node holds instead
                lines.add(status.path() + ": " + (status.problems().isEmpty() ? "not a lock directory" : String.join("; ", status.problems())));
                if (!status.foreignChildren().isEmpty()) {
                    lines.add("  children: " + String.join(", ", status.foreignChildren()));
                }
                return lines;
            }
            case LOCK -> {
                lines.add(header(status));
                lines.addAll(table(status.participants(), now));
            }
        }
        for (String problem : status.problems()) {
            lines.add("  ! " + problem);
        }
        return lines;
    }

    private static String header(LockStatus status) {
        if (status.recipe().equals(ELECTION)) {
            return electionHeader(status);
        }
        StringBuilder h = new StringBuilder(status.path()).append(": ").append(status.recipe());
        if (status.recipe().equals("semaphore") && status.maxLeases().isPresent()) {
            h.append(", maxLeases ").append(status.maxLeases().getAsInt());
        }
        int holders = status.holders().size();
        int waiters = status.waiters().size();
        return h.append(", ").append(holders).append(holders == 1 ? " holder, " : " holders, ")
                .append(waiters).append(waiters == 1 ? " waiter" : " waiters").toString();
    }

    /**
     * An election's header: its leader (participant id, epoch) and how many candidates wait, or
     * that nobody leads (a node of another recipe first in the queue).
     */
    private static String electionHeader(LockStatus status) {
        StringBuilder h = new StringBuilder(status.path()).append(": leader election, ");
        Participant leader = status.holders().isEmpty() ? null : status.holders().get(0);
        if (leader == null || !leader.mode().equals(CANDIDATE)) {
            h.append("nobody leads");
        } else {
            h.append("leader ").append(leader.participantId().orElse("?")).append(" (epoch ").append(token(leader.fencingToken()))
                    .append(')');
        }
        int waiting = status.waiters().size();
        return h.append(", ").append(waiting).append(waiting == 1 ? " candidate waits" : " candidates wait").toString();
    }

    /** The participants in queue order, columns padded to their widest cell. */
    private static List<String> table(List<Participant> participants, Instant now) {
        List<String[]> rows = new ArrayList<>();
        rows.add(COLUMNS);
        for (int i = 0; i < participants.size(); i++) {
            Participant p = participants.get(i);
            String age = Durations.format(age(p.createdAt(), now));
            rows.add(new String[] {
                Integer.toString(i + 1),
                p.inLockDelay(now) ? "DELAYED" : p.holding() ? (p.cached() ? "CACHED" : p.mode().equals(CANDIDATE) ? "LEADS" : "HOLDS") : "waits",
                p.mode(),
                p.participantId().map(id -> id + " " + owner(p.owner())).orElse(owner(p.owner())),
                p.holding() ? "held <= " + age : "waiting " + age,
                token(p.fencingToken()),
                p.revocationRequest().map(r -> revocation(r, now)).orElse("-"),
                p.nodeName()});
        }
        int[] widths = new int[COLUMNS.length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(" ");
            for (int c = 0; c < row.length; c++) {
                String gap = " ".repeat(widths[c] - row[c].length());
                // the position is a number, right-aligned; the other columns are text, left-aligned
                line.append("  ").append(c == 0 ? gap + row[c] : row[c] + gap);
            }
            lines.add(line.toString().stripTrailing());
        }
        return lines;
    }

    private static String revocation(RevocationRequest r, Instant now) {
        return "requested " + Durations.format(age(r.requestedAt(), now)) + " ago by " + r.requestedBy();
    }

    /** {@code thread@host[pid N]}, as the library writes a requester. */
    static String owner(OwnerInfo owner) {
        return owner.thread() + "@" + owner.host() + "[pid " + owner.pid() + "]";
    }

    /** A fencing token as the demo prints it. */
    static String token(long token) {
        return "0x" + Long.toHexString(token);
    }

    /** The time from {@code then} to {@code now}, 0 if clock skew makes it negative. */
    static Duration age(Instant then, Instant now) {
        Duration d = Duration.between(then, now);
        return d.isNegative() ? Duration.ZERO : d;
    }

    /**
     * One JSON document: {@code {"readAt": ..., "locks": [...]}}, one object per status with its
     * participants in queue order. Written by hand (the CLI carries no JSON library); every
     * string is escaped, and non-ASCII characters are written as {@code \}{@code uXXXX}, so the
     * document is plain ASCII whatever the terminal's encoding.
     */
    static String json(List<LockStatus> statuses, Instant now) {
        StringBuilder j = new StringBuilder("{\"readAt\":").append(string(now.toString())).append(",\"locks\":[");
        for (int i = 0; i < statuses.size(); i++) {
            LockStatus s = statuses.get(i);
            j.append(i == 0 ? "" : ",").append("{\"path\":").append(string(s.path()))
                    .append(",\"state\":").append(string(s.state().name()))
                    .append(",\"recipe\":").append(s.recipe().isEmpty() ? "null" : string(s.recipe()))
                    .append(",\"maxLeases\":").append(s.maxLeases().isPresent() ? Integer.toString(s.maxLeases().getAsInt()) : "null")
                    .append(",\"participants\":[");
            List<Participant> ps = s.participants();
            for (int k = 0; k < ps.size(); k++) {
                Participant p = ps.get(k);
                OwnerInfo o = p.owner();
                j.append(k == 0 ? "" : ",").append("{\"position\":").append(k + 1)
                        .append(",\"node\":").append(string(p.nodeName()))
                        .append(",\"holding\":").append(p.holding())
                        .append(",\"cached\":").append(p.cached())
                        .append(",\"lockDelayUntil\":").append(p.lockDelayUntil().map(t -> string(t.toString())).orElse("null"))
                        .append(",\"mode\":").append(string(p.mode()))
                        .append(",\"participantId\":").append(p.participantId().map(StatusReport::string).orElse("null"))
                        .append(",\"owner\":{\"thread\":").append(string(o.thread()))
                        .append(",\"host\":").append(string(o.host()))
                        .append(",\"pid\":").append(o.pid()).append('}')
                        .append(",\"createdAt\":").append(string(p.createdAt().toString()))
                        .append(",\"ageMs\":").append(age(p.createdAt(), now).toMillis())
                        .append(",\"fencingToken\":").append(p.fencingToken())
                        .append(",\"revocation\":");
                p.revocationRequest().ifPresentOrElse(
                        r -> j.append("{\"requestedBy\":").append(string(r.requestedBy()))
                                .append(",\"requestedAt\":").append(string(r.requestedAt().toString())).append('}'),
                        () -> j.append("null"));
                j.append('}');
            }
            j.append("],\"foreignChildren\":[");
            for (int k = 0; k < s.foreignChildren().size(); k++) {
                j.append(k == 0 ? "" : ",").append(string(s.foreignChildren().get(k)));
            }
            j.append("],\"problems\":[");
            for (int k = 0; k < s.problems().size(); k++) {
                j.append(k == 0 ? "" : ",").append(string(s.problems().get(k)));
            }
            j.append("]}");
        }
        return j.append("]}").toString();
    }

    /** A JSON string literal: quotes, backslashes, control and non-ASCII characters escaped. */
    static String string(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
