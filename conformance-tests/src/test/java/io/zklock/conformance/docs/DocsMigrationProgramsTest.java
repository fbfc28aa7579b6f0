package io.zklock.conformance.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The programs that docs/migrating-from-curator.md runs in "Trying it" are the programs it shows:
 * each runnable class of benchmarks' {@code io.zklock.benchmarks.migration}, less its package line,
 * is one {@code ```java} block of the page, line for line (DocsExamplesCompileTest compiles the
 * blocks; this keeps them from drifting apart from the classes the page's commands run).
 */
class DocsMigrationProgramsTest {
    private static final List<String> PROGRAMS = List.of("CuratorReplica", "ZklockReplica");

    /** Each replica program's source is shown, whole and unchanged, on the migration page. */
    @Test
    void theMigrationPageShowsTheSourceOfTheProgramsItRuns() throws IOException {
        Path root = MarkdownFile.repositoryRoot();
        List<List<String>> blocks = MarkdownFile.read(root.resolve("docs/migrating-from-curator.md")).codeBlocks().stream()
                .filter(b -> b.language().equals("java")).map(MarkdownFile.CodeBlock::lines).toList();
        for (String program : PROGRAMS) {
            Path file = root.resolve("benchmarks/src/main/java/io/zklock/benchmarks/migration/" + program + ".java");
            List<String> source = Files.readAllLines(file, StandardCharsets.UTF_8);
            assertTrue(source.get(0).startsWith("package ") && source.get(1).isEmpty(), file + " starts with its package line");
            List<String> shown = source.subList(2, source.size());
            List<String> block = blocks.stream().filter(b -> b.stream().anyMatch(l -> l.startsWith("public class " + program + " ")))
                    .findFirst().orElse(List.of());
            assertEquals(String.join("\n", shown), String.join("\n", block),
                    "docs/migrating-from-curator.md shows " + program + " as " + file + " has it");
        }
    }
}
