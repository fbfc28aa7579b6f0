package io.zklock.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws a {@link Timeline} as a standalone SVG document: a labelled lane per session, a bar per
 * lease coloured by recipe and mode with its wait drawn lighter before it, a red cross for each
 * mark, a time axis and a legend. Plain text, so the CLI needs no drawing library; every bar and
 * mark carries a {@code <title>}, which browsers show on hover.
 */
final class TimelineSvg {
    private static final int WIDTH = 1280;
    private static final int LEFT = 170;
    private static final int RIGHT = 40;
    private static final int TOP = 50;
    private static final int LANE = 22;
    private static final int BAR = 14;

    private TimelineSvg() {
    }

    static String render(Timeline timeline, String title) {
        Map<String, String> lanes = timeline.lanes();
        List<Timeline.Bar> bars = timeline.bars();
        List<Timeline.Mark> marks = timeline.marks();
        long end = 1_000_000;
        for (Timeline.Bar b : bars) {
            end = Math.max(end, b.endedAt());
        }
        for (Timeline.Mark m : marks) {
            end = Math.max(end, m.at());
        }
        Map<String, Integer> row = new HashMap<>();
        for (String lane : lanes.keySet()) {
            row.put(lane, row.size());
        }
        int plotBottom = TOP + lanes.size() * LANE;
        int height = plotBottom + 100;
        var x = new Scale(end);

        StringBuilder s = new StringBuilder(64 * 1024);
        s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height, WIDTH, height));
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>%n", esc(title)));

        String story = null;
        for (Map.Entry<String, String> lane : lanes.entrySet()) {
            int y = TOP + row.get(lane.getKey()) * LANE;
            boolean newStory = !lane.getValue().equals(story);
            story = lane.getValue();
            s.append(String.format(Locale.ROOT, "<g class=\"lane\" data-session=\"%s\">", esc(lane.getKey())));
            s.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
                    y, WIDTH, LANE, row.get(lane.getKey()) % 2 == 0 ? "#f6f6f6" : "#ffffff"));
            if (newStory) {
                s.append(String.format(Locale.ROOT, "<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", y, WIDTH, y));
                s.append(String.format(Locale.ROOT, "<text x=\"8\" y=\"%d\" font-weight=\"bold\">%s</text>", y + 15, esc(story)));
            }
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text></g>%n",
                    LEFT - 8, y + 15, esc(lane.getKey())));
        }
        for (Timeline.Bar b : bars) {
            int y = TOP + row.get(b.lane()) * LANE + (LANE - BAR) / 2;
            String tip = b.lane() + ": " + b.kind().label + (b.note().isEmpty() ? "" : ", " + b.note())
                    + "; waited " + Durations.formatNanos(b.grantedAt() - b.askedAt())
                    + ", held " + Durations.formatNanos(b.endedAt() - b.grantedAt());
            if (b.grantedAt() > b.askedAt()) {
                s.append(rect("wait", b.kind(), x.at(b.askedAt()), x.at(b.grantedAt()), y, "0.28", tip));
            }
            s.append(rect("bar", b.kind(), x.at(b.grantedAt()), x.at(b.endedAt()), y, "1", tip));
        }
        for (Timeline.Mark m : marks) {
            double cx = x.at(m.at());
            int cy = TOP + row.get(m.lane()) * LANE + LANE / 2;
            s.append(String.format(Locale.ROOT, "<g class=\"refusal\" stroke=\"#d00000\" stroke-width=\"3\"><title>%s</title>"
                    + "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" fill=\"#d00000\" stroke=\"none\" font-weight=\"bold\">%s</text></g>%n",
                    esc(m.label()), cx - 6, cy - 6, cx + 6, cy + 6, cx - 6, cy + 6, cx + 6, cy - 6,
                    cx + 10, cy + 4, esc(m.label())));
        }
        axis(s, x, end, plotBottom);
        legend(s, plotBottom + 55);
        s.append("</svg>\n");
        return s.toString();
    }

    private static String rect(String cls, Timeline.Kind kind, double from, double to, int y, String opacity, String tip) {
        return String.format(Locale.ROOT, "<rect class=\"%s %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\""
                + " fill-opacity=\"%s\"><title>%s</title></rect>%n", cls, kind.name().toLowerCase(Locale.ROOT),
                from, y, Math.max(1.0, to - from), BAR, kind.colour, opacity, esc(tip));
    }

    private static void axis(StringBuilder s, Scale x, long end, int y) {
        s.append(String.format(Locale.ROOT, "<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>",
                LEFT, y, WIDTH - RIGHT, y));
        long step = niceStep(end);
        for (long t = 0; t <= end; t += step) {
            double px = x.at(t);
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    px, y, px, y + 5, px, y + 18, esc(Durations.formatNanos(t))));
        }
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">time since start</text></g>%n",
                WIDTH - RIGHT, y + 34));
    }

    /** A 1, 2 or 5 times a power of ten milliseconds, giving at most about 12 ticks. */
    private static long niceStep(long endNanos) {
        long step = 1_000_000;
        while (endNanos / step > 12) {
            long digit = step / (long) Math.pow(10, Math.floor(Math.log10(step)));
            step = digit == 2 ? step / 2 * 5 : step * 2;
        }
        return step;
    }

    private static void legend(StringBuilder s, int y) {
        List<String> items = new ArrayList<>();
        int px = LEFT;
        s.append("<g class=\"legend\">");
        for (Timeline.Kind k : Timeline.Kind.values()) {
            items.add(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"18\" height=\"%d\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>", px, y, BAR, k.colour, px + 24, y + 12, esc(k.label)));
            px += 40 + 8 * k.label.length();
        }
        items.add(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"18\" height=\"%d\" fill=\"#3b75af\" fill-opacity=\"0.28\"/>"
                + "<text x=\"%d\" y=\"%d\">waiting for the grant</text>", px, y, BAR, px + 24, y + 12));
        px += 190;
        items.add(String.format(Locale.ROOT, "<g stroke=\"#d00000\" stroke-width=\"3\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g><text x=\"%d\" y=\"%d\">write refused (stale token)</text>",
                px, y, px + 12, y + 12, px, y + 12, px + 12, y, px + 20, y + 12));
        items.forEach(s::append);
        s.append("</g>\n");
    }

    private static String esc(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Nanoseconds since the start to pixels. */
    private record Scale(long end) {
        double at(long t) {
            return LEFT + (double) t / end * (WIDTH - LEFT - RIGHT);
        }
    }
}
