package io.zklock.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;

import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * How the commands authenticate, as ZooKeeper's own tools do: a client properties file read
 * by {@link ZKClientConfig} (TLS, SASL), and {@code scheme:credentials} for {@code addauth}
 * from a file or the environment, never from the command line, where any user's {@code ps}
 * shows it. The credentials never appear in a message: an error names the file or the
 * variable, and the scheme at most.
 */
final class Credentials {
    /** The environment variable read when no {@code --auth-file} is given. */
    static final String ENV = "ZKLOCK_AUTH";

    private Credentials() {
    }

    /**
     * What to add to a client's builder: the ZooKeeper client configuration and the
     * authentication, if any.
     *
     * @throws ParameterException naming the file or variable (never its content) if it cannot be used
     */
    static UnaryOperator<CuratorFrameworkFactory.Builder> configure(CommandLine commandLine, Path clientConfig, Path authFile,
            Map<String, String> env) {
        ZKClientConfig config = clientConfig == null ? null : clientConfig(commandLine, clientConfig);
        String auth;
        String source;
        if (authFile != null) {
            source = "--auth-file " + authFile;
            try {
                auth = Files.readAllLines(authFile, StandardCharsets.UTF_8).stream().findFirst().orElse("").strip();
            } catch (IOException | java.io.UncheckedIOException e) {
                throw new ParameterException(commandLine, "cannot read " + source + " (" + e.getClass().getSimpleName() + ")");
            }
        } else {
            source = "the environment variable " + ENV;
            auth = env.get(ENV);
        }
        int colon = auth == null ? -1 : auth.indexOf(':');
        if (auth != null && !auth.isEmpty() && (colon <= 0 || colon == auth.length() - 1)) {
            throw new ParameterException(commandLine, source + " must hold scheme:credentials (e.g. digest:user:password); "
                    + "what it holds is not shown");
        }
        String scheme = colon > 0 ? auth.substring(0, colon) : null;
        byte[] secret = colon > 0 ? auth.substring(colon + 1).getBytes(StandardCharsets.UTF_8) : null;
        return b -> {
            if (config != null) {
                b.zkClientConfig(config);
            }
            if (scheme != null) {
                b.authorization(scheme, secret);
            }
            return b;
        };
    }

    private static ZKClientConfig clientConfig(CommandLine commandLine, Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ParameterException(commandLine, "--client-config " + file + " is not a readable file");
        }
        try {
            return new ZKClientConfig(file);
        } catch (ConfigException | RuntimeException e) {
            throw new ParameterException(commandLine, "--client-config " + file + " cannot be read as ZooKeeper client properties");
        }
    }
}
