package io.zklock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The packages' plan, checked on the sources of the whole build.
 * <ul>
 *   <li>The engine's internals ({@code io.zklock.core.internal} and below) are core's own, so no
 *       other module (the recipes, {@code micrometer}, {@code cli}, the integrations, the tests
 *       and benchmarks) names them. They compile against {@code io.zklock.core},
 *       {@code io.zklock.core.spi}, {@code io.zklock.core.spi.queue} and
 *       {@code io.zklock.core.observe} only.</li>
 *   <li>Inside core, the packages stand on {@link #LAYERS layers} and every reference points to
 *       its own layer or a lower one; the units of one layer form no cycle. The one exception:
 *       the types of the user's API ({@code io.zklock.core}) may name each other, though
 *       {@code LockAdmin}, an entry point over the inspection, and {@code ValidityClock}, which
 *       sets a client's session clock, stand on the top layer.</li>
 * </ul>
 */
class PackageBoundariesTest {
    private static final Pattern INTERNAL = Pattern.compile("\\bio\\.zklock\\.core\\.internal\\b[\\w.]*");
    /** String literals: a test may name a package in a string (to check it) without using it. */
    private static final Pattern STRING = Pattern.compile("\"(\\\\.|[^\"\\\\])*\"");
    /** Modules that must exist for this check to mean anything. */
    private static final List<String> EXPECTED = List.of("mutex", "semaphore", "readwrite", "multilock", "leader", "micrometer", "cli",
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

    /**
     * Core's layers, bottom first. A unit is a package, or one class of the user's API that
     * stands above the rest of its package. A new package must be placed here.
     */
    static final List<List<String>> LAYERS = List.of(
            List.of("io.zklock.core.spi.queue"),        // vocabulary: node names, kinds, drivers, decisions, deadlines
            List.of("io.zklock.core"),                  // the user's API: values, leases, errors (LockAdmin, ValidityClock apart)
            List.of("io.zklock.core.observe"),          // the observer SPI
            List.of("io.zklock.core.internal.zk"),      // the ZooKeeper door, the session, watches, directory views
            List.of("io.zklock.core.internal"),         // what every stage shares: LockContext, Cleanup, NodeData
            List.of("io.zklock.core.internal.lease"),   // a granted lease and its views
            List.of("io.zklock.core.internal.cache"),   // cached leases: the cache, its strategies, the asks
            List.of("io.zklock.core.internal.request"), // one request, from its start to its lease
            List.of("io.zklock.core.internal.inspect"), // status and revocation requests
            List.of("io.zklock.core.spi",               // entry points: the recipes' facades
                    "io.zklock.core.LockAdmin",         //   and the user's inspection
                    "io.zklock.core.ValidityClock"));   //   and the clock a client's leases count validity on
    private static final String API = "io.zklock.core";
    private static final Pattern CORE_TYPE = Pattern.compile("\\bio\\.zklock\\.core(?:\\.[a-z]\\w*)*\\.[A-Z]\\w*");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");

    /** Every package of core's main code stands on a layer, and has a package-info.java. */
    @Test
    void everyPackageOfCoreIsPlaced() throws IOException {
        Map<String, List<String>> references = coreReferences(Path.of("src/main/java"));
        Set<String> packages = new LinkedHashSet<>();
        references.keySet().forEach(type -> packages.add(packageOf(type)));
        List<String> problems = new ArrayList<>();
        for (String pkg : packages) {
            if (layerOf(pkg) < 0) {
                problems.add(pkg + " stands on no layer: place it in PackageBoundariesTest.LAYERS");
            }
            if (!references.containsKey(pkg + ".package-info")) {
                problems.add(pkg + " has no package-info.java");
            }
        }
        assertTrue(packages.size() >= 9, "read only the packages " + packages);
        assertEquals(List.of(), problems);
    }

    /** No reference inside core's main code points to a higher layer. */
    @Test
    void coreReferencesPointDown() throws IOException {
        assertEquals(List.of(), upwardReferences(coreReferences(Path.of("src/main/java"))),
                "references to a higher layer (see PackageBoundariesTest.LAYERS)");
    }

    /** The units of core (packages, and the API classes placed apart) form no cycle. */
    @Test
    void coreUnitsFormNoCycle() throws IOException {
        assertEquals(List.of(), cycles(coreReferences(Path.of("src/main/java"))), "cycles between core's units");
    }

    /** The references of each type of core to other types of core, from imports and qualified names in code. */
    static Map<String, List<String>> coreReferences(Path sourceRoot) throws IOException {
        List<Path> sources;
        try (Stream<Path> all = Files.walk(sourceRoot)) {
            sources = all.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        Map<String, List<String>> references = new LinkedHashMap<>();
        for (Path source : sources) {
            String code = codeOnly(read(source));
            Matcher pkg = PACKAGE.matcher(code);
            assertTrue(pkg.find(), source + " declares no package");
            String file = source.getFileName().toString();
            String type = pkg.group(1) + "." + file.substring(0, file.length() - ".java".length());
            List<String> named = new ArrayList<>();
            Matcher m = CORE_TYPE.matcher(code.substring(pkg.end()));
            while (m.find()) {
                named.add(m.group());
            }
            references.put(type, named);
        }
        return references;
    }

    /** Each reference from a unit to a unit on a higher layer, as "from -> to". */
    static List<String> upwardReferences(Map<String, List<String>> references) {
        List<String> upward = new ArrayList<>();
        references.forEach((from, targets) -> {
            for (String to : targets) {
                boolean apiToApi = packageOf(from).equals(API) && packageOf(to).equals(API);
                if (!apiToApi && layerOf(unitOf(to)) > layerOf(unitOf(from))) {
                    upward.add(from + " (" + unitOf(from) + ") -> " + to + " (" + unitOf(to) + ")");
                }
            }
        });
        return upward;
    }

    /** The cycles of the graph of units (one per strongly connected set), each as its units. */
    static List<String> cycles(Map<String, List<String>> references) {
        Map<String, Set<String>> graph = new LinkedHashMap<>();
        references.forEach((from, targets) -> {
            Set<String> edges = graph.computeIfAbsent(unitOf(from), u -> new LinkedHashSet<>());
            targets.stream().map(PackageBoundariesTest::unitOf).filter(u -> !u.equals(unitOf(from))).forEach(edges::add);
        });
        List<String> found = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (String unit : graph.keySet()) {
            if (seen.contains(unit)) {
                continue;
            }
            Set<String> component = new LinkedHashSet<>();
            for (String other : graph.keySet()) {
                if (reaches(graph, unit, other) && reaches(graph, other, unit)) {
                    component.add(other);
                }
            }
            seen.addAll(component);
            if (component.size() > 1) {
                found.add(String.join(" <-> ", component));
            }
        }
        return found;
    }

    private static boolean reaches(Map<String, Set<String>> graph, String from, String to) {
        Set<String> visited = new LinkedHashSet<>();
        List<String> stack = new ArrayList<>(List.of(from));
        while (!stack.isEmpty()) {
            String unit = stack.remove(stack.size() - 1);
            if (unit.equals(to)) {
                return true;
            }
            if (visited.add(unit)) {
                stack.addAll(graph.getOrDefault(unit, Set.of()));
            }
        }
        return false;
    }

    /** The unit a type stands in: the type itself if it is placed apart, else its package. */
    static String unitOf(String type) {
        for (List<String> layer : LAYERS) {
            if (layer.contains(type)) {
                return type;
            }
        }
        return packageOf(type);
    }

    /** The layer of a unit, bottom first; -1 if it stands on none. */
    static int layerOf(String unit) {
        for (int i = 0; i < LAYERS.size(); i++) {
            if (LAYERS.get(i).contains(unit)) {
                return i;
            }
        }
        return -1;
    }

    /** The source with its comments, string, text block and character literals blanked out. */
    static String codeOnly(String source) {
        StringBuilder code = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (source.startsWith("//", i)) {
                i = orEnd(source.indexOf('\n', i), n);
            } else if (source.startsWith("/*", i)) {
                i = orEnd(source.indexOf("*/", i + 2), n - 2) + 2;
                code.append(' ');
            } else if (source.startsWith("\"\"\"", i)) {
                i = orEnd(source.indexOf("\"\"\"", i + 3), n - 3) + 3;
                code.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c) {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
                code.append(c).append(c);
            } else {
                code.append(c);
                i++;
            }
        }
        return code.toString();
    }

    private static int orEnd(int found, int otherwise) {
        return found < 0 ? Math.max(otherwise, 0) : found;
    }

    private static String packageOf(String type) {
        return type.substring(0, type.lastIndexOf('.'));
    }

    private static String read(Path source) {
        try {
            return Files.readString(source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
