package io.zklock.spring.boot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ConfigException;

/**
 * The {@code zklock.*} client settings beyond the connect string and timeouts: namespace, retry,
 * digest credentials and a ZooKeeper client properties file. A credential is read when the client
 * is made and never put into a message, a log line or an exception.
 */
final class ClientSettings {
    private ClientSettings() {
    }

    static RetryPolicy retryPolicy(ZkLockProperties.Retry retry) {
        int base = ZkLockAutoConfiguration.millis("zklock.retry.base-sleep", retry.getBaseSleep());
        int max = ZkLockAutoConfiguration.millis("zklock.retry.max-sleep", retry.getMaxSleep());
        if (retry.getMaxRetries() < 0 || retry.getMaxRetries() > 29) {
            throw new InvalidZkLockPropertyException("zklock.retry.max-retries", String.valueOf(retry.getMaxRetries()),
                    "it must be between 0 and 29 (Curator's bound for exponential back-off)");
        }
        return new ExponentialBackoffRetry(base, retry.getMaxRetries(), max);
    }

    static void apply(ZkLockProperties properties, CuratorFrameworkFactory.Builder builder) {
        String namespace = properties.getNamespace();
        if (namespace != null && !namespace.isBlank()) {
            if (namespace.startsWith("/") || namespace.endsWith("/")) {
                throw new InvalidZkLockPropertyException("zklock.namespace", namespace,
                        "give it without a leading or trailing slash, e.g. myapp/locks");
            }
            builder.namespace(namespace);
        }
        byte[] digest = digest(properties.getAuth());
        if (digest != null) {
            builder.authorization(List.of(new org.apache.curator.framework.AuthInfo("digest", digest)));
        }
        Path file = properties.getClientConfigFile();
        if (file != null) {
            try {
                builder.zkClientConfig(new ZKClientConfig(file));
            } catch (ConfigException e) {
                throw new InvalidZkLockPropertyException("zklock.client-config-file", file.toString(),
                        "it cannot be read as ZooKeeper client properties: " + e.getMessage());
            }
        }
    }

    /** {@code user:password} from the file or the environment variable; null if neither is set. */
    private static byte[] digest(ZkLockProperties.Auth auth) {
        Path file = auth.getDigestFile();
        String env = auth.getDigestEnv();
        if (file != null && env != null && !env.isBlank()) {
            throw new InvalidZkLockPropertyException("zklock.auth.digest-file", file.toString(),
                    "zklock.auth.digest-env is set too: give one source of credentials");
        }
        String credentials;
        String property;
        if (file != null) {
            property = "zklock.auth.digest-file";
            try {
                credentials = Files.readAllLines(file, StandardCharsets.UTF_8).stream().findFirst().orElse("").strip();
            } catch (IOException e) {
                throw new InvalidZkLockPropertyException(property, file.toString(), "it cannot be read ("
                        + e.getClass().getSimpleName() + ")");
            }
        } else if (env != null && !env.isBlank()) {
            property = "zklock.auth.digest-env";
            credentials = System.getenv(env);
            if (credentials == null) {
                throw new InvalidZkLockPropertyException(property, env, "no such environment variable");
            }
        } else {
            return null;
        }
        int colon = credentials.indexOf(':');
        if (colon <= 0 || colon == credentials.length() - 1) {
            // the value is a secret: the message names its source, never its content
            throw new InvalidZkLockPropertyException(property, file != null ? file.toString() : env,
                    "its credentials are not of the form user:password");
        }
        return credentials.getBytes(StandardCharsets.UTF_8);
    }
}
