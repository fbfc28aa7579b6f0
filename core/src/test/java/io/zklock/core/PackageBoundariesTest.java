package io.zklock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The packages' plan, checked on the sources of the whole build: the engine's internals
 * ({@code io.zklock.core.internal} and below) are core's own, so no other module (the recipes,
 * {@code micrometer}, {@code cli}, the integrations, the tests and benchmarks) names them. They
 * compile against {@code io.zklock.core}, {@code io.zklock.core.spi} and
 * {@code io.zklock.core.observe} only.
 */
class PackageBoundariesTest {
    private static final Pattern INTERNAL = Pattern.compile("\\bio\\.zklock\\.core\\.internal\\b[\\w.]*");
    /** String literals: a test may name a package in a string (to check it) without using it. */
    private static final Pattern STRING = Pattern.compile("\"(\\\\.|[^\"\\\\])*\"");
    /** Modules that must exist for this check to mean anything. */
    private static final List<String> EXPECTED = List.of("mutex", "semaphore", "readwrite", "multilock", "micrometer", "cli",
            "conformance-tests");

    /** No module but core names a type of an internal package, in its main or test sources. */
    @Test
    void noModuleButCoreNamesAnInternalPackage() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        List<Path> modules;
        try (Stream<Path> dirs = Files.list(root)) {
            modules = dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml")) && Files.isDirectory(d.resolve("src")))
                    .filter(d -> !d.getFileName().toString().equals("core"))
                    .sorted()
                    .toList();
        }
        List<String> names = modules.stream().map(m -> m.getFileName().toString()).toList();
        assertTrue(names.containsAll(EXPECTED), "modules found next to core: " + names);

        List<String> offences = new ArrayList<>();
        int files = 0;
        for (Path module : modules) {
            List<Path> sources;
            try (Stream<Path> all = Files.walk(module.resolve("src"))) {
                sources = all.filter(p -> p.toString().endsWith(".java")).toList();
            }
            files += sources.size();
            for (Path source : sources) {
                Matcher m = INTERNAL.matcher(STRING.matcher(read(source)).replaceAll("\"\""));
                while (m.find()) {
                    offences.add(root.relativize(source) + ": " + m.group());
                }
            }
        }
        assertTrue(files > 50, "read only " + files + " source files");
        assertEquals(List.of(), offences, "modules other than core name the engine's internals");
    }

    private static String read(Path source) {
        try {
            return Files.readString(source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
