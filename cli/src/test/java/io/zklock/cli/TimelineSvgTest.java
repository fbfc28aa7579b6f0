package io.zklock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/** The SVG drawing of a timeline, without a server. */
class TimelineSvgTest {

    /** A declared session without leases still gets its lane, and labels with markup characters stay well-formed. */
    @Test
    void everySessionGetsALaneAndTextIsEscaped() throws Exception {
        Timeline t = new Timeline();
        t.lane("idle <&> \"session\"", "story & co");
        t.bar("busy", Timeline.Kind.WRITE, 0, 2_000_000, 5_000_000, "token <1>");
        t.mark("busy", 6_000_000, "refused: 1 < 2");
        Document svg = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(
                TimelineSvg.render(t, "a & b").getBytes(StandardCharsets.UTF_8)));
        assertEquals(2, count(svg, "g", "lane"));
        assertEquals(1, count(svg, "rect", "wait write"));
        assertEquals(1, count(svg, "rect", "bar write"));
        assertEquals(1, count(svg, "g", "refusal"));
    }

    private static int count(Document svg, String tag, String cls) {
        var all = svg.getElementsByTagName(tag);
        int n = 0;
        for (int i = 0; i < all.getLength(); i++) {
            n += ((org.w3c.dom.Element) all.item(i)).getAttribute("class").equals(cls) ? 1 : 0;
        }
        return n;
    }
}
