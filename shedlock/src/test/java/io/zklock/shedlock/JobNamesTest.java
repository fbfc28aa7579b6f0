package io.zklock.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.apache.curator.utils.PathUtils;
import org.junit.jupiter.api.Test;

/** The job-name map, without a server. */
class JobNamesTest {

    /** Property: over many random names (ASCII, escapes, non-ASCII, surrogate pairs), distinct names give distinct, valid, one-level node names. */
    @Test
    void distinctNamesMapToDistinctValidNodeNames() {
        Random random = new Random(22);
        String alphabet = "aZ09_-%./\\ .:\u00e9\u65e5\u0000\u007f";
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            StringBuilder name = new StringBuilder();
            int length = 1 + random.nextInt(6);
            for (int j = 0; j < length; j++) {
                if (random.nextInt(10) == 0) {
                    name.appendCodePoint(0x1F600 + random.nextInt(16));   // a surrogate pair
                } else {
                    name.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
            }
            String node = JobNames.nodeName(name.toString());
            String earlier = seen.putIfAbsent(node, name.toString());
            assertTrue(earlier == null || earlier.equals(name.toString()), "'" + earlier + "' and '" + name + "' share " + node);
            assertFalse(node.contains("/") || node.equals(".") || node.equals(".."), node);
            PathUtils.validatePath("/root/" + node);
        }
    }

    /** Safe characters stand for themselves; everything else is escaped. */
    @Test
    void safeCharactersStayAndOthersAreEscaped() {
        assertEquals("report-daily_1", JobNames.nodeName("report-daily_1"));
        assertEquals("a%2Fb", JobNames.nodeName("a/b"));
        assertEquals("a%252Fb", JobNames.nodeName("a%2Fb"));
        assertEquals("%2E%2E", JobNames.nodeName(".."));
        assertEquals("%C3%A9", JobNames.nodeName("\u00e9"));
    }
}
