package io.zklock.benchmarks;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;

import org.apache.curator.framework.CuratorFramework;

/**
 * zklock's recipes as an earlier commit built them, beside this commit's in one JVM: the
 * earlier commit's library jars (core, mutex, semaphore, readwrite, multilock) are loaded in a
 * class loader of their own that takes every {@code io.zklock} class and resource from those
 * jars and never from the class path, and everything else (Curator, ZooKeeper, SLF4J) from the
 * class path, so both builds drive the same {@code CuratorFramework} type on the same server.
 * The recipes are reached through their public constructors and {@code DistributedLock} /
 * {@code Lease} (the fixed API, DESIGN.md §2), by method handles resolved once per lock, with
 * the default options (no cached leases), as {@link Recipes#ZKLOCK} uses this commit's; and
 * {@link #cached()} with the baseline's own {@code LeaseCaching.keepIdleFor(30 s)}, as
 * {@code Recipes.ZKLOCK.cached()} (the cached scenarios {@code c1}-{@code c5}, {@code c2p}).
 *
 * <p>The jars come from {@code scripts/baseline-jars.sh COMMIT DIR}, which builds them from a
 * git commit into a folder; {@code --baseline DIR} selects them (see docs/benchmarks.md).
 */
final class BaselineRecipes implements Recipes {
    private static final List<String> MODULES = List.of("core", "mutex", "semaphore", "readwrite", "multilock");
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.publicLookup();
    private static final String CACHING = "io.zklock.core.LeaseCaching";

    private final String name;
    private final ClassLoader loader;
    private final MethodHandle acquire;
    private final MethodHandle close;
    /** The baseline's own {@code LeaseCaching} the recipes are made with; null: the default constructors. */
    private final Object caching;

    private BaselineRecipes(String name, ClassLoader loader, Object caching) throws ReflectiveOperationException {
        this.name = name;
        this.loader = loader;
        this.caching = caching;
        Class<?> lock = loader.loadClass("io.zklock.core.DistributedLock");
        Class<?> lease = loader.loadClass("io.zklock.core.Lease");
        acquire = LOOKUP.findVirtual(lock, "acquire", MethodType.methodType(lease))
                .asType(MethodType.methodType(Object.class, Object.class));
        close = LOOKUP.findVirtual(lease, "close", MethodType.methodType(void.class))
                .asType(MethodType.methodType(void.class, Object.class));
    }

    /**
     * The recipes of the jars in {@code dir} ({@code zklock-<module>-*.jar} for each library
     * module a scenario uses), named {@code baseline} plus what {@code dir/COMMIT} records.
     */
    static Recipes load(Path dir) {
        var urls = new ArrayList<URL>();
        try {
            for (String module : MODULES) {
                urls.add(jar(dir, module).toUri().toURL());
            }
            Path commit = dir.resolve("COMMIT");
            String label = Files.exists(commit) ? "baseline " + Files.readString(commit).trim() : "baseline";
            return new BaselineRecipes(label, new OwnZklockFirst(urls.toArray(URL[]::new),
                    BaselineRecipes.class.getClassLoader()), null);
        } catch (IOException | ReflectiveOperationException e) {
            throw new IllegalArgumentException("--baseline " + dir + ": " + e, e);
        }
    }

    private static Path jar(Path dir, String module) throws IOException {
        String prefix = "zklock-" + module + "-";
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> {
                String f = p.getFileName().toString();
                return f.startsWith(prefix) && f.endsWith(".jar") && !f.endsWith("-tests.jar")
                        && !f.endsWith("-sources.jar") && !f.endsWith("-javadoc.jar");
            }).findFirst().orElseThrow(() -> new IOException("no " + prefix + "*.jar in " + dir));
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** The baseline's recipes with its cached leases on, kept idle 30 s, as this commit's {@code cached()}. */
    @Override
    public Recipes cached() {
        if (caching != null) {
            return this;
        }
        try {
            Class<?> type = loader.loadClass(CACHING);
            Object on = type.getMethod("keepIdleFor", java.time.Duration.class).invoke(null, java.time.Duration.ofSeconds(30));
            return new BaselineRecipes(name, loader, on);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(name + ": no " + CACHING + ".keepIdleFor(Duration)", e);
        }
    }

    /** The baseline's own class named {@code className}. */
    Class<?> classOf(String className) throws ClassNotFoundException {
        return loader.loadClass(className);
    }

    @Override
    public Lock mutex(CuratorFramework client, String path) {
        return of(cachingRecipe("io.zklock.mutex.ZkMutex", MethodType.methodType(void.class, CuratorFramework.class, String.class),
                client, path));
    }

    @Override
    public Lock[] readWrite(CuratorFramework client, String path) {
        Object rw = cachingRecipe("io.zklock.readwrite.ZkReadWriteLock",
                MethodType.methodType(void.class, CuratorFramework.class, String.class), client, path);
        try {
            return new Lock[] {of(rw.getClass().getMethod("readLock").invoke(rw)),
                    of(rw.getClass().getMethod("writeLock").invoke(rw))};
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(name + ": no readLock()/writeLock()", e);
        }
    }

    @Override
    public Lock semaphore(CuratorFramework client, String path, int maxLeases) {
        return of(cachingRecipe("io.zklock.semaphore.ZkSemaphore",
                MethodType.methodType(void.class, CuratorFramework.class, String.class, int.class),
                client, path, maxLeases));
    }

    @Override
    public Lock multi(CuratorFramework client, List<String> paths) {
        var locks = new ArrayList<Object>();
        MethodType mutex = MethodType.methodType(void.class, CuratorFramework.class, String.class);
        paths.forEach(p -> locks.add(make("io.zklock.mutex.ZkMutex", mutex, client, p)));
        return of(make("io.zklock.multilock.ZkMultiLock", MethodType.methodType(void.class, List.class), locks));
    }

    /**
     * A recipe that may cache, made with {@code args} and, when {@link #cached()}, the baseline's
     * {@code LeaseCaching} last (as this commit's {@code cached()} recipes: the mutex, the
     * read-write lock and the semaphore; a multi-lock's components are not cached).
     */
    private Object cachingRecipe(String className, MethodType constructor, Object... args) {
        if (caching == null) {
            return make(className, constructor, args);
        }
        try {
            return make(className, constructor.appendParameterTypes(loader.loadClass(CACHING)),
                    Stream.concat(Stream.of(args), Stream.of(caching)).toArray());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(name + ": no " + CACHING, e);
        }
    }

    private Object make(String className, MethodType constructor, Object... args) {
        try {
            return LOOKUP.findConstructor(loader.loadClass(className), constructor).invokeWithArguments(args);
        } catch (Throwable e) {
            throw new IllegalStateException(name + ": cannot make " + className, e);
        }
    }

    private Lock of(Object lock) {
        return () -> {
            Object lease = invoke(acquire, lock);
            return () -> {
                try {
                    close.invokeExact(lease);
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable e) {
                    throw new IllegalStateException(e);
                }
            };
        };
    }

    private static Object invoke(MethodHandle handle, Object target) throws Exception {
        try {
            return (Object) handle.invokeExact(target);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Takes {@code io.zklock} classes and resources (and the service files named after them)
     * from its own jars only; everything else from its parent.
     */
    private static final class OwnZklockFirst extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        OwnZklockFirst(URL[] urls, ClassLoader parent) {
            super("zklock-baseline", urls, parent);
        }

        private static boolean own(String name) {
            return name.startsWith("io.zklock.") || name.startsWith("io/zklock/")
                    || name.startsWith("META-INF/services/io.zklock.");
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!own(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        public URL getResource(String name) {
            return own(name) ? findResource(name) : super.getResource(name);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            return own(name) ? findResources(name) : super.getResources(name);
        }
    }
}
