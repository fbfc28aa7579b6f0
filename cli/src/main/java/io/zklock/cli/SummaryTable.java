package io.zklock.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The demo's closing table: one row per recipe, then every check that failed. */
final class SummaryTable {
    private static final String[] HEADER = {"recipe", "sessions", "operations", "throughput", "peak holders",
        "checks passed", "failed"};

    private SummaryTable() {
    }

    static List<String> render(List<Story.Result> results) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (Story.Result r : results) {
            rows.add(new String[] {r.recipe(), Integer.toString(r.sessions()), Long.toString(r.operations()),
                String.format(Locale.ROOT, "%.0f ops/s", r.throughput()), Integer.toString(r.peakHolders()),
                Long.toString(r.passed()), Long.toString(r.failed())});
        }
        int[] width = new int[HEADER.length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            lines.add(line(rows.get(i), width));
            if (i == 0) {
                String[] rule = new String[width.length];
                for (int c = 0; c < width.length; c++) {
                    rule[c] = "-".repeat(width[c]);
                }
                lines.add(line(rule, width));
            }
        }
        for (Story.Result r : results) {
            for (Story.Check c : r.checks()) {
                if (!c.passed()) {
                    lines.add("FAILED  " + r.recipe() + ": " + c.name() + " (" + c.detail() + ")");
                }
            }
        }
        return lines;
    }

    private static String line(String[] cells, int[] width) {
        StringBuilder s = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            // the recipe name reads best left-aligned, numbers right-aligned
            String cell = c == 0 ? String.format("%-" + width[c] + "s", cells[c]) : String.format("%" + width[c] + "s", cells[c]);
            s.append(c == 0 ? "" : "  ").append(cell);
        }
        return s.toString().stripTrailing();
    }
}
