package io.zklock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

import io.zklock.core.DistributedLock;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The baseline comparison runs: a folder of library jars (here this build's own, copied or
 * packed from the class path) is loaded apart from the class path and measured beside this
 * commit's recipes, and with the same code both columns count the same requests.
 */
class BaselineRecipesTest {
    private static final List<Class<?>> MODULES = List.of(DistributedLock.class, ZkMutex.class, ZkSemaphore.class,
            ZkReadWriteLock.class, ZkMultiLock.class);

    /**
     * The baseline's classes are its own (another loader), and a quick run compares the two
     * columns, cached scenarios included: the baseline's {@code cached()} mutex and read lock
     * re-grant locally (c1 and c2p send almost no request per operation, where 2r sends 2).
     */
    @Test
    void aBaselineFolderRunsBesideThisBuildInItsOwnClassLoader(@TempDir Path dir) throws Exception {
        String[] names = {"core", "mutex", "semaphore", "readwrite", "multilock"};
        for (int i = 0; i < names.length; i++) {
            jarOf(MODULES.get(i), dir.resolve("zklock-" + names[i] + "-0.jar"));
        }
        Files.writeString(dir.resolve("COMMIT"), "this-build\n");

        var baseline = (BaselineRecipes) BaselineRecipes.load(dir);
        assertEquals("baseline this-build", baseline.name());
        assertNotSame(ZkMutex.class, baseline.classOf("io.zklock.mutex.ZkMutex"));

        var bytes = new ByteArrayOutputStream();
        List<Benchmarks.Outcome> outcomes;
        try (var out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            outcomes = Benchmarks.run(Benchmarks.Options.parse("--quick", "--scenario", "2r,6,c1,c2p", "--baseline",
                    dir.toString()), out);
        }
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("| baseline req/op |"), bytes.toString(StandardCharsets.UTF_8));
        assertEquals(4, outcomes.size());
        for (Benchmarks.Outcome o : outcomes) {
            assertTrue(o.curator().result().ops() > 0, "the baseline ran scenario " + o.scenario().id());
            if (!o.scenario().id().equals("c2p")) {           // c2p's requests per read follow its writes per read
                assertEquals(o.zklock().requestsPerOp(), o.curator().requestsPerOp(), 0.01,
                        "the same code sends the same requests in scenario " + o.scenario().id());
            }
        }
        for (String id : List.of("c1", "c2p")) {
            Benchmarks.Outcome cached = outcomes.stream().filter(o -> o.scenario().id().equals(id)).findFirst().orElseThrow();
            assertTrue(cached.curator().requestsPerOp() < 0.5, "the baseline's cached leases re-grant locally in " + id + ": "
                    + cached.curator().requestsPerOp() + " requests per operation");
        }
    }

    /** The jar {@code type} was loaded from, or one packed from its classes folder. */
    private static void jarOf(Class<?> type, Path target) throws Exception {
        Path source = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isRegularFile(source)) {
            Files.copy(source, target);
            return;
        }
        try (OutputStream file = Files.newOutputStream(target); var jar = new JarOutputStream(file);
             Stream<Path> files = Files.walk(source)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                jar.putNextEntry(new ZipEntry(source.relativize(p).toString().replace('\\', '/')));
                Files.copy(p, jar);
                jar.closeEntry();
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot pack " + source, e);
        }
    }
}
