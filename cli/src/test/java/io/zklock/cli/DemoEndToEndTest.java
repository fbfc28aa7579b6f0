package io.zklock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import picocli.CommandLine;

/** The whole demo, once, on the embedded server with short durations; each test reads one aspect of that run. */
class DemoEndToEndTest {
    private static final int SESSIONS = MutexStory.SESSIONS + 2 + SemaphoreStory.SESSIONS
            + ReadWriteStory.READERS + ReadWriteStory.WRITERS + MultiLockStory.SESSIONS + 2;

    @TempDir
    static Path dir;
    static int exit;
    static String out;
    static String err;
    static Document svg;

    @BeforeAll
    static void runDemo() throws Exception {
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        CommandLine cli = Zklock.commandLine();
        cli.setOut(new PrintWriter(stdout, true));
        cli.setErr(new PrintWriter(stderr, true));
        Path file = dir.resolve("timeline.svg");
        exit = cli.execute("demo", "--duration", "300ms", "--session-timeout", "1s", "--timeline", file.toString());
        out = stdout.toString();
        err = stderr.toString();
        svg = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    /** Every check of every story passes, so the exit code is 0 and nothing is written to stderr. */
    @Test
    void everyCheckPassesAndTheExitCodeIsZero() {
        assertEquals(0, exit, out + err);
        assertEquals("", err);
    }

    /** The summary table has exactly one row per recipe, each with no failed check. */
    @Test
    void summaryTableHasOneRowPerRecipe() {
        List<String> lines = out.lines().toList();
        int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("recipe ")).findFirst().orElseThrow());
        List<String> rows = lines.subList(header + 2, header + 7);
        List<String> recipes = rows.stream().map(r -> r.split("\\s+")[0]).toList();
        assertEquals(List.of("mutex", "semaphore", "read-write", "multi-lock", "leader"), recipes, out);
        rows.forEach(r -> assertTrue(r.matches(".* ops/s\\s+\\d+\\s+\\d+\\s+0"), r));
        assertFalse(lines.get(header + 7).matches("^(mutex|semaphore|read-write|multi-lock|leader) .*"), out);
    }

    /** The frozen holder's late write is shown refused, with its token below the successor's. */
    @Test
    void staleWriteIsRefusedOnTheTerminal() {
        Matcher m = Pattern.compile("REFUSED: the store rejects fence-A's write, token 0x([0-9a-f]+) < highest seen 0x([0-9a-f]+)")
                .matcher(out);
        assertTrue(m.find(), out);
        assertTrue(Long.parseLong(m.group(1), 16) < Long.parseLong(m.group(2), 16), m.group());
    }

    /** Without a lock the lost updates are counted; under ZkMutex none is lost. */
    @Test
    void lostUpdatesAreCountedAndNoneUnderTheMutex() {
        Matcher without = Pattern.compile("without a lock: (\\d+) increments, the counter reads (\\d+): (\\d+) updates lost").matcher(out);
        assertTrue(without.find(), out);
        assertEquals(Long.parseLong(without.group(1)) - Long.parseLong(without.group(2)), Long.parseLong(without.group(3)));
        assertTrue(out.contains(": 0 updates lost\n") && out.contains("with ZkMutex: "), out);
    }

    /** Durations are printed for people (ms, s), never in ISO-8601 form. */
    @Test
    void durationsArePrintedForPeople() {
        assertFalse(out.contains("PT"), out);
        assertTrue(out.contains("each story runs 300 ms"), out);
    }

    /** The timeline is well-formed SVG with one labelled lane per session, each session once. */
    @Test
    void timelineHasOneLanePerSession() {
        assertEquals("svg", svg.getDocumentElement().getTagName());
        List<Element> lanes = elements("g", "lane");
        Set<String> sessions = new HashSet<>();
        lanes.forEach(l -> sessions.add(l.getAttribute("data-session")));
        assertEquals(SESSIONS, lanes.size());
        assertEquals(SESSIONS, sessions.size());
        assertTrue(sessions.containsAll(Set.of("m1", "fence-A", "fence-B", "s6", "r1", "w2", "t4", "elect-A", "elect-B")),
                sessions.toString());
        lanes.forEach(l -> assertEquals(l.getAttribute("data-session"), l.getElementsByTagName("text").item(
                l.getElementsByTagName("text").getLength() - 1).getTextContent()));
    }

    /** The timeline has lease bars of every kind and exactly two refusal marks, for the stale writes of the fencing and election stories. */
    @Test
    void timelineHasBarsOfEveryKindAndTheRefusalMark() {
        for (Timeline.Kind kind : Timeline.Kind.values()) {
            String cls = "bar " + kind.name().toLowerCase();
            assertFalse(elements("rect", cls).isEmpty(), "no bar of class " + cls);
        }
        List<Element> refusals = elements("g", "refusal");
        assertEquals(2, refusals.size());
        refusals.forEach(r -> assertTrue(r.getTextContent().contains("stale write refused"), r.getTextContent()));
    }

    private static List<Element> elements(String tag, String cls) {
        NodeList all = svg.getElementsByTagName(tag);
        return java.util.stream.IntStream.range(0, all.getLength()).mapToObj(i -> (Element) all.item(i))
                .filter(e -> e.getAttribute("class").equals(cls)).toList();
    }
}
