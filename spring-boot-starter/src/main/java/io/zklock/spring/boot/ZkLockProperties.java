package io.zklock.spring.boot;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code zklock.}: where the ZooKeeper ensemble is and where the locks live.
 * The connection settings apply only to the client the starter makes; an application that
 * defines its own {@code CuratorFramework} bean keeps its own.
 */
@ConfigurationProperties("zklock")
public class ZkLockProperties {
    /** The ZooKeeper ensemble, host:port[,host:port...][/chroot]. */
    private String connectString = "localhost:2181";
    /** The ZooKeeper path under which the starter's beans keep their locks (the lock registry's under <root>/spring-integration, ShedLock's under <root>/shedlock). */
    private String root = "/zklock";
    /** The session timeout the client asks for; the server may bound it. */
    private Duration sessionTimeout = Duration.ofSeconds(60);
    /** How long the start-up waits for the first connection to the ensemble, and Curator for each connection attempt. */
    private Duration connectionTimeout = Duration.ofSeconds(15);

    /** {@return the ensemble, {@code host:port[,host:port...][/chroot]}; default {@code localhost:2181}} */
    public String getConnectString() {
        return connectString;
    }

    /** @param connectString the ensemble, {@code host:port[,host:port...][/chroot]} */
    public void setConnectString(String connectString) {
        this.connectString = connectString;
    }

    /**
     * {@return the ZooKeeper path under which the starter's beans keep their locks; default
     * {@code /zklock}: the lock registry under {@code <root>/spring-integration}, ShedLock's
     * provider under {@code <root>/shedlock}}
     */
    public String getRoot() {
        return root;
    }

    /** @param root an absolute ZooKeeper path, not under {@code /zookeeper} */
    public void setRoot(String root) {
        this.root = root;
    }

    /** {@return the session timeout the client asks for (the server may bound it); default 60 s} */
    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    /** @param sessionTimeout the session timeout to ask for */
    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    /**
     * {@return how long the start-up waits for the first connection, and Curator for each
     * connection attempt; default 15 s}
     */
    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    /** @param connectionTimeout how long to wait for a connection */
    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    /**
     * Curator's namespace: a path prefix (without a leading slash) that every path of the
     * client is under, as a chroot in the connect string would be. None by default.
     */
    private String namespace;

    /**
     * A ZooKeeper client properties file (ZKClientConfig: TLS with
     * zookeeper.client.secure, zookeeper.ssl.*, SASL with
     * zookeeper.sasl.client), as ZooKeeper's own tools take it. None by default.
     */
    private java.nio.file.Path clientConfigFile;

    /** How the client retries an operation cut by a connection loss: exponential back-off. */
    private final Retry retry = new Retry();

    /** Digest credentials, read from a file or an environment variable; never logged. */
    private final Auth auth = new Auth();

    /** The Spring Integration lock registry. */
    private final Registry registry = new Registry();

    /** The ShedLock lock provider. */
    private final Shedlock shedlock = new Shedlock();

    /** The Micrometer meters. */
    private final Metrics metrics = new Metrics();

    /** The wait and hold observations (with zklock-micrometer and an ObservationRegistry). */
    private final Observations observations = new Observations();

    /** {@return the observations' settings} */
    public Observations getObservations() {
        return observations;
    }

    /** {@return the namespace setting} */
    public String getNamespace() {
        return namespace;
    }

    /** @param namespace the namespace setting */
    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    /** {@return the client config file setting} */
    public java.nio.file.Path getClientConfigFile() {
        return clientConfigFile;
    }

    /** @param clientConfigFile the client config file setting */
    public void setClientConfigFile(java.nio.file.Path clientConfigFile) {
        this.clientConfigFile = clientConfigFile;
    }

    /** {@return the retry setting} */
    public Retry getRetry() {
        return retry;
    }

    /** {@return the auth setting} */
    public Auth getAuth() {
        return auth;
    }

    /** {@return the registry setting} */
    public Registry getRegistry() {
        return registry;
    }

    /** {@return the shedlock setting} */
    public Shedlock getShedlock() {
        return shedlock;
    }

    /** {@return the metrics setting} */
    public Metrics getMetrics() {
        return metrics;
    }

    /** Curator's exponential back-off retry. */
    public static class Retry {
        /** Bound by Spring Boot. */
        public Retry() {
        }

        /** The first wait between retries, doubled (with jitter) each time. */
        private Duration baseSleep = Duration.ofMillis(100);

        /** How many times an operation is retried. */
        private int maxRetries = 10;

        /** The longest wait between two retries. */
        private Duration maxSleep = Duration.ofSeconds(5);

        /** {@return the base sleep setting} */
        public Duration getBaseSleep() {
            return baseSleep;
        }

        /** @param baseSleep the base sleep setting */
        public void setBaseSleep(Duration baseSleep) {
            this.baseSleep = baseSleep;
        }

        /** {@return the max retries setting} */
        public int getMaxRetries() {
            return maxRetries;
        }

        /** @param maxRetries the max retries setting */
        public void setMaxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
        }

        /** {@return the max sleep setting} */
        public Duration getMaxSleep() {
            return maxSleep;
        }

        /** @param maxSleep the max sleep setting */
        public void setMaxSleep(Duration maxSleep) {
            this.maxSleep = maxSleep;
        }
    }

    /** Digest credentials ({@code user:password}); at most one source. */
    public static class Auth {
        /** Bound by Spring Boot. */
        public Auth() {
        }

        /** A file whose first line is user:password. */
        private java.nio.file.Path digestFile;

        /** The name of an environment variable whose value is user:password. */
        private String digestEnv;

        /** {@return the digest file setting} */
        public java.nio.file.Path getDigestFile() {
            return digestFile;
        }

        /** @param digestFile the digest file setting */
        public void setDigestFile(java.nio.file.Path digestFile) {
            this.digestFile = digestFile;
        }

        /** {@return the digest env setting} */
        public String getDigestEnv() {
            return digestEnv;
        }

        /** @param digestEnv the digest env setting */
        public void setDigestEnv(String digestEnv) {
            this.digestEnv = digestEnv;
        }
    }

    /** The Spring Integration lock registry's settings. */
    public static class Registry {
        /** Bound by Spring Boot. */
        public Registry() {
        }

        /** Whether the registry bean is made (when Spring Integration is on the class path). */
        private boolean enabled = true;

        /** How many lock instances the registry keeps besides those in use (least recently used go first). */
        private int cacheCapacity = 30_000;

        /** {@return the enabled setting} */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled the enabled setting */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** {@return the cache capacity setting} */
        public int getCacheCapacity() {
            return cacheCapacity;
        }

        /** @param cacheCapacity the cache capacity setting */
        public void setCacheCapacity(int cacheCapacity) {
            this.cacheCapacity = cacheCapacity;
        }
    }

    /** The ShedLock provider's settings. */
    public static class Shedlock {
        /** Bound by Spring Boot. */
        public Shedlock() {
        }

        /** Whether the provider bean is made (when ShedLock and zklock-shedlock are on the class path). */
        private boolean enabled = true;

        /** {@return the enabled setting} */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled the enabled setting */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The meters' settings. */
    public static class Metrics {
        /** Bound by Spring Boot. */
        public Metrics() {
        }

        /** Whether zklock's meters are bound (when zklock-micrometer and a MeterRegistry exist). */
        private boolean enabled = true;

        /** Whether each lock's path is a tag (path): one series per lock, so only for a bounded set of paths. */
        private boolean pathTags;

        /** {@return the enabled setting} */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled the enabled setting */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** {@return the path tags setting} */
        public boolean isPathTags() {
            return pathTags;
        }

        /** @param pathTags the path tags setting */
        public void setPathTags(boolean pathTags) {
            this.pathTags = pathTags;
        }
    }

    /** The observations' settings. */
    public static class Observations {
        /** Bound by Spring Boot. */
        public Observations() {
        }

        /** Whether each acquisition's wait and each lock's hold are observations (spans, with a tracing bridge), and the caller's trace id is written into its lock node. */
        private boolean enabled = true;

        /** {@return the enabled setting} */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled the enabled setting */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
