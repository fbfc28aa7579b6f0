package io.zklock.conformance.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/**
 * Every link of README.md and docs/**.md leads somewhere: a relative link names a file or
 * directory of the repository, an anchor names a heading of its page under GitHub's rules, and
 * an http(s) link is well formed (there is no network to follow it).
 */
class DocsLinksTest {
    private final Path root = MarkdownFile.repositoryRoot();
    private final Map<Path, MarkdownFile> pages = new HashMap<>();

    /** Every link of every page resolves: file links to files, anchors to headings. */
    @Test
    void everyLinkResolves() {
        List<String> dead = new ArrayList<>();
        int checked = 0;
        for (Path file : MarkdownFile.documentation(root)) {
            MarkdownFile page = page(file);
            for (MarkdownFile.Link link : page.links()) {
                checked++;
                String problem = problem(page, link.target());
                if (problem != null) {
                    dead.add(root.relativize(file) + ":" + link.line() + ": (" + link.target() + ") " + problem);
                }
            }
        }
        assertTrue(checked > 50, "only " + checked + " links found: is the parser reading the pages?");
        if (!dead.isEmpty()) {
            fail(dead.size() + " dead link(s) of " + checked + ":\n" + String.join("\n", dead));
        }
    }

    /** The index links every page of docs/, and the README links the index. */
    @Test
    void everyPageIsReachableFromTheIndex() {
        Path index = root.resolve("docs/README.md");
        Set<Path> linked = page(index).links().stream()
                .map(MarkdownFile.Link::target)
                .filter(t -> !isExternal(t) && !t.startsWith("#"))
                .map(t -> index.getParent().resolve(decode(t.split("#", 2)[0])).normalize())
                .collect(Collectors.toSet());
        List<Path> missing = MarkdownFile.documentation(root).stream()
                .filter(p -> p.startsWith(root.resolve("docs")) && !p.equals(index) && !linked.contains(p))
                .map(root::relativize)
                .toList();
        assertEquals(List.of(), missing, "docs pages the index (docs/README.md) does not link");
        assertTrue(page(root.resolve("README.md")).links().stream().anyMatch(l -> l.target().equals("docs/README.md")),
                "README.md links the docs index, docs/README.md");
    }

    /** The README stays an entry page: what it is, how to add it, a first example; the rest is in docs/. */
    @Test
    void readmeStaysUnder300Lines() {
        int lines = page(root.resolve("README.md")).lineCount();
        assertTrue(lines < 300, "README.md has " + lines + " lines; move detail into docs/");
    }

    /** GitHub's anchors, on headings of the kinds the pages use. */
    @Test
    void slugsFollowGitHub() {
        assertEquals("who-holds-a-lock-zklock-status", MarkdownFile.slug(MarkdownFile.headingText("Who holds a lock: `zklock status`")));
        assertEquals("under-faults---scenario-faults", MarkdownFile.slug(MarkdownFile.headingText("Under faults (`--scenario faults`)")));
        assertEquals("at-scale-scenarios-8-11", MarkdownFile.slug(MarkdownFile.headingText("At scale (scenarios 8-11)")));
        assertEquals("what-a-lease_state-means", MarkdownFile.slug(MarkdownFile.headingText("What a [lease_state](x.md) means?")));
        assertEquals("a--b", MarkdownFile.slug(MarkdownFile.headingText("a — b")));
    }

    private String problem(MarkdownFile page, String target) {
        if (target.isEmpty()) {
            return "empty link";
        }
        if (isExternal(target)) {
            return externalProblem(target);
        }
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return "unknown scheme (only http, https, mailto and relative links)";
        }
        String[] parts = target.split("#", 2);
        String anchor = parts.length > 1 ? parts[1] : null;
        Path file;
        if (parts[0].isEmpty()) {
            file = page.path();
        } else {
            if (parts[0].startsWith("/")) {
                return "absolute path: GitHub resolves it against the site, not the repository";
            }
            file = page.path().getParent().resolve(decode(parts[0])).normalize();
            if (!file.startsWith(root)) {
                return "leads outside the repository";
            }
            if (!Files.exists(file)) {
                return "no such file: " + root.relativize(file);
            }
        }
        if (anchor == null) {
            return null;
        }
        if (!file.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown cannot be checked";
        }
        Set<String> anchors = page(file).anchors();
        if (!anchors.contains(decode(anchor))) {
            return "no heading with anchor #" + anchor + " in " + root.relativize(file);
        }
        return null;
    }

    private static boolean isExternal(String target) {
        String lower = target.toLowerCase(java.util.Locale.ROOT);
        return lower.startsWith("http:") || lower.startsWith("https:") || lower.startsWith("mailto:");
    }

    private static String externalProblem(String target) {
        try {
            URI uri = new URI(target);
            if (uri.getScheme().equalsIgnoreCase("mailto")) {
                return uri.getSchemeSpecificPart().matches("[^@\\s]+@[^@\\s]+\\.[^@\\s]+") ? null : "malformed address";
            }
            String host = uri.getHost();
            if (host == null || !host.contains(".")) {
                return "no host name";
            }
            return null;
        } catch (URISyntaxException e) {
            return "malformed: " + e.getMessage();
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private MarkdownFile page(Path file) {
        return pages.computeIfAbsent(file.normalize(), MarkdownFile::read);
    }
}
