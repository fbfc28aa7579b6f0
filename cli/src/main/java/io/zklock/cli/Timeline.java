package io.zklock.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every session did and when: one lane per session, one bar per lease (with the wait
 * before its grant), and marks for events such as a refused write. Stories record into it from
 * any thread; {@link TimelineSvg} draws it. Times are nanoseconds since the timeline began.
 */
final class Timeline {
    /** How a lease is coloured: by recipe and mode. */
    enum Kind {
        UNLOCKED("no lock", "#a0a0a0"),
        MUTEX("mutex", "#3b75af"),
        PERMIT("semaphore permit", "#4e9a3f"),
        READ("read", "#29a3a3"),
        WRITE("write", "#e08a1e"),
        MULTI("multi-lock", "#8c5fb8"),
        LEADER("leader", "#c0392b");

        final String label;
        final String colour;

        Kind(String label, String colour) {
            this.label = label;
            this.colour = colour;
        }
    }

    /** One lease: asked for at {@code askedAt}, granted at {@code grantedAt}, released at {@code endedAt}. */
    record Bar(String lane, Kind kind, long askedAt, long grantedAt, long endedAt, String note) {
    }

    /** A point event on a lane, such as a refused write. */
    record Mark(String lane, long at, String label) {
    }

    private final long origin = System.nanoTime();
    private final Map<String, String> lanes = new LinkedHashMap<>();   // session -> story, in order of appearance
    private final List<Bar> bars = new ArrayList<>();
    private final List<Mark> marks = new ArrayList<>();

    /** Nanoseconds since the timeline began. */
    long now() {
        return System.nanoTime() - origin;
    }

    /** Declares a session's lane, so that it is drawn even if the session never held anything. */
    synchronized void lane(String session, String story) {
        lanes.putIfAbsent(session, story);
    }

    synchronized void bar(String lane, Kind kind, long askedAt, long grantedAt, long endedAt, String note) {
        lanes.putIfAbsent(lane, "");
        bars.add(new Bar(lane, kind, askedAt, grantedAt, endedAt, note));
    }

    synchronized void mark(String lane, long at, String label) {
        lanes.putIfAbsent(lane, "");
        marks.add(new Mark(lane, at, label));
    }

    synchronized Map<String, String> lanes() {
        return new LinkedHashMap<>(lanes);
    }

    synchronized List<Bar> bars() {
        return List.copyOf(bars);
    }

    synchronized List<Mark> marks() {
        return List.copyOf(marks);
    }
}
