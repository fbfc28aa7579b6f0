package io.zklock.core.internal.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.Test;

/**
 * The hot path's own path helpers give what Curator's {@code ZKPaths} gives for every valid
 * path the engine uses (they only skip validating it again): {@link CuratorPort#serverPath}
 * against {@code ZKPaths.fixForNamespace}, with and without a namespace, and
 * {@link NodePaths#name} against {@code ZKPaths.getNodeFromPath}, {@link NodePaths#parent}
 * against {@code ZKPaths.getPathAndNode} and {@link NodePaths#child} against
 * {@code ZKPaths.makePath}. No server is needed: the
 * client is built, never started.
 */
class HotPathPathsTest {
    private static final List<String> PATHS = List.of("/", "/locks", "/locks/a", "/a/b/c",
            "/locks/orders/_c_0b4d3c55-7d1e-4e8a-9b61-5a0f3f1b2c3d-lock-0000000042",
            "/locks/x/_c_0b4d3c55-7d1e-4e8a-9b61-5a0f3f1b2c3d-read.0000000007-0000000009");

    @Test
    void serverPathIsCuratorsForEveryNamespace() {
        for (String namespace : java.util.Arrays.asList(null, "", "app", "app/tenant")) {
            CuratorFramework client = CuratorFrameworkFactory.builder().connectString("127.0.0.1:1")
                    .retryPolicy(new RetryOneTime(1)).namespace(namespace).build();
            try {
                var port = new CuratorPort(client, null);
                for (String path : PATHS) {
                    assertEquals(ZKPaths.fixForNamespace(client.getNamespace(), path), port.serverPath(path),
                            "namespace '" + namespace + "', path " + path);
                }
            } finally {
                client.close();
            }
        }
    }

    @Test
    void nodeNameIsCuratorsLastSegment() {
        for (String path : PATHS) {
            assertEquals(ZKPaths.getNodeFromPath(path), NodePaths.name(path), path);
        }
    }

    @Test
    void parentIsCuratorsPath() {
        for (String path : PATHS) {
            assertEquals(ZKPaths.getPathAndNode(path).getPath(), NodePaths.parent(path), path);
        }
    }

    @Test
    void childIsCuratorsMadePath() {
        for (String dir : PATHS) {
            for (String name : List.of("a", "_c_0b4d3c55-7d1e-4e8a-9b61-5a0f3f1b2c3d-lock-0000000042")) {
                assertEquals(ZKPaths.makePath(dir, name), NodePaths.child(dir, name), dir + " + " + name);
            }
        }
    }
}
