package io.zklock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The size limits of the library's main code: no file of core over {@link #MAX_FILE_LINES}
 * lines, and no method (or constructor) of the library modules over {@link #MAX_METHOD_LINES}
 * lines, counted from the line of its parameter list to its closing brace. A long method is
 * two jobs; a long file, two classes.
 */
class SourceLimitsTest {
    static final int MAX_FILE_LINES = 330;
    static final int MAX_METHOD_LINES = 40;
    /** The library modules whose methods are held to the limit. */
    private static final List<String> LIBRARY = List.of("core", "mutex", "semaphore", "readwrite", "multilock", "micrometer",
            "spring-integration", "shedlock", "spring-boot-starter");
    private static final Pattern TYPE = Pattern.compile("\\b(class|interface|enum|record)\\b");
    private static final Pattern ANONYMOUS = Pattern.compile("\\bnew\\s+[\\w.<>, ?]+\\s*\\(");
    private static final Pattern ANNOTATION = Pattern.compile("@[\\w.]+(\\s*\\([^)]*\\))?");

    /** No file of core's main code is longer than the limit. */
    @Test
    void noFileOfCoreIsTooLong() throws IOException {
        List<String> tooLong = new ArrayList<>();
        for (Path source : sources(Path.of("src/main/java"))) {
            long lines = Files.readAllLines(source, StandardCharsets.UTF_8).size();
            if (lines > MAX_FILE_LINES) {
                tooLong.add(source.getFileName() + ": " + lines + " lines");
            }
        }
        assertEquals(List.of(), tooLong, "files of core over " + MAX_FILE_LINES + " lines");
    }

    /** No method of the library's main code is longer than the limit. */
    @Test
    void noMethodOfTheLibraryIsTooLong() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        List<String> tooLong = new ArrayList<>();
        int files = 0;
        for (String module : LIBRARY) {
            for (Path source : sources(root.resolve(module).resolve("src/main/java"))) {
                files++;
                for (Method m : methods(Files.readString(source, StandardCharsets.UTF_8))) {
                    if (m.lines() > MAX_METHOD_LINES) {
                        tooLong.add(root.relativize(source) + ":" + m.firstLine() + " " + m.name() + ": " + m.lines() + " lines");
                    }
                }
            }
        }
        assertTrue(files > 80, "read only " + files + " files");
        assertEquals(List.of(), tooLong, "methods over " + MAX_METHOD_LINES + " lines");
    }

    /** The counter finds a planted long method, and counts a short one, a nested class's and a lambda's enclosing method. */
    @Test
    void theCounterSeesMethods() {
        StringBuilder planted = new StringBuilder("class A {\n  /** doc { */\n  void longOne(int a,\n      int b) {\n");
        for (int i = 0; i < 41; i++) {
            planted.append("    call(\"}\", '{');\n");
        }
        planted.append("  }\n  int shortOne() { return 1; }\n  static final class B {\n    B() {\n      run(() -> { x(); });\n    }\n  }\n}\n");
        List<Method> found = methods(planted.toString());
        assertEquals(List.of("longOne", "shortOne", "B"), found.stream().map(Method::name).toList());
        assertEquals(44, found.get(0).lines());
        assertEquals(1, found.get(1).lines());
        assertEquals(3, found.get(2).lines());
    }

    record Method(String name, int firstLine, int lines) { }

    private static List<Path> sources(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }

    /** The methods and constructors of {@code source}: blocks opened after a parameter list, directly inside a type. */
    static List<Method> methods(String source) {
        String code = blankCommentsAndLiterals(source);
        List<Method> found = new ArrayList<>();
        Deque<int[]> open = new ArrayDeque<>();       // per open block: kind (0 type, 1 method, 2 other), first line
        Deque<String> names = new ArrayDeque<>();
        int line = 1;
        int headerStart = 0;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '\n') {
                line++;
            } else if (c == '{') {
                String header = blank(ANNOTATION, code.substring(headerStart, i));
                boolean inType = open.isEmpty() || open.peek()[0] == 0;
                int paren = header.indexOf('(');
                int kind = kindOf(header, inType, paren);
                open.push(new int[] {kind, kind == 1 ? line - (int) header.substring(paren).chars().filter(ch -> ch == '\n').count() : line});
                names.push(kind == 1 ? nameBefore(header, paren) : "");
                headerStart = i + 1;
            } else if (c == '}') {
                int[] block = open.pop();
                String name = names.pop();
                if (block[0] == 1) {
                    found.add(new Method(name, block[1], line - block[1] + 1));
                }
                headerStart = i + 1;
            } else if (c == ';') {
                headerStart = i + 1;
            }
        }
        found.sort((a, b) -> Integer.compare(a.firstLine(), b.firstLine()));
        return found;
    }

    /** 0: a type's body (a class, an anonymous class), 1: a method's or constructor's, 2: any other block. */
    private static int kindOf(String header, boolean inType, int paren) {
        if (ANONYMOUS.matcher(header).find()) {
            return 0;
        }
        boolean declaresType = TYPE.matcher(paren < 0 ? header : header.substring(0, paren)).find();
        if (declaresType) {
            return 0;
        }
        return inType && paren >= 0 ? 1 : 2;
    }

    /** {@code text} with each match of {@code pattern} blanked, newlines kept. */
    private static String blank(Pattern pattern, String text) {
        StringBuilder out = new StringBuilder(text);
        var m = pattern.matcher(text);
        while (m.find()) {
            for (int j = m.start(); j < m.end(); j++) {
                if (out.charAt(j) != '\n') {
                    out.setCharAt(j, ' ');
                }
            }
        }
        return out.toString();
    }

    private static String nameBefore(String header, int paren) {
        String before = header.substring(0, paren).strip();
        int space = Math.max(before.lastIndexOf(' '), before.lastIndexOf('\n'));
        return before.substring(space + 1).strip();
    }

    /** The source with comments, string, text-block and character literals blanked (newlines kept). */
    static String blankCommentsAndLiterals(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            int end;
            if (s.startsWith("//", i)) {
                end = s.indexOf('\n', i);
                end = end < 0 ? s.length() : end;
            } else if (s.startsWith("/*", i)) {
                end = s.indexOf("*/", i + 2) + 2;
            } else if (s.startsWith("\"\"\"", i)) {
                end = s.indexOf("\"\"\"", i + 3) + 3;
            } else if (s.charAt(i) == '"' || s.charAt(i) == '\'') {
                end = closingQuote(s, i);
            } else {
                out.append(s.charAt(i++));
                continue;
            }
            if (end <= i) {
                throw new UncheckedIOException(new IOException("unterminated comment or literal at " + i));
            }
            for (int j = i; j < end; j++) {
                out.append(s.charAt(j) == '\n' ? '\n' : ' ');
            }
            i = end;
        }
        return out.toString();
    }

    private static int closingQuote(String s, int start) {
        char quote = s.charAt(start);
        for (int j = start + 1; j < s.length(); j++) {
            if (s.charAt(j) == '\\') {
                j++;
            } else if (s.charAt(j) == quote) {
                return j + 1;
            }
        }
        return -1;
    }
}
