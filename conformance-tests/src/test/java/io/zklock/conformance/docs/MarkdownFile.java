package io.zklock.conformance.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Markdown file of the documentation, read the way GitHub renders it as far as the checks
 * need: its fenced code blocks, the anchors its headings get, and the links of its prose (code
 * blocks and code spans hold no links).
 */
final class MarkdownFile {
    /** A link target as written, with the line it is on (1-based). */
    record Link(String target, int line) { }

    /** A fenced code block: its info string's first word, its first content line (1-based), its text. */
    record CodeBlock(String language, int firstLine, List<String> lines) { }

    private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}(#{1,6})(?:[ \\t]+(.*?))?(?:[ \\t]+#+)?[ \\t]*$");
    private static final Pattern SETEXT_UNDERLINE = Pattern.compile("^ {0,3}(=+|-+)[ \\t]*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(`{3,}|~{3,})\\s*([^`\\s]*).*$");
    private static final Pattern INLINE_LINK = Pattern.compile("\\]\\(\\s*(<[^>]*>|[^)\\s]+)(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");
    private static final Pattern AUTOLINK = Pattern.compile("<((?:https?|mailto):[^>\\s]+)>");
    private static final Pattern HTML_ATTRIBUTE = Pattern.compile("(?i)\\s(href|src)\\s*=\\s*\"([^\"]*)\"");
    private static final Pattern HTML_ANCHOR = Pattern.compile("(?i)<a\\s[^>]*(?:id|name)\\s*=\\s*\"([^\"]+)\"");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern LINK_TEXT = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");
    private static final Pattern HTML_TAG = Pattern.compile("<[^>]+>");

    private final Path path;
    private final List<String> lines;
    private final List<CodeBlock> codeBlocks = new ArrayList<>();
    private final List<Link> links = new ArrayList<>();
    private final Set<String> anchors = new LinkedHashSet<>();

    private MarkdownFile(Path path, List<String> lines) {
        this.path = path;
        this.lines = lines;
        parse();
    }

    static MarkdownFile read(Path path) {
        try {
            return new MarkdownFile(path, Files.readAllLines(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The repository's README.md and every .md file under docs/, in a stable order. */
    static List<Path> documentation(Path root) {
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> walk = Files.walk(root.resolve("docs"))) {
            walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /**
     * The repository root: the directory the build names ({@code zklock.root}), else the first
     * directory up from the working directory that holds README.md and the parent pom.
     */
    static Path repositoryRoot() {
        String configured = System.getProperty("zklock.root");
        Path start = Path.of(configured != null && !configured.isBlank() ? configured : System.getProperty("user.dir"))
                .toAbsolutePath().normalize();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isRegularFile(dir.resolve("pom.xml"))
                    && Files.isDirectory(dir.resolve("core"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (README.md, pom.xml, core/) at or above " + start);
    }

    Path path() {
        return path;
    }

    int lineCount() {
        return lines.size();
    }

    List<CodeBlock> codeBlocks() {
        return codeBlocks;
    }

    List<Link> links() {
        return links;
    }

    /** The anchors GitHub gives this file's headings (and explicit {@code <a id>} anchors). */
    Set<String> anchors() {
        return anchors;
    }

    private void parse() {
        Map<String, Integer> occurrences = new HashMap<>();
        String fence = null;
        String language = null;
        int blockStart = 0;
        List<String> block = null;
        String previous = "";
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher f = FENCE.matcher(line);
            if (fence == null && f.matches()) {
                fence = f.group(1);
                language = f.group(2);
                blockStart = i + 2;
                block = new ArrayList<>();
                previous = "";
                continue;
            }
            if (fence != null) {
                String t = line.strip();
                char mark = fence.charAt(0);
                if (t.startsWith(fence) && t.chars().allMatch(c -> c == mark)) {
                    codeBlocks.add(new CodeBlock(language, blockStart, List.copyOf(block)));
                    fence = null;
                } else {
                    block.add(line);
                }
                continue;
            }
            Matcher h = ATX_HEADING.matcher(line);
            if (h.matches()) {
                anchors.add(uniqueSlug(headingText(h.group(2) == null ? "" : h.group(2)), occurrences));
            } else if (SETEXT_UNDERLINE.matcher(line).matches() && isParagraphLine(previous)) {
                anchors.add(uniqueSlug(headingText(previous.strip()), occurrences));
            }
            Matcher a = HTML_ANCHOR.matcher(line);
            while (a.find()) {
                anchors.add(a.group(1));
            }
            collectLinks(line, i + 1);
            previous = line;
        }
        if (fence != null) {
            throw new IllegalStateException(path + ":" + (blockStart - 1) + ": code block never closed");
        }
    }

    private static boolean isParagraphLine(String line) {
        String t = line.strip();
        return !t.isEmpty() && !t.startsWith("|") && !t.startsWith("#") && !t.startsWith(">")
                && !t.startsWith("- ") && !t.startsWith("* ");
    }

    private void collectLinks(String line, int number) {
        String prose = CODE_SPAN.matcher(line).replaceAll(m -> " ".repeat(m.group().length()));
        for (Pattern p : List.of(INLINE_LINK, AUTOLINK)) {
            Matcher m = p.matcher(prose);
            while (m.find()) {
                links.add(new Link(unbracket(m.group(1)), number));
            }
        }
        Matcher r = REFERENCE_DEFINITION.matcher(prose);
        if (r.find()) {
            links.add(new Link(unbracket(r.group(1)), number));
        }
        Matcher html = HTML_ATTRIBUTE.matcher(prose);
        while (html.find()) {
            links.add(new Link(html.group(2), number));
        }
    }

    private static String unbracket(String target) {
        return target.startsWith("<") && target.endsWith(">") ? target.substring(1, target.length() - 1) : target;
    }

    /** A heading's text as rendered: code spans, link texts and escapes resolved, tags dropped. */
    static String headingText(String markdown) {
        String text = CODE_SPAN.matcher(markdown).replaceAll(m -> Matcher.quoteReplacement(m.group(2).strip()));
        text = LINK_TEXT.matcher(text).replaceAll(m -> Matcher.quoteReplacement(m.group(1)));
        text = HTML_TAG.matcher(text).replaceAll("");
        return text.replaceAll("\\\\(\\p{Punct})", "$1").strip();
    }

    /**
     * GitHub's heading anchor: lower case; every character dropped but letters, marks, digits,
     * connector punctuation ({@code _}), hyphens and spaces; each space a hyphen.
     */
    static String slug(String text) {
        StringBuilder out = new StringBuilder();
        text.toLowerCase(java.util.Locale.ROOT).codePoints().forEach(c -> {
            int type = Character.getType(c);
            if (c == ' ') {
                out.append('-');
            } else if (c == '-' || Character.isLetterOrDigit(c) || type == Character.CONNECTOR_PUNCTUATION
                    || type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK
                    || type == Character.ENCLOSING_MARK) {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    /** The slug, with -1, -2, ... for the second, third, ... heading of the same slug, as GitHub does. */
    private static String uniqueSlug(String text, Map<String, Integer> occurrences) {
        String base = slug(text);
        String result = base;
        while (occurrences.containsKey(result)) {
            int n = occurrences.merge(base, 1, Integer::sum);
            result = base + "-" + n;
        }
        occurrences.put(result, 0);
        return result;
    }
}
