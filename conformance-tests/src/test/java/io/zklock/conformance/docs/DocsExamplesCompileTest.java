package io.zklock.conformance.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of README.md and docs/**.md compiles against the library, its
 * integrations and their frameworks (this module's test class path). A block that declares types
 * (a class, an interface, a record, an annotated class, after its imports and comments) is
 * compiled as a file of its own; any other block is a fragment of statements, compiled as the
 * body of a method in whose scope {@code CuratorFramework client} is a started client, as the
 * pages say.
 */
class DocsExamplesCompileTest {
    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?[\\w.]+(\\.\\*)?\\s*;\\s*$");
    /** A line of a comment before a type: a javadoc or block comment's line, or a line comment. */
    private static final Pattern COMMENT = Pattern.compile("^\\s*(/\\*.*|\\*.*|//.*)$");
    private static final Pattern TYPE_START = Pattern.compile(
            "^\\s*(@\\w+.*|((public|abstract|final|sealed|non-sealed)\\s+)*(class|interface|record|enum)\\s+\\w+.*)$");
    /** A class of each artifact the examples use; the class path found must hold every one. */
    private static final List<String> REQUIRED = List.of(
            "io.zklock.core.Lease", "io.zklock.mutex.ZkMutex", "io.zklock.semaphore.ZkSemaphore",
            "io.zklock.readwrite.ZkReadWriteLock", "io.zklock.multilock.ZkMultiLock", "io.zklock.leader.ZkLeaderElection",
            "io.zklock.micrometer.ZkLockMetrics", "io.zklock.spring.integration.ZkLockRegistry",
            "io.zklock.shedlock.ZkLockProvider", "org.apache.curator.framework.CuratorFramework",
            "org.springframework.context.annotation.Configuration",
            "net.javacrumbs.shedlock.spring.annotation.SchedulerLock");

    /** Every Java example of the README and the docs compiles. */
    @Test
    void everyJavaExampleCompiles(@TempDir Path out) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertNotNull(compiler, "no Java compiler in this runtime (" + System.getProperty("java.home")
                + "): the examples cannot be compiled; run the tests on a JDK");
        List<File> classPath = testClassPath();
        checkHolds(classPath);

        Path root = MarkdownFile.repositoryRoot();
        List<Example> examples = new ArrayList<>();
        for (Path file : MarkdownFile.documentation(root)) {
            for (MarkdownFile.CodeBlock block : MarkdownFile.read(file).codeBlocks()) {
                if (block.language().toLowerCase(Locale.ROOT).equals("java")) {
                    examples.add(new Example(root.relativize(file).toString(), block, examples.size()));
                }
            }
        }
        assertTrue(examples.size() >= 10, "only " + examples.size() + " java blocks found: is the parser reading the pages?");

        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StringWriter output = new StringWriter();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            List<String> options = List.of("--release", "17", "-proc:none", "-implicit:none",
                    "-d", out.toString(), "-classpath", String.join(File.pathSeparator, classPath.stream().map(File::getPath).toList()));
            boolean ok = compiler.getTask(output, files, diagnostics, options, null,
                    examples.stream().map(Example::source).toList()).call();
            List<String> errors = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.add(where(examples, d) + ": " + d.getMessage(Locale.ROOT));
                }
            }
            if (!ok || !errors.isEmpty()) {
                fail(errors.size() + " error(s) compiling the " + examples.size() + " Java examples:\n"
                        + String.join("\n", errors) + "\n" + output);
            }
        }
        List<String> empty = new ArrayList<>();
        for (Example e : examples) {
            Path dir = out.resolve(e.pkg().replace('.', '/'));
            try (var classes = Files.list(dir)) {
                if (classes.noneMatch(p -> p.toString().endsWith(".class"))) {
                    empty.add(e.file() + ":" + e.block().firstLine());
                }
            } catch (java.nio.file.NoSuchFileException missing) {
                empty.add(e.file() + ":" + e.block().firstLine());
            }
        }
        assertEquals(List.of(), empty, "examples that compiled to no class (an empty block, or only imports)");
    }

    /**
     * The test class path: {@code java.class.path}, with the Class-Path of a manifest-only jar
     * (Surefire's booter) followed, since that jar alone holds no class.
     */
    static List<File> testClassPath() {
        Set<File> entries = new LinkedHashSet<>();
        for (String entry : System.getProperty("java.class.path").split(Pattern.quote(File.pathSeparator))) {
            if (entry.isBlank()) {
                continue;
            }
            File file = new File(entry).getAbsoluteFile();
            entries.add(file);
            if (file.isFile() && file.getName().endsWith(".jar")) {
                entries.addAll(manifestClassPath(file));
            }
        }
        return List.copyOf(entries);
    }

    private static List<File> manifestClassPath(File jar) {
        try (JarFile j = new JarFile(jar)) {
            Manifest manifest = j.getManifest();
            String value = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
            if (value == null) {
                return List.of();
            }
            List<File> found = new ArrayList<>();
            URI base = jar.toURI();
            for (String item : value.trim().split("\\s+")) {
                found.add(new File(base.resolve(item)));
            }
            return found;
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot read the manifest of " + jar, e);
        }
    }

    private static void checkHolds(List<File> classPath) {
        List<String> missing = new ArrayList<>();
        for (String name : REQUIRED) {
            try {
                CodeSource source = Class.forName(name, false, DocsExamplesCompileTest.class.getClassLoader())
                        .getProtectionDomain().getCodeSource();
                File location = source == null ? null : new File(source.getLocation().toURI()).getAbsoluteFile();
                if (location == null || !classPath.contains(location)) {
                    missing.add(name + " (from " + location + ")");
                }
            } catch (ClassNotFoundException | URISyntaxException e) {
                missing.add(name + " (" + e + ")");
            }
        }
        assertEquals(List.of(), missing, "classes the examples need that the class path found ("
                + classPath.size() + " entries) does not hold");
    }

    private static String where(List<Example> examples, Diagnostic<? extends JavaFileObject> d) {
        for (Example e : examples) {
            if (e.source() == d.getSource()) {
                long line = d.getLineNumber() - 1 + e.block().firstLine();
                return e.file() + ":" + line;
            }
        }
        return String.valueOf(d.getSource());
    }

    /** One block, as a compilation unit whose line n is the block's line n. */
    private static final class Example {
        private static final Pattern PUBLIC_TYPE = Pattern.compile(
                "^\\s*public\\s+((abstract|final|sealed|non-sealed)\\s+)*(class|interface|record|enum)\\s+(\\w+).*$");
        private final String file;
        private final MarkdownFile.CodeBlock block;
        private final String pkg;
        private final JavaFileObject source;

        Example(String file, MarkdownFile.CodeBlock block, int index) {
            this.file = file;
            this.block = block;
            this.pkg = "docs.examples.b" + index;
            this.source = build();
        }

        String file() {
            return file;
        }

        MarkdownFile.CodeBlock block() {
            return block;
        }

        String pkg() {
            return pkg;
        }

        JavaFileObject source() {
            return source;
        }

        private JavaFileObject build() {
            List<String> lines = new ArrayList<>(block.lines());
            lines.add("");
            int first = 0;
            while (first < lines.size() - 1 && (lines.get(first).isBlank() || IMPORT.matcher(lines.get(first)).matches()
                    || COMMENT.matcher(lines.get(first)).matches())) {
                first++;
            }
            String name = "Example";
            if (TYPE_START.matcher(lines.get(first)).matches()) {
                for (String line : lines) {
                    var m = PUBLIC_TYPE.matcher(line);
                    if (m.matches()) {
                        name = m.group(4);
                        break;
                    }
                }
                lines.set(0, "package " + pkg + "; " + lines.get(0));
            } else {
                lines.set(first, "class Example { void example(CuratorFramework client) throws Exception { " + lines.get(first));
                lines.set(lines.size() - 1, "} }");
                lines.set(0, "package " + pkg + "; import org.apache.curator.framework.CuratorFramework; " + lines.get(0));
            }
            String text = String.join("\n", lines);
            URI uri = URI.create("string:///" + pkg.replace('.', '/') + "/" + name + JavaFileObject.Kind.SOURCE.extension);
            return new SimpleJavaFileObject(uri, JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return text;
                }
            };
        }
    }
}
